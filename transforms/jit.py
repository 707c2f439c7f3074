"""jit: trace a function once per signature, lower it to StableHLO, compile it with IREE and run it.

This module only orchestrates: tracing is `paddle_fn.core.staging`, lowering `paddle_fn.lowering`, compiling,
choosing the driver and running `paddle_fn.runtime`. A jitted call is the primitive `jit_call`, holding the
traced program. Eagerly it runs the compiled executable and returns device-resident Tensors; under other
transforms its rules transform the program (JVP split into a known and a linear call, transpose, batching), and
inside another jit it is inlined.
Caches: per JitFunction by (argument structure, shapes/dtypes, static values, device, matmul precision, runtime
checks); per program, in a side table that goes with the program (its executables, the programs derived from it,
why it was traced); in paddle_fn.runtime, executables shared by StableHLO text, and IREE's persistent disk cache.
"""
from __future__ import annotations

import contextlib
import functools
import gc
import inspect
import threading
import weakref

import numpy as np

import paddle_fn.runtime as runtime
from paddle_fn.core.autodiff import Zero, instantiate, is_differentiable, is_undefined
from paddle_fn.core.config import (canonical_checks, canonical_precision, config, default_matmul_precision,
                                    global_checks, log, matmul_precision_now)
from paddle_fn.core.errors import TransformError
from paddle_fn.core.ir import work_estimate
from paddle_fn.core.primitive import Primitive, symbolic_zeros
from paddle_fn.core.program_transforms import batch_program, linearize_program, transpose_program
from paddle_fn.core.pytree import tree_flatten, tree_unflatten
from paddle_fn.core.staging import eval_program, trace_to_program
from paddle_fn.core.tape import record_function, saved_tensors_hooks_now, set_grad_enabled
from paddle_fn.core.trace import Tensor, Tracer, current_dynamic_main, get_aval, grad_mode
from paddle_fn.lowering import Target, lower_program
from paddle_fn.lowering.simplify import simplify
from paddle_fn.transforms import background_compile
from paddle_fn.transforms._args import as_leaf, flatten_fun, fun_name, leaf_names, merge_static_args
from paddle_fn.transforms.checks import CHECK_AVALS, add_checks, raise_failed
from paddle_fn.transforms.devices import resolve_device
from paddle_fn.transforms.host_kernels import install as install_host_kernels

_LOCK = threading.RLock()

# Tracing and lowering make tens of thousands of objects, nearly all alive until the program is built, so Python's
# cyclic collector runs full passes over them (and everything the process holds) and frees nothing: 15 ms of a
# ResNet-style step's 29 ms trace, of an LSTM step's 37 ms lowering (benchmarks/README.md, "Warm-cache first
# calls"). It is paused while jit traces or lowers, in any thread, and resumes when the last of them finishes;
# reference counting still frees what they drop. A collector the user disabled stays disabled.
_GC_LOCK = threading.Lock()
_gc_pauses = 0
_gc_resumes = False


@contextlib.contextmanager
def _collector_paused():
    global _gc_pauses, _gc_resumes
    with _GC_LOCK:
        if _gc_pauses == 0:
            _gc_resumes = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_resumes:
                gc.enable()
install_host_kernels()  # the library routines compiled CPU programs call (lowering/host_calls.py)


# ----------------------------------------------------------------------------------------------- per program

class _ProgramCache:
    """What jit keeps for one program: why it was traced (for the compile log), its executable per device and
    the programs derived from it by the jit_call rules (and by pmap)."""

    __slots__ = ("reason", "executables", "derived", "compiling")

    def __init__(self):
        self.reason = "derived from a traced program by a transform"
        self.executables: dict = {}
        self.derived: dict = {}
        self.compiling: dict = {}  # executables key -> its background compile (background_compile.py)


# Programs are plain data (core/ir.py); what is derived from one lives here, weakly keyed, so it goes with it.
_PROGRAM_CACHES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _cache_of(program) -> _ProgramCache:
    cache = _PROGRAM_CACHES.get(program)
    if cache is None:
        with _LOCK:
            cache = _PROGRAM_CACHES.setdefault(program, _ProgramCache())
    return cache


def cached_for_program(program, key, build):
    """`build()`, computed once per (program, key) and kept as long as `program` lives."""
    derived = _cache_of(program).derived
    if key not in derived:
        with _LOCK:
            if key not in derived:
                derived[key] = build()
    return derived[key]


def lowering_target(backend: str, extra_flags=(), *, cpu: str | None = None,
                    host_kernels: bool | None = None) -> Target:
    """The Target a program is lowered for on the IREE backend `backend`, compiled with `extra_flags`: on llvm-cpu
    it names the CPU the code is compiled for (`cpu`, else the flags' or $PADDLE_FN_CPU_TARGET's, else the host)
    and that CPU's features, by which the lowering chooses forms (lowering/targets.py), and whether the program
    may call host kernels (`host_kernels`, else the `jit_host_kernels` setting): jit runs every program it lowers
    on one device of this process."""
    if backend != "llvm-cpu":
        return Target(backend)
    cpu = cpu or runtime.compiled_cpu(extra_flags)
    host_kernels = config.jit_host_kernels if host_kernels is None else host_kernels
    return Target(backend, cpu, runtime.cpu_features(cpu), host_kernels)


def stablehlo_text(program, precision: str = "float32", target: str | Target = "llvm-cpu") -> str:
    """The StableHLO module jit compiles for `program`: simplified, then lowered as one function ``main`` with its
    float32 products at `precision` (lowering/precision.py), for `target` (a backend name: its `lowering_target`).
    Lowered once per (program, precision, target)."""
    target = lowering_target(target) if isinstance(target, str) else target
    def lower():
        with _collector_paused():
            return lower_program(simplify(program), name="main", matmul_precision=precision, target=target)
    return cached_for_program(program, ("stablehlo", precision, target), lower)


def _requests_checks(program) -> bool:
    """Whether a jit called inside `program` (at any depth) asked for runtime checks of its own."""
    return any(eqn.prim is jit_call_p and (eqn.params["checks"] or _requests_checks(eqn.params["program"]))
               for eqn in program.eqns)


def checked_program(program, checks):
    """(the program jit compiles for `program` under runtime `checks`, the CheckSites its extra outputs report):
    `program` itself and () when neither it nor a jit inside it is checked (transforms/checks.py)."""
    if not checks and not _requests_checks(program):
        return program, ()
    return cached_for_program(program, ("checks", checks), lambda: add_checks(program, checks, jit_call_p))


def _executable(program, device, name, precision, checks, *, background=False):
    """(the executable of `program` on `device`, the CheckSites of its check outputs), compiled once per key. With
    `background` (a call that can run the program op by op instead), None while it is compiled in a background
    thread (transforms/background_compile.py); never in checked mode, whose checks live in the compiled program."""
    cache = _cache_of(program)
    # code for one CPU, or compiled with other flags of $PADDLE_FN_IREE_FLAGS, is never another's
    key = (device, precision, checks, runtime.cpu_target(), runtime.iree_flags(), config.jit_host_kernels)
    found = cache.executables.get(key)
    if found is not None:
        return found
    load = functools.partial(_load, program, cache, key, name)
    if (background and not checks and config.jit_background_compile
            and cached_for_program(program, "op by op", lambda: background_compile.worth_running_op_by_op(program))):
        return background_compile.executable_or_none(cache.compiling, key, load, name)
    return load()


def _load(program, cache, key, name, cached_only=False):
    """Compile (or fetch from the disk cache) and load `program` for `key`; None when `cached_only` and it is in
    neither. The runtime compiles each text once and lets other programs load meanwhile, so no lock is held here."""
    device, precision, checks, cpu, _, host_kernels = key
    compiled, sites = checked_program(program, checks)
    target = lowering_target(device.target, cpu=cpu, host_kernels=host_kernels)
    loaded = runtime.load_stablehlo(stablehlo_text(compiled, precision, target), device,
                                    work=work_estimate(compiled), use_disk_cache=config.disk_cache,
                                    log=log if config.log_compiles else None, cached_only=cached_only)
    if loaded is None:
        return None
    exe, how = loaded
    if config.log_compiles:
        log(f"jit({name}) on {exe.device}: {how} ({cache.reason}; {len(compiled.eqns)} equations"
            f"{', checks ' + ','.join(checks) if checks else ''})")
    found = cache.executables[key] = (exe, sites)
    return found


class _Placement(threading.local):
    """The device the eager jit call in progress commits its results to (None: they are not committed)."""
    device = None


_placement = _Placement()


@contextlib.contextmanager
def _committing_to(device):
    outer, _placement.device = _placement.device, device
    try:
        yield
    finally:
        _placement.device = outer


def _op_by_op(program, tensors):
    """`program`'s outputs evaluated with the primitives' eager implementations, while it compiles. Nothing is
    recorded on the tape: a compiled call records nothing either (its caller decided that). An output that is an
    input comes back as a new handle, as from the executable, so that recording the call leaves the input's own
    gradient history alone. The results of a committed call are put on its device (see `_Placement`)."""
    with set_grad_enabled(False):
        outs = eval_program(program, [], tensors)
    device = _placement.device
    if device is not None:  # committed results live on their device, as the executable's would
        return [Tensor.from_device_array(runtime.device_put(o.concrete_value(), device, committed=True), aval=o.aval)
                for o in outs]
    inputs = {id(t) for t in tensors}
    return [o.new_handle() if id(o) in inputs else o for o in outs]


def _run(exe, sites, tensors, out_avals, name):
    """Call `exe` on the Tensors' device buffers (host values are copied in); with check `sites` (the program is
    checked), raise the first failed check. The results stay on the device as Tensors that already know their avals
    (the program's), so the next call's cache key costs no query; committed there when the call is (`_Placement`)."""
    outs = exe(*[array if (array := t.device_array) is not None else t.concrete_value() for t in tensors])
    if _placement.device is not None:
        for out in outs:
            out.committed = True
    if sites:
        outs, found = outs[:-len(CHECK_AVALS)], outs[-len(CHECK_AVALS):]
        raise_failed(name, sites, *[Tensor.from_device_array(o, aval=a).concrete_value()
                                    for o, a in zip(found, CHECK_AVALS)])
    return [Tensor.from_device_array(o, aval=a) for o, a in zip(outs, out_avals)]


# ----------------------------------------------------------------------------------------------- jit_call

def _jit_call_shape(*avals, program, name, device, precision, checks):
    return program.out_avals


def _jit_call_impl(*arrays, program, name, device, precision, checks):
    return [t.concrete_value() for t in _jit_call_eager(*[Tensor(a) for a in arrays], program=program, name=name,
                                                        device=device, precision=precision, checks=checks)]


def _jit_call_eager(*tensors, program, name, device, precision, checks):
    found = _executable(program, device, name, precision, checks, background=True)
    if found is None:
        return _op_by_op(program, tensors)
    return _run(*found, tensors, program.out_avals, name)


def _linearized(program, nonzero):
    """(known, linear, number of residuals, which outputs have tangents) of `program` with tangents for the inputs
    marked by `nonzero`; derived once per program (see `linearize_program`)."""
    return cached_for_program(program, ("jvp", nonzero), lambda: linearize_program(program, nonzero))


def _transposed(program, linear):
    """The transpose of `program`, linear in the inputs marked by `linear`; derived once per program."""
    return cached_for_program(program, ("transpose", linear), lambda: transpose_program(program, linear))


@symbolic_zeros
def _jit_call_jvp(primals, tangents, *, program, name, device, precision, checks):
    nonzero = tuple(not isinstance(t, Zero) and is_differentiable(get_aval(p)) for p, t in zip(primals, tangents))
    n_out = len(program.out_vars)
    same = {"device": device, "precision": precision, "checks": checks}
    if not any(nonzero):
        outs = jit_call_p.bind(*primals, program=program, name=name, **same)
        return outs, [None] * n_out
    known, linear, _, out_nonzero = _linearized(program, nonzero)
    outs = jit_call_p.bind(*primals, program=known, name=name, **same)
    primal_out, residuals = outs[:n_out], outs[n_out:]
    live = [instantiate(t) for t, nz in zip(tangents, nonzero) if nz]
    t_out = iter(jit_call_p.bind(*residuals, *live, program=linear, name=f"jvp({name})", **same))
    return primal_out, [next(t_out) if nz else None for nz in out_nonzero]


def _jit_call_transpose(cts, *args, program, name, device, precision, checks):
    linear = tuple(is_undefined(x) for x in args)
    transposed = _transposed(program, linear)
    known = [x for x, lin in zip(args, linear) if not lin]
    in_cts = iter(jit_call_p.bind(*known, *[instantiate(c) for c in cts], program=transposed,
                                  name=f"transpose({name})", device=device, precision=precision, checks=checks))
    return [next(in_cts) if lin else None for lin in linear]


def _jit_call_batch(vals, dims, *, program, name, device, precision, checks):
    size = next(get_aval(v).shape[d] for v, d in zip(vals, dims) if d is not None)
    batched, out_dims = cached_for_program(program, ("batch", tuple(dims), size),
                                           lambda: batch_program(program, list(dims), size))
    return jit_call_p.bind(*vals, program=batched, name=f"vmap({name})", device=device, precision=precision,
                           checks=checks), out_dims


def _jit_call_lower(ctx, *args, program, name, device, precision, checks):
    # `checks` are compiled in before lowering: `checked_program` inlines a checked jit_call with its checks
    outer, ctx.matmul_precision = ctx.matmul_precision, precision  # the inner function's own setting
    try:
        return ctx.inline(program, list(args))
    finally:
        ctx.matmul_precision = outer


jit_call_p = Primitive("jit_call", shape_rule=_jit_call_shape, impl=_jit_call_impl, jvp=_jit_call_jvp,
                       transpose=_jit_call_transpose, batch=_jit_call_batch, lower=_jit_call_lower,
                       multiple_results=True, eager_call=_jit_call_eager)


# ----------------------------------------------------------------------------------------------- jit

class _Traced:
    """One signature's traced program and the device it runs on: its constants (kept on the device after the first
    call), its output tree, the Tensors the function closed over and the in-place updates it makes (effects)."""

    __slots__ = ("program", "consts", "out_tree", "out_avals", "single_output", "device", "precision", "checks",
                 "captured", "effects", "grad_state", "closes_over_tracers", "consts_need_grad", "const_inputs",
                 "executable", "check_sites")

    def __init__(self, program, consts, out_tree, device, precision, checks, captured, effects, reason):
        self.program, self.consts, self.out_tree, self.device = program, consts, out_tree, device
        self.out_avals, self.precision, self.checks = program.out_avals, precision, checks
        self.single_output = out_tree.is_leaf()
        # (weak reference to the handle, snapshot of its value when traced): a handle nobody holds any more (a
        # temporary made while tracing) cannot be updated in place, so it drops out of the checks of each call
        self.captured = [(weakref.ref(h), snap) for h, snap in captured]
        self.effects = tuple(effects)
        # the gradient each trainable leaf the function closed over held when traced: backward() inside the program
        # accumulates into it only if there was one (a change means tracing again); when there was, the program
        # reads it as an input, which follows the leaf's gradient of each call
        self.grad_state = [(h, h.grad) for h, snap in captured if snap.is_leaf and not snap.stop_gradient]
        self.closes_over_tracers = any(isinstance(c, Tracer) for c in consts)
        self.consts_need_grad = any(not c.stop_gradient for c in consts)
        self.const_inputs = self.executable = self.check_sites = None
        _cache_of(program).reason = reason

    def sync_closure(self) -> bool:
        """False when a Tensor the function closed over was updated in place (rebound) since it was traced, or a
        trainable one gained or lost its gradient. A persistable Tensor (state: parameters, optimizer
        accumulators, the learning rate) with a new value is not a reason: its new value is passed in instead.
        A captured Tensor whose class defines ``refresh_state()`` (an optimizer's learning rate, which its
        scheduler moves) is asked to bring its value up to date first."""
        for k, (leaf, seen) in enumerate(self.grad_state):
            grad = leaf.grad
            if (grad is None) != (seen is None):
                return False
            if grad is not seen:
                read = [i for i, (ref, _) in enumerate(self.captured) if ref() is seen]
                if not read:  # traced with no gradient to add to (the zeros it left were never an input)
                    return False
                for i in read:
                    self._replace_const(i, grad)
                self.grad_state[k] = (leaf, grad)
        # the live handles, held strongly for this loop: a collection inside it (refresh() may allocate) must not
        # turn a handle checked as alive into None
        live = [(ref, snap, handle) for ref, snap in self.captured if (handle := ref()) is not None]
        self.captured = [(ref, snap) for ref, snap, _ in live]
        for i, (_, snap, handle) in enumerate(live):
            refresh = getattr(handle, "refresh_state", None)
            if refresh is not None:
                refresh()
            if handle.holds_value_of(snap):
                continue
            if not handle.persistable or handle.resolve() is not handle:
                return False
            self._replace_const(i, handle)
        return True

    def _replace_const(self, index, handle):
        """The program input captured from `handle` becomes the handle's current value."""
        snap = self.captured[index][1]
        fresh = handle.snapshot()
        for j, c in enumerate(self.consts):
            if c is snap:
                self.consts[j] = fresh
                if self.const_inputs is not None:
                    self.const_inputs[j] = fresh
        self.captured[index] = (weakref.ref(handle), fresh)
        self.consts_need_grad = any(not c.stop_gradient for c in self.consts)

    def write_back(self, effect_values):
        """Apply the in-place updates the traced function made (see `trace_to_program`'s effects) with this call's
        values, and run its host callbacks (paddle_fn.debug) on theirs, in program order; a rebound handle's new
        value is also the program input of the next call, so nothing retraces."""
        pending = []  # the values of one host callback, which come as consecutive effects
        with set_grad_enabled(False):
            for i, ((kind, handle), value) in enumerate(zip(self.effects, effect_values)):
                if kind == "callback":
                    pending.append(value)
                    if i + 1 == len(self.effects) or self.effects[i + 1][1] is not handle:
                        handle(pending)
                        pending = []
                    continue
                if kind == "grad":
                    handle.grad = value
                    continue
                handle._rebind(value)
                for i, (ref, _) in enumerate(self.captured):
                    if ref() is handle:
                        self._replace_const(i, handle)

    def call_mode(self, tensors) -> str:
        """How this call runs: "compiled", the executable directly (nothing is traced, and no gradient has to be
        recorded on the eager tape; a program with effects, a Paddle train step with backward and the optimizer
        update inside, is not recorded: its gradients were taken inside it); "tape", compiled with one node on the
        eager tape (`run_on_tape`); "bind", through `jit_call` (another transform is tracing, or the tape must see
        each input as saved_tensors_hooks packs it)."""
        if self.closes_over_tracers or current_dynamic_main().level != 0:
            return "bind"
        needs_tape = self.consts_need_grad
        for t in tensors:
            if isinstance(t, Tracer):
                return "bind"
            needs_tape = needs_tape or not t.stop_gradient
        if any(kind != "callback" for kind, _ in self.effects) or not (needs_tape and grad_mode.enabled):
            return "compiled"
        return "bind" if self.effects or saved_tensors_hooks_now.hooks else "tape"

    def run_on_tape(self, tensors, name):
        """Run the program's known part (the outputs and the residuals its reverse needs) and record one node on
        the eager tape whose reverse runs the transposed linear part on those residuals: backward() compiles and
        runs the reverse only, where recording `jit_call` itself would linearize it there, running the forward a
        second time. The residuals stay on the tape (their node is the known part's), so a backward with
        create_graph differentiates through them."""
        inputs = list(self.consts) + list(tensors)
        nonzero = tuple(not t.stop_gradient and is_differentiable(t.aval) for t in inputs)
        known, linear, n_residuals, out_nonzero = _linearized(self.program, nonzero)
        transposed = _transposed(linear, (False,) * n_residuals + (True,) * sum(nonzero))
        same = {"device": self.device, "precision": self.precision, "checks": self.checks}
        outs = jit_call_p.bind(*inputs, program=known, name=name, **same)
        n_out = len(self.out_avals)
        primal, residuals = [o.detach() for o in outs[:n_out]], outs[n_out:]

        def reverse(cts):
            out_cts = [instantiate(Zero(aval)) if ct is None else ct
                       for ct, aval, nz in zip(cts, self.out_avals, out_nonzero) if nz]
            in_cts = iter(jit_call_p.bind(*residuals, *out_cts, program=transposed, name=f"transpose({name})",
                                          **same))
            return [next(in_cts) if nz else None for nz in nonzero]

        record_function(name, inputs, primal, reverse)
        return primal

    def run(self, tensors, name, *, background=True):
        """Run the executable on the constants and `tensors`; the outputs stay on the device. With `background`,
        while the program compiles in the background, evaluate it op by op instead."""
        exe = self.executable
        if exe is None:
            found = _executable(self.program, self.device, name, self.precision, self.checks, background=background)
            if found is None:
                return _op_by_op(self.program, list(self.consts) + list(tensors))
            exe, self.check_sites = found
            self.executable = exe
        if self.const_inputs is None:
            self.const_inputs = [Tensor.from_device_array(runtime.device_put(c.concrete_value(), self.device))
                                 if c.device_array is None else c for c in self.consts]
        return _run(exe, self.check_sites, self.const_inputs + tensors if self.const_inputs else tensors,
                    self.out_avals, name)


# Leaves a positional argument can be without flattening (what `as_leaf` accepts)
_LEAF_TYPES = (Tensor, np.ndarray, np.generic, bool, int, float)


def _positional_leaves(args, what):
    """(the arguments as Tensors, their avals) when every positional argument is a leaf; None when one needs
    flattening (a container, None). One pass: this runs on every call."""
    tensors, avals = [], []
    for x in args:
        if isinstance(x, Tensor):  # the common leaf, checked first: as_leaf's other cases cost a call each
            t = x.resolve()
        elif isinstance(x, _LEAF_TYPES):
            t = as_leaf(x, what)
        else:
            return None
        tensors.append(t)
        avals.append(t.aval)
    return tensors, tuple(avals)


def _describe(structure) -> str:
    """A cache key's argument structure: a PyTreeSpec, or the count of positional leaves of a flat call."""
    return f"{structure} positional Tensors" if isinstance(structure, int) else str(structure)


class JitFunction:
    """A function compiled with IREE on first call for each argument signature (see `jit`)."""

    def __init__(self, fun, static_argnums=(), static_argnames=(), device=None, matmul_precision=None, checks=None):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
        self.static_argnames = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
        self._has_statics = bool(self.static_argnums or self.static_argnames)
        self.device = device
        # None: the precision in effect at each call (default_matmul_precision, config.matmul_precision)
        self.matmul_precision = None if matmul_precision is None else canonical_precision(matmul_precision)
        # None: the checks in effect at each call (config.checks, FLAGS_check_nan_inf)
        self.checks = None if checks is None else canonical_checks(checks)
        self._cache: dict = {}
        self._bound = weakref.WeakKeyDictionary()
        self._name = fun_name(fun)
        self._what = f"jit({self._name})"
        try:
            self._params = inspect.signature(fun).parameters
        except (TypeError, ValueError):
            self._params = {}

    def __get__(self, obj, objtype=None):
        """A jitted method: the instance is a compile-time constant of the program (one cache per instance), so
        attributes it holds are baked in when the method is first traced."""
        if obj is None:
            return self
        try:
            bound = self._bound.get(obj)
        except TypeError:  # an unhashable instance: no reuse across attribute lookups
            return JitFunction(functools.partial(self.fun, obj), device=self.device,
                               matmul_precision=self.matmul_precision, checks=self.checks)
        if bound is None:
            bound = JitFunction(functools.wraps(self.fun)(functools.partial(self.fun, obj)),
                                tuple(i - 1 for i in self.static_argnums if i > 0), self.static_argnames,
                                device=self.device, matmul_precision=self.matmul_precision, checks=self.checks)
            self._bound[obj] = bound
        return bound

    def __repr__(self):
        return f"<jit({self._name})>"

    # -- arguments
    def _split(self, args, kwargs):
        """(dynamic positional arguments, dynamic keyword arguments, static values as (position or name, value),
        static positions)."""
        if not self._has_statics:
            return args, kwargs, (), ()
        n = len(args)
        static_pos = set()
        for i in self.static_argnums:
            if not -n <= i < n:
                raise TransformError(f"jit({self._name}): static_argnums {i} is out of range for a call with {n} "
                                     "positional arguments")
            static_pos.add(i % n)
        names = list(self._params)
        for nm in self.static_argnames:
            if nm in names and names.index(nm) < n:
                static_pos.add(names.index(nm))
        statics = []
        for i in sorted(static_pos):
            statics.append((i, self._check_hashable(args[i], names[i] if i < len(names) else f"args[{i}]")))
        for k in sorted(kwargs):
            if k in self.static_argnames:
                statics.append((k, self._check_hashable(kwargs[k], k)))
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_pos)
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        return dyn_args, dyn_kwargs, tuple(statics), static_pos

    def _check_hashable(self, value, name):
        try:
            hash(value)
        except TypeError:
            raise TypeError(f"jit({self._name}): static argument '{name}' has type {type(value).__name__}, which is "
                            "not hashable; static arguments are cache keys. Pass a tuple instead of a list, or make "
                            "the argument a traced (non-static) Tensor") from None
        return value

    # -- tracing
    def _trace(self, dyn_args, dyn_kwargs, statics, static_pos, n_args, in_tree, avals, device, precision, checks,
               reason):
        def unflatten_args(leaves):
            return merge_static_args(*tree_unflatten(in_tree, leaves), statics, static_pos, n_args)

        flat_fun, out = flatten_fun(self.fun, unflatten_args, what=self._what)
        names = leaf_names(self.fun, dyn_args, dyn_kwargs) if self._params else None
        captured, effects = [], []
        with default_matmul_precision(precision), _collector_paused():  # jit functions inside inherit the precision
            prog, consts = trace_to_program(flat_fun, list(avals), transform=self._what, arg_names=names,
                                            captured=captured, effects=effects)
        return _Traced(prog, list(consts), out.tree, device, precision, checks, captured, effects, reason)

    def _explain_miss(self, key):
        if not self._cache:
            return "first call"
        if not (config.explain_cache_misses or config.log_compiles):
            return "new signature"
        structure, avals, statics, device, precision, checks = key
        reasons = []
        for other in self._cache:
            o_structure, o_avals, o_statics, o_device, o_precision, o_checks = other
            diff = []
            if o_structure != structure:
                diff.append(f"the argument structure changed from {_describe(o_structure)} to {_describe(structure)}")
            else:
                for i, (a, b) in enumerate(zip(o_avals, avals)):
                    if a != b:
                        diff.append(f"argument leaf {i} changed from {a.str_short()} to {b.str_short()}")
            if o_statics != statics:
                diff.append(f"static arguments changed from {o_statics!r} to {statics!r}")
            if o_device != device:
                diff.append(f"device changed from {o_device} to {device}")
            if o_precision != precision:
                diff.append(f"matmul precision changed from {o_precision} to {precision}")
            if o_checks != checks:
                diff.append(f"runtime checks changed from {o_checks or 'none'} to {checks or 'none'}")
            reasons.append(diff)
        msg = "; ".join(min(reasons, key=len))
        if config.explain_cache_misses:
            log(f"jit({self._name}) cache miss: {msg}")
        return msg

    def _lookup(self, args, kwargs):
        """(the traced program for these arguments, their leaves as Tensors), tracing on a cache miss."""
        flat = None if kwargs or self._has_statics else _positional_leaves(args, self._what)
        if flat is not None:
            # the common call, positional Tensors: the arguments are the leaves, and their count stands for the
            # tree structure in the key (flattening and hashing a PyTreeSpec cost more than the rest of a call)
            dyn_args, dyn_kwargs, statics, static_pos = args, kwargs, (), ()
            (tensors, avals), structure = flat, len(args)
        else:
            dyn_args, dyn_kwargs, statics, static_pos = self._split(args, kwargs)
            leaves, structure = tree_flatten((dyn_args, dyn_kwargs))
            tensors = [as_leaf(x, self._what) for x in leaves]
            avals = tuple([t.aval for t in tensors])
        device, committed = self._placement(tensors, dyn_args, dyn_kwargs)
        precision = self.matmul_precision or matmul_precision_now()
        checks = global_checks.kinds if self.checks is None else self.checks
        key = (structure, avals, statics, device, precision, checks)
        traced = self._cache.get(key)
        if traced is not None and traced.captured and not traced.sync_closure():
            # Paddle semantics: a global Tensor updated in place (w.set_value(...), w[i] = v) is seen by the next
            # call. Its value is a program input, so the same executable is reused after the retrace.
            if config.explain_cache_misses or config.log_compiles:
                log(f"jit({self._name}): retracing, a Tensor the function closes over was updated in place; pass "
                    "it as an argument to avoid retracing")
            del self._cache[key]
            traced = None
        if traced is None:
            in_tree = tree_flatten((dyn_args, dyn_kwargs))[1] if isinstance(structure, int) else structure
            traced = self._trace(dyn_args, dyn_kwargs, statics, static_pos, len(args), in_tree, avals, device,
                                 precision, checks, self._explain_miss(key))
            if not traced.closes_over_tracers:
                self._cache[key] = traced  # a closure over another transform's values is traced afresh
        return traced, tensors, committed

    def _placement(self, tensors, args, kwargs):
        """(the device this call runs on, whether its results are committed to it): jit's `device` when given;
        else, as in JAX, the device its committed arguments were put on (``device_put(x, device)``, or results of
        such calls); else the default device, uncommitted. Arguments committed to two devices are an error."""
        if self.device is not None:
            return resolve_device(self.device), True
        found = None
        for i, t in enumerate(tensors):
            if isinstance(t, Tracer) or (array := t.device_array) is None or not array.committed:
                continue
            if found is None:
                found = (i, array.device)
            elif array.device is not found[1]:
                names = leaf_names(self.fun, args, kwargs) if self._params else None
                first, other = ((names[k] if names else f"argument {k}") for k in (found[0], i))
                raise TransformError(
                    f"{self._what}: its arguments are committed to different devices: {first} "
                    f"({tensors[found[0]].aval.str_short()}) to {found[1]} and {other} ({t.aval.str_short()}) to "
                    f"{array.device}; put them on one device with paddle.device_put(x, device), or name the device "
                    "the function runs on: jit(f, device=...)")
        return (resolve_device(None), False) if found is None else (found[1], True)

    def __call__(self, *args, **kwargs):
        traced, tensors, committed = self._lookup(args, kwargs)
        if not committed:
            return self._call(traced, tensors)
        with _committing_to(traced.device):
            return self._call(traced, tensors)

    def _call(self, traced, tensors):
        mode = traced.call_mode(tensors)
        if mode == "compiled":
            outs = traced.run(tensors, self._name)
        elif mode == "tape":
            outs = traced.run_on_tape(tensors, self._name)
        else:
            outs = jit_call_p.bind(*traced.consts, *tensors, program=traced.program, name=self._name,
                                   device=traced.device, precision=traced.precision, checks=traced.checks)
        if traced.effects:
            n = len(outs) - len(traced.effects)
            traced.write_back(outs[n:])
            outs = outs[:n]
        return outs[0] if traced.single_output else tree_unflatten(traced.out_tree, outs)

    # -- ahead of time
    def lower(self, *args, **kwargs) -> "Lowered":
        """Trace and lower for these arguments without running: ``jit(f).lower(x).as_text()`` / ``.compile()``."""
        traced, _, _ = self._lookup(args, kwargs)
        return Lowered(self, traced)

    def clear_cache(self):
        self._cache.clear()


class Lowered:
    """A traced and lowered jit function: `as_text()` is its StableHLO; `compile()` builds the executable."""

    def __init__(self, jitted, traced):
        self._jitted, self._traced, self.device = jitted, traced, traced.device

    @property
    def program(self):
        """The traced program (paddle_fn's IR) that is lowered; its first inputs are the captured constants."""
        return self._traced.program

    @property
    def in_avals(self):
        return self._traced.program.in_avals[len(self._traced.consts):]

    @property
    def out_avals(self):
        return self._traced.program.out_avals

    def as_text(self, target: str | None = None, extra_flags=()) -> str:
        """The StableHLO module that `compile()` compiles (for another IREE backend with `target`, e.g. 'cuda', and
        the compile flags `extra_flags`: the lowering chooses forms per target and CPU)."""
        compiled, _ = checked_program(self._traced.program, self._traced.checks)
        return stablehlo_text(compiled, self._traced.precision,
                              lowering_target(target or self.device.target, extra_flags))

    def compile(self) -> "Compiled":
        _executable(self._traced.program, self.device, self._jitted._name, self._traced.precision,
                    self._traced.checks)
        return Compiled(self)

    def cross_compile(self, target: str, extra_flags=()):
        """Compile for another target without running: 'cuda' (sm_80 unless extra_flags say
        --iree-cuda-target=...), 'rocm' (gfx942), 'vulkan-spirv', 'metal-spirv' or 'llvm-cpu'. Returns the runtime's
        CompiledArtifact (`.vmfb` bytes, `.flags`); works on a machine without that GPU."""
        return runtime.compile_stablehlo(self.as_text(target, extra_flags), target=target,
                                         extra_flags=tuple(extra_flags),
                                         use_disk_cache=config.disk_cache)

    def __repr__(self):
        return f"Lowered(jit({self._jitted._name}), in={self.input_types}, out={self.output_types})"

    @property
    def input_types(self):
        return [a.str_short() for a in self.in_avals]

    @property
    def output_types(self):
        return [a.str_short() for a in self.out_avals]

    def dispatches(self, target: str | None = None, extra_flags=()) -> "runtime.Dispatches":
        """The dispatches (kernels) IREE makes of this program for `target` (default: the device's; 'cuda', 'rocm',
        ... work on a machine without that GPU) compiled with `extra_flags`: how many a call launches, their names
        (IREE's, after the root operation and its shapes, or the named_scope it was traced in) and the code
        generator's pipeline for each. A training step should be a few large dispatches. Compiled up to IREE's
        choice of pipelines only (a fraction of the whole compile), once per program and flags.

        Example:
            >>> import paddle_fn as paddle
            >>> chain = paddle.jit(lambda x: paddle.tanh(paddle.exp(x) * 2.0 + 1.0))
            >>> found = chain.lower(paddle.ones([64, 64])).dispatches()
            >>> len(found), found.names
            (1, ('main_dispatch_0_elementwise_4096_f32',))
        """
        target = target or self.device.target
        if target not in runtime.TARGETS:
            raise ValueError(f"jit({self._jitted._name}).lower(...).dispatches: unknown IREE target {target!r}; "
                             f"expected one of {', '.join(runtime.TARGETS)}")
        return runtime.dispatches(self.as_text(target, extra_flags), target=target, extra_flags=tuple(extra_flags))


class Compiled:
    """A compiled jit function for one signature; call it with arguments of the lowered shapes and dtypes."""

    def __init__(self, lowered: Lowered):
        self.lowered = lowered
        self.input_types = lowered.input_types
        self.output_types = lowered.output_types

    def __call__(self, *args, **kwargs):
        jitted = self.lowered._jitted
        traced, tensors, committed = jitted._lookup(args, kwargs)
        if traced is not self.lowered._traced:
            got = [get_aval(t).str_short() for t in tensors]
            raise TransformError(f"compiled jit({jitted._name}) was lowered for inputs {self.input_types} (and the "
                                 f"static arguments given then) but was called with {got}; lower it again for the "
                                 "new signature")
        with _committing_to(traced.device if committed else None):
            outs = traced.run(tensors, jitted._name, background=False)
        return tree_unflatten(traced.out_tree, outs)

    def as_text(self) -> str:
        return self.lowered.as_text()

    def __repr__(self):
        return f"Compiled(jit({self.lowered._jitted._name}), in={self.input_types}, out={self.output_types})"


def jit(fun=None, *, static_argnums=(), static_argnames=(), device=None, matmul_precision=None, checks=None):
    """Compile `fun` with IREE: traced once per argument signature, then run as one executable.

    Args:
        fun: a function of Tensors (pytrees allowed); may be used as ``@jit`` or ``@jit(static_argnums=1)``.
        static_argnums: positions of arguments that are Python values baked into the program (one
            compilation per distinct value; they must be hashable).
        static_argnames: the same, by keyword name.
        device: where to compile and run ('cpu', 'gpu:0', a device from ``paddle_fn.devices()``, a Place).
        matmul_precision: how float32 matrix products (matmul, linear, conv, einsum) are compiled: "float32"
            (exact), "bf16x3" (three bfloat16 products, near float32, fast on tensor cores) or "bfloat16" (one
            product). None (the default): `paddle_fn.default_matmul_precision` / ``config.matmul_precision``.
        checks: runtime checks compiled into the program, reported after the call as a CheckError naming the op
            and the line of `fun` that staged it: "index" (gather, scatter and dynamic-slice start indices in
            range; unchecked, they are clamped), "div" (integer division by zero), "linalg" (cholesky, lu,
            triangular_solve, qr, eigh, svd failing) and "nan" (an op making NaN or Inf from finite inputs); "all"
            or True for all, a list or comma-separated string of kinds, or () for none. None (the default):
            ``config.checks``, or all of them while ``FLAGS_check_nan_inf`` is set; the default is unchecked, and
            an unchecked program has no check code in it.

    Outputs stay on the device as Tensors and convert to numpy only when asked (``.numpy()``, printing).

    Example:
        >>> import paddle_fn as paddle
        >>> @paddle.jit
        ... def f(x):
        ...     return paddle.sum(paddle.exp(x) * 2.0)
        >>> round(f(paddle.to_tensor([0.0, 1.0])).item(), 5)
        7.43656
    """
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums, static_argnames=static_argnames, device=device,
                                 matmul_precision=matmul_precision, checks=checks)
    if isinstance(fun, JitFunction):
        if not (static_argnums or static_argnames or device or matmul_precision or checks is not None):
            return fun
        fun = fun.fun  # re-jit the original function with the new options
    return JitFunction(fun, static_argnums, static_argnames, device, matmul_precision, checks)

