"""pmap: run a function on several devices at once, each on its slice of the mapped inputs, with collectives.

The body is staged once per signature into a program of per-device values. IREE's CPU drivers have no
collectives, so the program is split at its collective equations into segments; each segment is compiled once
(per target) and run on every device concurrently (one thread per device: IREE's invoke releases the GIL); the
collectives between segments are performed on the host through a `Collectives` backend
(transforms/pmap_collectives.py). Control flow whose body holds a collective (scan, while_loop, cond) runs its
loop or choice on the host, its body's segments on the devices. `pmap(pmap(f))` maps a 2-D device mesh. Results
stay on their devices as a sharded Tensor that the next pmap call takes without copying.

Under another transform (grad of a pmap, pmap inside jit or vmap) pmap evaluates as `vmap` with the same axis
name, which is its reference meaning and gives the same numbers.
"""
from __future__ import annotations

import contextlib
import functools
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import paddle_fn.runtime as runtime
from paddle_fn.core.config import config
from paddle_fn.core.errors import TransformError, UnsupportedError
from paddle_fn.core.ir import Literal, Program, sub_program_params, sub_programs, work_estimate
from paddle_fn.core.pytree import broadcast_prefix, tree_flatten, tree_unflatten
from paddle_fn.core.staging import trace_to_program
from paddle_fn.core.trace import AxisFrameTrace, Tensor, Tracer, current_dynamic_main, get_aval, new_main
from paddle_fn.lowering.multi_device import lower_multi_device, mesh_groups, target_device_flags
from paddle_fn.lowering.simplify import simplify
from paddle_fn.prims.control_flow import cond_p, scan_p, while_p
from paddle_fn.runtime.multi_device import load_multi_device
from paddle_fn.transforms._args import as_leaf, flatten_fun, fun_name, merge_static_args
from paddle_fn.transforms.devices import devices as all_devices
from paddle_fn.transforms.jit import cached_for_program, jit_call_p, stablehlo_text
from paddle_fn.transforms.pmap_collectives import Collectives, InProcessCollectives, default_backend
from paddle_fn.transforms.vmap import vmap


# ----------------------------------------------------------------------------------------------- sharded values

class ShardedArray:
    """One value split along axis 0 over devices: shard i (a device buffer, or a host array) lives on device i.
    Behind a Tensor it reads like any device array; its value is gathered to the host only when asked for.

    Example:
        >>> import paddle_fn as paddle
        >>> out = paddle.pmap(lambda v: v + 1.0)(paddle.zeros([len(paddle.devices()), 2]))
        >>> type(out.device_array).__name__, len(out.device_array.shards) == len(paddle.devices())
        ('ShardedArray', True)
    """

    committed = False  # spread over devices: a jitted call taking it runs where its other arguments say

    def __init__(self, shards, devices, mesh_shape=None):
        self.shards, self.devices = list(shards), tuple(devices)
        first = self.shards[0]
        # a nested pmap lays its devices out as a mesh: shard k is element k of the mesh in row-major order
        self.mesh_shape = tuple(mesh_shape or (len(self.shards),))
        self.shape = self.mesh_shape + tuple(first.shape)
        self.dtype = np.dtype(first.dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def to_numpy(self) -> np.ndarray:
        flat = np.stack([s.to_numpy() if hasattr(s, "to_numpy") else np.asarray(s) for s in self.shards])
        return flat.reshape(self.shape)

    def __array__(self, dtype=None, copy=None):
        v = self.to_numpy()
        return v if dtype is None else v.astype(dtype)

    def __repr__(self):
        return f"ShardedArray({list(self.shape)} {self.dtype}, over {len(self.devices)} devices)"


def _sharded_tensor(shards, devices, mesh_shape) -> Tensor:
    return Tensor.from_device_array(ShardedArray([s.device_array if s.device_array is not None else
                                                  s.concrete_value() for s in shards], devices, mesh_shape))


def _split_input(t: Tensor, axis, devices, mesh_shape) -> list:
    """The per-device Tensors of one argument leaf: its shards in place when it is already sharded this way."""
    n = len(devices)
    if axis is None:
        if t.device_array is None and n > 1 and devices[0].platform == "cpu":
            # one copy that every CPU device reads in place, rather than one copy per device
            t = Tensor.from_device_array(runtime.device_put(t.concrete_value(), devices[0]))
        return [t] * n
    arr = t.device_array
    if axis == 0 and isinstance(arr, ShardedArray) and arr.devices == tuple(devices) and \
            arr.mesh_shape == tuple(mesh_shape):
        return [Tensor.from_device_array(s) if not isinstance(s, np.ndarray) else Tensor(s) for s in arr.shards]
    v = t.concrete_value()
    if len(mesh_shape) > 1:  # a nested pmap: the leading mesh axes, flattened
        v = v.reshape((n,) + v.shape[len(mesh_shape):])
    return [Tensor(np.take(v, i, axis=axis)) for i in range(n)]


# ----------------------------------------------------------------------------------------------- program splitting

def _has_collective(program) -> bool:
    for eqn in program.eqns:
        if eqn.prim.lower_on_mesh is not None:  # a collective
            return True
        if any(_has_collective(p) for p in sub_programs(eqn)):
            return True
    return False


_HOST_CONTROL = (scan_p, while_p, cond_p)  # the control flow `_run_control` can run on the host


def _is_host_control(eqn) -> bool:
    """A scan, while_loop or cond whose sub-programs hold a collective: pmap runs the control flow on the host and
    the sub-programs' segments on the devices."""
    return eqn.prim in _HOST_CONTROL and any(_has_collective(p) for p in sub_programs(eqn))


def _host_programs(eqn) -> dict:
    """Each sub-program of a host-run control-flow equation, flattened and split: param name -> [(program,
    stages)]."""
    return {key: [(flat, _stages(flat)) for flat in map(_flatten, progs)]
            for key, progs in sub_program_params(eqn).items()}


def _flatten(program: Program) -> Program:
    """Inline the jit calls that contain collectives (their collectives happen between devices, outside any one
    compiled program); a collective inside custom derivatives is an error."""
    subst = {}

    def read(v):
        return subst.get(v, v) if not isinstance(v, Literal) else v

    eqns = []

    def emit(prog, inputs):
        for v, x in zip(prog.in_vars, inputs):
            subst[v] = x
        for eqn in prog.eqns:
            ins = [read(v) for v in eqn.inputs]
            if eqn.prim is jit_call_p and _has_collective(eqn.params["program"]):
                inner = eqn.params["program"]
                emit(inner, ins)
                for o, r in zip(eqn.outputs, inner.out_vars):
                    subst[o] = read(r)
                continue
            if not _is_host_control(eqn) and any(_has_collective(p) for p in sub_programs(eqn)):
                raise UnsupportedError(
                    f"pmap: a collective inside {eqn.prim.name} is not supported (pmap performs collectives between "
                    f"compiled segments; scan, while_loop and cond run on the host around them, other primitives "
                    f"cannot); move the collective out of the {eqn.prim.name}, or use vmap with an axis_name for "
                    "this computation")
            eqns.append(eqn.__class__(eqn.prim, tuple(ins), eqn.params, eqn.outputs))

    emit(program, list(program.in_vars))
    return Program(program.in_vars, tuple(eqns), tuple(read(v) for v in program.out_vars))


def _stages(program: Program) -> list:
    """[("segment", Program) | ("collective", eqn) | ("control", (eqn, sub-programs))] in order; a segment's
    inputs are the values it reads from before it, its outputs the values it defines that later stages or the
    program's outputs read.

    Equations are grouped by how many collectives lie on their longest path from the inputs, so independent
    collectives (the pmean of every gradient) happen together between two segments instead of each cutting the
    program once more."""
    depth, segments, groups = {}, {}, {}
    for eqn in program.eqns:
        d = max((depth.get(v, 0) for v in eqn.inputs if not isinstance(v, Literal)), default=0)
        if eqn.prim.lower_on_mesh is not None or _is_host_control(eqn):  # a collective, or control flow
            groups.setdefault(d, []).append(eqn)
            d += 1
        else:
            segments.setdefault(d, []).append(eqn)
        for o in eqn.outputs:
            depth[o] = d
    chunks = []
    for d in range(max([*segments, *groups], default=-1) + 1):
        if d in segments:
            chunks.append(segments[d])
        chunks.extend(groups.get(d, []))
    live = {v for v in program.out_vars if not isinstance(v, Literal)}
    stages = []
    for chunk in reversed(chunks):
        if not isinstance(chunk, list):
            live -= set(chunk.outputs)
            live |= {v for v in chunk.inputs if not isinstance(v, Literal)}
            if _is_host_control(chunk):
                stages.append(("control", (chunk, _host_programs(chunk))))
            else:
                stages.append(("collective", chunk))
            continue
        defined = {o for e in chunk for o in e.outputs}
        outs = [o for e in chunk for o in e.outputs if o in live]
        if not outs:
            continue  # nothing after it reads it
        ins = []
        for e in chunk:
            for v in e.inputs:
                if not isinstance(v, Literal) and v not in defined and v not in ins:
                    ins.append(v)
        stages.append(("segment", Program(tuple(ins), tuple(chunk), tuple(outs))))
        live = (live - defined) | set(ins)
    return stages[::-1]


def _executables(program: Program, devices, name):
    """One executable per device, compiled once per target (every CPU device shares one compilation)."""
    def build():
        text = stablehlo_text(program)
        artifacts, exes = {}, []
        work = work_estimate(program)
        for d in devices:
            d = runtime.run_device(d, work)
            if d.target not in artifacts:
                artifacts[d.target] = runtime.compile_stablehlo(text, target=d.target,
                                                                use_disk_cache=config.disk_cache)
            exes.append(runtime.load_executable(artifacts[d.target], d))
        return exes
    return cached_for_program(program, ("pmap", tuple(devices)), build)


# ----------------------------------------------------------------------------------------------- pmap

# config.pmap_strategy: "module" runs the whole program as one multi-device IREE module (one call per step, the
# collectives as transfers between devices inside it); "segments" runs compiled segments on every device and the
# collectives between them on the host (any backend, any control flow); "auto" takes the module where it can,
# up to MODULE_MAX_DEVICES devices
MODULE_MAX_DEVICES = 8

class _Compiled:
    """One signature's staged body: its stages, captured constants, program inputs/outputs and output tree."""
    __slots__ = ("flat", "stages", "consts", "in_vars", "out_vars", "out_tree", "out_axes", "first_only", "mesh")

    def __init__(self, program, consts, out_tree, out_axes, mesh):
        self.flat = flat = _flatten(program)
        self.stages, self.consts = _stages(flat), consts
        self.in_vars, self.out_vars = flat.in_vars, flat.out_vars
        self.out_tree, self.out_axes = out_tree, out_axes
        self.first_only = _first_only(self.stages, self.out_vars, out_axes)
        self.mesh = mesh  # ((axis name, size), ...): one entry, or two for a nested pmap


def _first_only(stages, out_vars, out_axes) -> set:
    """Indices of the segments whose results only feed `out_axes=None` outputs (the value of device 0): they run
    on device 0 alone (the parameter update after a pmean of gradients, say)."""
    everywhere = {v for v, ax in zip(out_vars, out_axes) if ax is not None and not isinstance(v, Literal)}
    first = set()
    for index in range(len(stages) - 1, -1, -1):
        kind, stage = stages[index]
        if kind != "segment":
            eqn = stage if kind == "collective" else stage[0]
            everywhere |= {v for v in eqn.inputs if not isinstance(v, Literal)}
        elif any(v in everywhere for v in stage.out_vars):
            everywhere |= set(stage.in_vars)
        else:
            first.add(index)
    return first


class PmapFunction:
    """A function mapped over devices (see `pmap`): it keeps one staged and compiled program per signature.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.pmap(lambda v: v * 2.0)
        <pmap(<lambda>)>
    """

    def __init__(self, fun, axis_name, in_axes, out_axes, static_broadcasted_argnums, devices, backend):
        functools.update_wrapper(self, fun)
        self.fun, self.axis_name, self.in_axes, self.out_axes = fun, axis_name, in_axes, out_axes
        nums = static_broadcasted_argnums
        self.static_argnums = (nums,) if isinstance(nums, int) else tuple(nums)
        self.devices = None if devices is None else list(devices)
        self._backend = backend
        self._name = fun_name(fun)
        self._cache = {}
        self._pool = None

    @property
    def backend(self) -> Collectives:
        """The backend given to pmap, else the default one at the time of the call (see `default_backend`)."""
        return self._backend if self._backend is not None else default_backend()

    def __repr__(self):
        return f"<pmap({self._name})>"

    def _prepare(self, args, kwargs):
        n = len(args)
        static_pos = {i % n for i in self.static_argnums if -n <= i < n}
        bad = [i for i in self.static_argnums if not -n <= i < n]
        if bad:
            raise TransformError(f"pmap({self._name}): static_broadcasted_argnums {bad} out of range for a call with "
                                 f"{n} positional arguments")
        statics = tuple((i, args[i]) for i in sorted(static_pos))
        for i, v in statics:
            try:
                hash(v)
            except TypeError:
                raise TypeError(f"pmap({self._name}): static argument {i} ({type(v).__name__}) is not hashable; "
                                "static arguments are cache keys (pass a tuple instead of a list)") from None
        dyn = tuple(a for i, a in enumerate(args) if i not in static_pos)
        axes = self.in_axes
        if isinstance(axes, list):
            axes = tuple(axes)
        if isinstance(axes, tuple):
            if len(axes) == n and static_pos:
                axes = tuple(a for i, a in enumerate(axes) if i not in static_pos)
            if len(axes) != len(dyn):
                raise TransformError(f"pmap({self._name}): in_axes has {len(axes)} entries but the function was "
                                     f"called with {len(dyn)} mapped or broadcast positional arguments")
        else:
            axes = (axes,) * len(dyn)
        try:
            flat_axes = list(broadcast_prefix(axes, dyn))
        except ValueError as e:
            raise TransformError(f"pmap({self._name}): in_axes {self.in_axes!r} does not match the arguments: {e}") \
                from None
        leaves, in_tree = tree_flatten((dyn, kwargs))
        flat_axes += [0] * (len(leaves) - len(flat_axes))
        tensors = [as_leaf(x, f"pmap({self._name})") for x in leaves]
        dims = []
        for i, (t, ax) in enumerate(zip(tensors, flat_axes)):
            if ax is not None:
                nd = t.ndim
                if not isinstance(ax, int) or not -nd <= ax < nd:
                    raise TransformError(f"pmap({self._name}): in_axes {ax!r} is not a valid axis for argument leaf "
                                         f"{i} of shape {t.shape}")
                ax %= nd
            dims.append(ax)
        return statics, static_pos, dyn, tensors, dims, in_tree, n

    def _devices_for(self, size, mesh=None):
        if mesh is not None and len(mesh) > 1:
            available = all_devices(all_devices()[0].platform)
            if size > len(available):
                raise TransformError(f"pmap({self._name}): the nested pmaps map a {mesh[0][1]} x {mesh[1][1]} device "
                                     f"mesh, which needs {size} devices, but {len(available)} are available; start "
                                     f"with PADDLE_FN_NUM_CPU_DEVICES={size} for that many virtual CPU devices")
            return available[:size]
        if self.devices is not None:
            if size != len(self.devices):
                raise TransformError(f"pmap({self._name}): the mapped axis has size {size} but {len(self.devices)} "
                                     f"devices were given; the leading (in_axes) dimension of the mapped arguments "
                                     f"must equal the number of devices")
            return self.devices
        available = all_devices(all_devices()[0].platform)
        if size > len(available):
            raise TransformError(f"pmap({self._name}): the mapped axis has size {size} but only {len(available)} "
                                 f"devices are available ({available}); split the batch into {len(available)} "
                                 f"parts (x.reshape([{len(available)}, -1, ...])), or start with "
                                 f"PADDLE_FN_NUM_CPU_DEVICES={size} for that many virtual CPU devices")
        return available[:size]

    def __call__(self, *args, **kwargs):
        statics, static_pos, dyn, tensors, dims, in_tree, n_args = self._prepare(args, kwargs)
        sizes = {t.shape[d] for t, d in zip(tensors, dims) if d is not None}
        if len(sizes) > 1:
            raise TransformError(f"pmap({self._name}): the mapped axes have different sizes {sorted(sizes)}; every "
                                 "mapped argument must have one slice per device")
        if not sizes:
            raise TransformError(f"pmap({self._name}): no argument is mapped (all in_axes are None); map at least "
                                 "one argument over the devices")
        size = sizes.pop()
        if any(isinstance(t, Tracer) for t in tensors) or current_dynamic_main().level != 0:
            self._devices_for(size)
            return self._reference(args, kwargs, static_pos, dims, in_tree, tensors)
        mesh = ((self.axis_name, size),)
        inner = self._nested_inner(static_pos, kwargs, dims)
        if inner is not None:
            inner_sizes = {t.shape[1] if t.ndim > 1 else None for t in tensors}
            if len(inner_sizes) != 1 or None in inner_sizes:
                raise TransformError(f"pmap({self._name}) of pmap({inner._name}): every argument needs the same two "
                                     f"leading (device mesh) axes, got shapes {[t.shape for t in tensors]}")
            mesh += ((inner.axis_name, inner_sizes.pop()),)
        devices = self._devices_for(int(np.prod([n for _, n in mesh])), mesh)
        key = (in_tree, tuple(dims), tuple(get_aval(t) if d is None else _shard_aval(t, d, len(mesh))
                                           for t, d in zip(tensors, dims)), statics, tuple(devices), mesh)
        compiled = self._cache.get(key)
        if compiled is None:
            compiled = self._trace(statics, static_pos, tensors, dims, in_tree, n_args, mesh,
                                   inner.fun if inner is not None else self.fun)
            if compiled is None:  # it closed over values of another transform, or prints (paddle_fn.debug)
                return self._reference(args, kwargs, static_pos, dims, in_tree, tensors)
            self._cache[key] = compiled
        return self._execute(compiled, tensors, dims, devices)

    def _nested_inner(self, static_pos, kwargs, dims):
        """The inner PmapFunction of ``pmap(pmap(f, 'j'), 'i')`` when the pair maps a 2-D device mesh: both map
        every argument along axis 0 into a sharded result, with names, no static arguments and in-process
        collectives. Otherwise None: the inner pmap then runs as a vmap on each device."""
        inner = self.fun
        if not isinstance(inner, PmapFunction) or static_pos or inner.static_argnums or kwargs:
            return None
        simple = all(f.in_axes == 0 and f.out_axes == 0 and f.axis_name is not None and f.devices is None and
                     type(f.backend) is InProcessCollectives for f in (self, inner))
        return inner if simple and all(d == 0 for d in dims) else None

    def _trace(self, statics, static_pos, tensors, dims, in_tree, n_args, mesh, fun):
        flat_fun, out = flatten_fun(
            fun, lambda leaves: merge_static_args(*tree_unflatten(in_tree, leaves), statics, static_pos, n_args),
            what=f"pmap({self._name})")

        avals = [get_aval(t) if d is None else _shard_aval(t, d, len(mesh)) for t, d in zip(tensors, dims)]
        with contextlib.ExitStack() as frames:
            for name, size in mesh:
                # the axis spans the devices of every process of the backend (this process maps `size` of them)
                frames.enter_context(new_main(AxisFrameTrace, {"axis_name": name, "axis_size": (
                    self.backend.axis_size(size) if len(mesh) == 1 else size)}, transform="pmap"))
            callbacks = []
            prog, consts = trace_to_program(flat_fun, avals, transform=f"pmap({self._name})", callbacks=callbacks)
        if callbacks or any(isinstance(c, Tracer) for c in consts):
            return None  # debug callbacks, or values of another transform: run as the named vmap it means
        try:
            axes = broadcast_prefix(self.out_axes, out.value)
        except ValueError as e:
            raise TransformError(f"pmap({self._name}): out_axes {self.out_axes!r} does not match the output: "
                                 f"{e}") from None
        return _Compiled(prog, list(consts), out.tree, list(axes), mesh)

    def _reference(self, args, kwargs, static_pos, dims, in_tree, tensors):
        """The meaning of pmap under another transform: vmap with the same axis name."""
        statics = {i: args[i] for i in static_pos}
        dyn_axes, kw_axes = tree_unflatten(in_tree, dims)
        dyn_vals, kw_vals = tree_unflatten(in_tree, tensors)

        def body(dyn, kw):
            it = iter(dyn)
            return self.fun(*[statics[i] if i in statics else next(it) for i in range(len(args))], **kw)
        return vmap(body, in_axes=(tuple(dyn_axes), kw_axes), out_axes=self.out_axes,
                    axis_name=self.axis_name)(tuple(dyn_vals), kw_vals)

    def _map(self, fn, n):
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="pmap")
        return list(self._pool.map(fn, range(n)))

    def _run_stages(self, stages, envs, devices, mesh, first_only=frozenset()):
        """Run the stages on every device: segments in parallel, collectives on the host, loops on the host."""
        n = len(devices)
        first = self.backend.first_index(n)
        read = _read
        for index, (kind, stage) in enumerate(stages):
            if kind == "segment":
                exes = _executables(stage, devices, self._name)

                def run(i, stage=stage, exes=exes):
                    env = envs[i]
                    outs = exes[i](*[_buffer(read(env, v)) for v in stage.in_vars])
                    for v, o in zip(stage.out_vars, outs):
                        env[v] = Tensor.from_device_array(o)
                if index in first_only:
                    run(0)
                else:
                    self._map(run, n)
            elif kind == "control":
                self._run_control(*stage, envs, devices, mesh)
            else:
                values = [np.asarray(read(env, v).concrete_value()) for env in envs for v in stage.inputs]
                if len(mesh) == 1:
                    results = stage.prim.run_on_host(self.backend, values or [None] * n, first, **stage.params)
                else:  # over one axis of the mesh: each group of devices along it separately
                    results = [None] * n
                    for group in mesh_groups(mesh, stage.params["axis_name"]):
                        part = stage.prim.run_on_host(self.backend, [values[k] if values else None for k in group],
                                                      0, **stage.params)
                        for k, r in zip(group, part):
                            results[k] = r
                out_aval = stage.outputs[0].aval
                placed = {}  # a result shared by every device (all_reduce, all_gather) is copied in once
                for env, r, d in zip(envs, results, devices):
                    home = devices[0] if d.platform == "cpu" else d  # CPU devices read each other's buffers
                    if (id(r), home) not in placed:
                        placed[id(r), home] = Tensor.from_device_array(runtime.device_put(
                            np.asarray(r, dtype=out_aval.dtype.np), home))
                    env[stage.outputs[0]] = placed[id(r), home]

    def _run_program(self, program, stages, inputs, devices, mesh):
        """Run a flattened sub-program on every device; `inputs[i]` are device i's; returns each's outputs."""
        envs = [dict(zip(program.in_vars, ins)) for ins in inputs]
        self._run_stages(stages, envs, devices, mesh)
        return [[_read(env, v) for v in program.out_vars] for env in envs]

    def _same_everywhere(self, values, what):
        """The one value every device computed for a decision the host takes for all of them."""
        if len(set(values)) > 1:
            raise ValueError(f"pmap({self._name}): the devices disagree on {what} ({values} in device order) of a "
                             "control-flow operation whose body holds a collective; every device must take the same "
                             "path (decide it from a value combined over the devices, e.g. with psum or pmax)")
        return values[0]

    def _run_control(self, eqn, programs, envs, devices, mesh):
        """A scan, while_loop or cond with collectives inside: the loop or the choice runs here, the sub-programs'
        stages on the devices."""
        p = eqn.params
        args = [[_read(env, v) for v in eqn.inputs] for env in envs]
        if eqn.prim is cond_p:
            indices = [int(a[0].concrete_value()) for a in args]
            n_branches = len(programs["branches"])
            index = self._same_everywhere([i if 0 <= i < n_branches else n_branches - 1 for i in indices],
                                          "the branch")
            outs = self._run_program(*programs["branches"][index], [a[1:] for a in args], devices, mesh)
        elif eqn.prim is while_p:
            nc, nb = p["cond_nconsts"], p["body_nconsts"]
            cond_consts, body_consts = [a[:nc] for a in args], [a[nc:nc + nb] for a in args]
            outs = [a[nc + nb:] for a in args]
            while self._same_everywhere([bool(r[0].concrete_value()) for r in self._run_program(
                    *programs["cond_prog"][0], [c + o for c, o in zip(cond_consts, outs)], devices, mesh)],
                    "whether to loop again"):
                outs = self._run_program(*programs["body_prog"][0], [c + o for c, o in zip(body_consts, outs)],
                                         devices, mesh)
        else:
            outs = self._run_scan(p, programs["body"][0], args, devices, mesh)
        for env, values in zip(envs, outs):
            for v, x in zip(eqn.outputs, values):
                env[v] = x

    def _run_scan(self, p, body, args, devices, mesh):
        nc, nk, length = p["num_consts"], p["num_carry"], p["length"]
        consts = [a[:nc] for a in args]
        carry = [a[nc:nc + nk] for a in args]
        xs = [[np.asarray(x.concrete_value()) for x in a[nc + nk:]] for a in args]
        ys = [[] for _ in args]
        for it in (reversed(range(length)) if p["reverse"] else range(length)):
            outs = self._run_program(*body, [c + k + [Tensor(x[it]) for x in xi]
                                             for c, k, xi in zip(consts, carry, xs)], devices, mesh)
            for i, o in enumerate(outs):
                carry[i] = o[:nk]
                ys[i].append([np.asarray(y.concrete_value()) for y in o[nk:]])
        y_avals = body[0].out_avals[nk:]
        results = []
        for i in range(len(args)):
            steps = ys[i][::-1] if p["reverse"] else ys[i]
            results.append(carry[i] + [Tensor(np.stack([step[j] for step in steps]) if steps else
                                              np.zeros((0,) + a.shape, a.dtype.np)) for j, a in enumerate(y_avals)])
        return results

    def _one_module(self, compiled, devices) -> bool:
        """Whether this call runs as one multi-device module (see `config.pmap_strategy`)."""
        strategy = config.pmap_strategy
        if strategy == "segments":
            return False
        blocker = None
        if type(self.backend) is not InProcessCollectives:
            blocker = f"its collectives go through {type(self.backend).__name__} (other processes take part)"
        elif any(d.platform != "cpu" for d in devices):
            blocker = f"it runs on {devices[0].platform} devices (the multi-device module is built for CPU devices)"
        elif any(kind == "control" for kind, _ in compiled.stages):
            blocker = "a loop or cond holds a collective (that control flow runs on the host)"
        if strategy == "module" and blocker is not None:
            raise UnsupportedError(f"pmap({self._name}): config.pmap_strategy='module' but this pmap cannot run as "
                                   f"one multi-device module: {blocker}; use 'auto' or 'segments'")
        # one module copies the program once per device, so its compile time grows with the device count
        return blocker is None and (strategy == "module" or 1 < len(devices) <= MODULE_MAX_DEVICES)

    def _run_module(self, compiled, prog_inputs, devices) -> list:
        """Run the whole program as one multi-device module; each output's values, per device (one for the
        out_axes=None outputs: device 0's)."""
        n = len(devices)
        first = frozenset(k for k, ax in enumerate(compiled.out_axes) if ax is None)
        counts = [1 if k in first else n for k in range(len(compiled.out_vars))]

        def build():
            text = lower_multi_device(simplify(compiled.flat), compiled.mesh, first_device_outputs=first)
            return load_multi_device(text, devices, [d for _ in compiled.in_vars for d in devices],
                                     [d for count in counts for d in devices[:count]],
                                     extra_flags=target_device_flags(n), use_disk_cache=config.disk_cache)
        exe = cached_for_program(compiled.flat, ("pmap module", tuple(devices), compiled.mesh, first), build)
        results = iter(exe([_buffer(x) for per_device in prog_inputs for x in per_device]))
        return [[Tensor.from_device_array(next(results)) for _ in range(count)] for count in counts]

    def _run_segments(self, compiled, prog_inputs, devices) -> list:
        """Run the program's segments on every device, its collectives between them on the host."""
        envs = [dict() for _ in devices]
        for v, per_device in zip(compiled.in_vars, prog_inputs):
            for env, x in zip(envs, per_device):
                env[v] = x
        self._run_stages(compiled.stages, envs, devices, compiled.mesh, compiled.first_only)
        return [[_read(envs[0], v)] if ax is None else [_read(env, v) for env in envs]
                for v, ax in zip(compiled.out_vars, compiled.out_axes)]

    def _execute(self, compiled, tensors, dims, devices):
        n = len(devices)
        mesh_shape = tuple(size for _, size in compiled.mesh)
        prog_inputs = [[c] * n for c in compiled.consts] + [_split_input(t, d, devices, mesh_shape)
                                                              for t, d in zip(tensors, dims)]
        run = self._run_module if self._one_module(compiled, devices) else self._run_segments
        outs = []
        for shards, ax in zip(run(compiled, prog_inputs, devices), compiled.out_axes):
            if ax is None:
                outs.append(shards[0])
            elif ax == 0:
                outs.append(_sharded_tensor(shards, devices, mesh_shape))
            else:
                stacked = np.stack([s.concrete_value() for s in shards])
                nd = stacked.ndim
                if not -nd <= ax < nd:
                    raise TransformError(f"pmap({self._name}): out_axes {ax} is out of range for an output of rank "
                                         f"{nd}")
                outs.append(Tensor(np.moveaxis(stacked, 0, ax)))
        return tree_unflatten(compiled.out_tree, outs)


def _read(env, v):
    return Tensor(v.val) if isinstance(v, Literal) else env[v]


def _buffer(t: Tensor):
    arr = t.device_array
    return arr if arr is not None and not isinstance(arr, ShardedArray) else t.concrete_value()


def _shard_aval(t: Tensor, axis: int, mapped: int = 1):
    a = get_aval(t)
    return a.update(shape=a.shape[:axis] + a.shape[axis + mapped:])


def pmap(fun=None, axis_name=None, in_axes=0, out_axes=0, static_broadcasted_argnums=(), devices=None, *,
         backend: Collectives | None = None):
    """Map `fun` over devices: each device runs it on one slice of the mapped arguments.

    Args:
        fun: a function of Tensors (pytrees allowed).
        axis_name: the name collectives (`psum`, `pmean`, `all_gather`, ...) use to refer to the device axis.
        in_axes: int, None (broadcast to every device), or a pytree prefix of the positional arguments; the
            mapped axis of every mapped argument must have one entry per device.
        out_axes: where the device axis goes in each output (0: a sharded Tensor that stays on the devices; None:
            the value of device 0, for outputs that are the same on every device).
        static_broadcasted_argnums: positional arguments passed as Python values to every device (cache keys).
        devices: the devices to use (default: the first ones of the default platform, as many as the mapped size).
        backend: the `Collectives` implementation (default: in-process).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.arange(4, dtype='float32').reshape([len(paddle.devices()), -1])
        >>> out = paddle.pmap(lambda v: v / paddle.psum(v.sum(), 'i'), axis_name='i')(x)
        >>> out.numpy().reshape([-1])
        array([0.        , 0.16666667, 0.33333334, 0.5       ], dtype=float32)
    """
    if fun is None:
        return functools.partial(pmap, axis_name=axis_name, in_axes=in_axes, out_axes=out_axes,
                                 static_broadcasted_argnums=static_broadcasted_argnums, devices=devices,
                                 backend=backend)
    return PmapFunction(fun, axis_name, in_axes, out_axes, static_broadcasted_argnums, devices, backend)
