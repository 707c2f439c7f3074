"""jit: trace a function once per signature, lower it to StableHLO, compile it with IREE and run it.

A jitted call is the primitive `jit_call`, holding the traced program. Eagerly it runs the compiled
executable and returns device-resident Tensors; under other transforms its rules transform the program
(JVP split into a known and a linear call, transpose, batching), and inside another jit it is inlined.
Caches: per JitFunction by (argument structure, shapes/dtypes, static values, device); per program by device
(executables); and IREE's persistent disk cache (paddle_fn.runtime) keyed by the StableHLO text.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import threading
import time
import weakref

import paddle_fn.runtime as runtime
from paddle_fn.core.autodiff import Zero, instantiate, is_differentiable, is_undefined
from paddle_fn.core.config import config, log
from paddle_fn.core.errors import TransformError
from paddle_fn.core.primitive import Primitive, symbolic_zeros
from paddle_fn.core.program_transforms import batch_program, jvp_program, partial_eval_program, transpose_program
from paddle_fn.core.pytree import tree_flatten, tree_unflatten
from paddle_fn.core.staging import trace_to_program
from paddle_fn.core.tape import set_grad_enabled
from paddle_fn.core.trace import Tensor, Tracer, current_dynamic_main, get_aval, grad_mode
from paddle_fn.lowering import lower_program
from paddle_fn.lowering.simplify import simplify
from paddle_fn.transforms._args import as_leaf, fun_name, leaf_names
from paddle_fn.transforms.devices import resolve_device

_LOCK = threading.RLock()
_EXECUTABLES: dict = {}  # (sha256 of StableHLO text, device) -> Executable


# ----------------------------------------------------------------------------------------------- executables

def _memo(program, key, build):
    memo = program.memo
    if key not in memo:
        with _LOCK:
            if key not in memo:
                memo[key] = build()
    return memo[key]


def _compile(program, device, name, reason="first call"):
    text = lower_program(simplify(program), name="main")
    digest = hashlib.sha256(text.encode()).hexdigest()
    with _LOCK:
        exe = _EXECUTABLES.get((digest, device))
        if exe is not None:
            return exe
        t0 = time.perf_counter()
        logger = log if config.log_compiles else None
        artifact = runtime.compile_stablehlo(text, target=device.target, use_disk_cache=config.disk_cache,
                                             log=logger)
        exe = runtime.load_executable(artifact, device)
        if config.log_compiles:
            how = "loaded from the disk cache" if artifact.from_cache else \
                f"compiled in {artifact.compile_seconds:.2f} s"
            log(f"jit({name}) on {device}: {how} ({reason}; {len(program.eqns)} equations, "
                f"total {time.perf_counter() - t0:.3f} s)")
        _EXECUTABLES[(digest, device)] = exe
        return exe


# Programs doing less work than this run on the calling thread (IREE's local-sync driver): handing a dispatch to
# worker threads costs ~10 us, more than such a program computes. Measured with benchmarks/bench_jit.py.
INLINE_WORK_LIMIT = 1 << 16


def _work(program) -> float:
    """A rough count of element operations, to tell tiny programs from ones worth spreading over cores."""
    total = 0.0
    for eqn in program.eqns:
        out = sum(v.aval.size for v in eqn.outputs)
        name = eqn.prim.name
        if name == "dot_general":
            (lc, _), _ = eqn.params["dimension_numbers"]
            k = 1
            for d in lc:
                k *= eqn.inputs[0].aval.shape[d]
            total += out * k
        elif name in ("scan", "while", "cond", "jit_call", "custom_jvp_call", "custom_vjp_call"):
            subs = [p for p in eqn.params.values() if hasattr(p, "eqns")]
            subs += [q for p in eqn.params.values() if isinstance(p, tuple) for q in p if hasattr(q, "eqns")]
            trips = eqn.params.get("length", 1)
            total += trips * sum(_work(p) for p in subs)
        else:
            total += max(out, sum(v.aval.size for v in eqn.inputs))
    return total


def _run_device(program, device):
    if device.platform == "cpu" and device.driver == "local-task" and _work(program) < INLINE_WORK_LIMIT:
        return runtime.inline_cpu_device(device)
    return device


def _executable(program, device, name):
    def build():
        return _compile(program, _run_device(program, device), name)
    return _memo(program, ("executable", device), build)


def _device_input(t: Tensor, device):
    arr = t.device_array
    return arr if arr is not None else t.concrete_value()


def _run(program, device, name, tensors):
    exe = _executable(program, device, name)
    outs = exe(*[_device_input(t, device) for t in tensors])
    return [Tensor.from_device_array(o) for o in outs]


# ----------------------------------------------------------------------------------------------- jit_call

def _jit_call_shape(*avals, program, name, device):
    return program.out_avals


def _jit_call_impl(*arrays, program, name, device):
    return [t.concrete_value() for t in _run(program, device, name, [Tensor(a) for a in arrays])]


def _jit_call_eager(*tensors, program, name, device):
    return _run(program, device, name, tensors)


@symbolic_zeros
def _jit_call_jvp(primals, tangents, *, program, name, device):
    nonzero = tuple(not isinstance(t, Zero) and is_differentiable(get_aval(p)) for p, t in zip(primals, tangents))
    n_out = len(program.out_vars)
    if not any(nonzero):
        return jit_call_p.bind(*primals, program=program, name=name, device=device), [None] * n_out

    def split():
        jvp_prog, out_nonzero = jvp_program(program, nonzero)
        known, linear, _, _ = partial_eval_program(
            jvp_prog, [False] * len(primals) + [True] * sum(nonzero),
            instantiate_outputs=[False] * n_out + [True] * sum(out_nonzero))
        return known, linear, out_nonzero

    known, linear, out_nonzero = _memo(program, ("jvp", nonzero), split)
    outs = jit_call_p.bind(*primals, program=known, name=name, device=device)
    primal_out, residuals = outs[:n_out], outs[n_out:]
    live = [instantiate(t) for t, nz in zip(tangents, nonzero) if nz]
    t_out = iter(jit_call_p.bind(*residuals, *live, program=linear, name=f"jvp({name})", device=device))
    return primal_out, [next(t_out) if nz else None for nz in out_nonzero]


def _jit_call_transpose(cts, *args, program, name, device):
    linear = tuple(is_undefined(x) for x in args)
    transposed = _memo(program, ("transpose", linear), lambda: transpose_program(program, linear))
    known = [x for x, lin in zip(args, linear) if not lin]
    in_cts = iter(jit_call_p.bind(*known, *[instantiate(c) for c in cts], program=transposed,
                                  name=f"transpose({name})", device=device))
    return [next(in_cts) if lin else None for lin in linear]


def _jit_call_batch(vals, dims, *, program, name, device):
    size = next(get_aval(v).shape[d] for v, d in zip(vals, dims) if d is not None)
    batched, out_dims = _memo(program, ("batch", tuple(dims), size),
                              lambda: batch_program(program, list(dims), size))
    return jit_call_p.bind(*vals, program=batched, name=f"vmap({name})", device=device), out_dims


def _jit_call_lower(ctx, *args, program, name, device):
    return ctx.inline(program, list(args))


jit_call_p = Primitive("jit_call", _jit_call_shape, _jit_call_impl, _jit_call_jvp, _jit_call_transpose,
                       _jit_call_batch, _jit_call_lower, multiple_results=True, eager_call=_jit_call_eager)


# ----------------------------------------------------------------------------------------------- jit

class _Traced:
    """One signature's traced program, its constants (kept on the device after the first call) and output tree."""

    __slots__ = ("program", "consts", "out_tree", "const_inputs", "signature", "captured", "effects",
                 "grad_state")

    def __init__(self, program, consts, out_tree, signature, captured=(), effects=()):
        self.program, self.consts, self.out_tree, self.signature = program, consts, out_tree, signature
        self.const_inputs = None
        self.captured = list(captured)
        self.effects = tuple(effects)
        # the gradient each trainable leaf the function closed over held when traced: backward() inside the program
        # accumulates into it only if there was one (a change means tracing again); when there was, the program
        # reads it as an input, which follows the leaf's gradient of each call
        self.grad_state = [(h, h._grad) for h, snap in self.captured if snap._leaf is not None]

    def sync_closure(self) -> bool:
        """False when a Tensor the function closed over was updated in place (rebound) since it was traced, or a
        trainable one gained or lost its gradient. A persistable Tensor (state: parameters, optimizer
        accumulators, the learning rate) with a new value is not a reason: its new value is passed in instead.
        A captured Tensor whose class defines ``refresh_state()`` (an optimizer's learning rate, which its
        scheduler moves) is asked to bring its value up to date first."""
        for k, (leaf, seen) in enumerate(self.grad_state):
            grad = leaf._grad
            if (grad is None) != (seen is None):
                return False
            if grad is not seen:
                read = [i for i, (handle, _) in enumerate(self.captured) if handle is seen]
                if not read:  # traced with no gradient to add to (the zeros it left were never an input)
                    return False
                for i in read:
                    self._replace_const(i, grad)
                self.grad_state[k] = (leaf, grad)
        for i, (handle, snap) in enumerate(self.captured):
            refresh = getattr(handle, "refresh_state", None)
            if refresh is not None:
                refresh()
            if handle._alias is None and handle._device_array is snap._device_array and \
                    (snap._device_array is not None or handle._value is snap._value):
                continue
            if not handle.persistable or handle._alias is not None:
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
        self.captured[index] = (handle, fresh)

    def write_back(self, effect_values):
        """Apply the in-place updates the traced function made (see `trace_to_program`'s effects) with this call's
        values; a rebound handle's new value is also the program input of the next call, so nothing retraces."""
        with set_grad_enabled(False):
            for (kind, handle), value in zip(self.effects, effect_values):
                if kind == "grad":
                    handle._grad = value
                    continue
                handle._rebind(value)
                for i, (h, _) in enumerate(self.captured):
                    if h is handle:
                        self._replace_const(i, handle)

    def run(self, tensors, device, name):
        if self.const_inputs is None:
            self.const_inputs = [Tensor.from_device_array(runtime.device_put(c.concrete_value(), device))
                                 if c.device_array is None else c for c in self.consts]
        return _run(self.program, device, name, self.const_inputs + list(tensors))


class JitFunction:
    """A function compiled with IREE on first call for each argument signature (see `jit`)."""

    def __init__(self, fun, static_argnums=(), static_argnames=(), donate_argnums=(), device=None):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
        self.static_argnames = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
        self.donate_argnums = donate_argnums  # accepted for JAX compatibility; buffers are never reused in place
        self.device = device
        self._cache: dict = {}
        self._bound = weakref.WeakKeyDictionary()
        self._name = fun_name(fun)
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
            return JitFunction(functools.partial(self.fun, obj), device=self.device)
        if bound is None:
            bound = JitFunction(functools.wraps(self.fun)(functools.partial(self.fun, obj)),
                                tuple(i - 1 for i in self.static_argnums if i > 0), self.static_argnames,
                                device=self.device)
            self._bound[obj] = bound
        return bound

    def __repr__(self):
        return f"<jit({self._name})>"

    # -- arguments
    def _split(self, args, kwargs):
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

    def _merge(self, dyn_args, dyn_kwargs, statics, static_pos, n_args):
        it = iter(dyn_args)
        static_map = dict(statics)
        args = [static_map[i] if i in static_pos else next(it) for i in range(n_args)]
        kwargs = dict(dyn_kwargs)
        kwargs.update({k: v for k, v in statics if isinstance(k, str)})
        return args, kwargs

    # -- tracing
    def _trace(self, args, kwargs, statics, static_pos, leaves, in_tree, avals, device):
        n_args = len(args)
        store = {}

        def flat_fun(*xs):
            dyn_args, dyn_kwargs = tree_unflatten(in_tree, list(xs))
            full_args, full_kwargs = self._merge(dyn_args, dyn_kwargs, statics, static_pos, n_args)
            out_leaves, store["out_tree"] = tree_flatten(self.fun(*full_args, **full_kwargs))
            return [as_leaf(o, f"jit({self._name}) output") for o in out_leaves]

        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_pos)
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        names = leaf_names(self.fun, dyn_args, dyn_kwargs) if self._params else None
        captured, effects = [], []
        prog, consts = trace_to_program(flat_fun, list(avals), transform=f"jit({self._name})", arg_names=names,
                                        captured=captured, effects=effects)
        return _Traced(prog, list(consts), store["out_tree"], (in_tree, avals, statics, device), captured, effects)

    def _explain_miss(self, key):
        if not (config.explain_cache_misses or config.log_compiles):
            return "first call" if not self._cache else "new signature"
        if not self._cache:
            return "first call"
        in_tree, avals, statics, device = key
        reasons = []
        for other in self._cache:
            o_tree, o_avals, o_statics, o_device = other
            diff = []
            if o_tree != in_tree:
                diff.append(f"the argument structure changed from {o_tree} to {in_tree}")
            else:
                for i, (a, b) in enumerate(zip(o_avals, avals)):
                    if a != b:
                        diff.append(f"argument leaf {i} changed from {a.str_short()} to {b.str_short()}")
            if o_statics != statics:
                diff.append(f"static arguments changed from {o_statics!r} to {statics!r}")
            if o_device != device:
                diff.append(f"device changed from {o_device} to {device}")
            reasons.append(diff)
        best = min(reasons, key=len)
        msg = "; ".join(best)
        if config.explain_cache_misses:
            log(f"jit({self._name}) cache miss: {msg}")
        return msg

    def _lookup(self, args, kwargs):
        dyn_args, dyn_kwargs, statics, static_pos = self._split(args, kwargs)
        leaves, in_tree = tree_flatten((dyn_args, dyn_kwargs))
        tensors = [as_leaf(x, f"jit({self._name})") for x in leaves]
        avals = tuple(get_aval(t) for t in tensors)
        device = resolve_device(self.device)
        key = (in_tree, avals, statics, device)
        traced = self._cache.get(key)
        if traced is not None and not traced.sync_closure():
            # Paddle semantics: a global Tensor updated in place (w.set_value(...), w[i] = v) is seen by the next
            # call. Its value is a program input, so the same executable is reused after the retrace.
            if config.explain_cache_misses or config.log_compiles:
                log(f"jit({self._name}): retracing, a Tensor the function closes over was updated in place; pass "
                    "it as an argument to avoid retracing")
            del self._cache[key]
            traced = None
        if traced is None:
            reason = self._explain_miss(key)
            traced = self._trace(args, kwargs, statics, static_pos, leaves, in_tree, avals, device)
            traced.program.memo["reason"] = reason
            if not any(isinstance(c, Tracer) for c in traced.consts):
                self._cache[key] = traced  # a closure over another transform's values is traced afresh
        return traced, tensors, device

    def __call__(self, *args, **kwargs):
        traced, tensors, device = self._lookup(args, kwargs)
        eager = not any(isinstance(t, Tracer) for t in tensors) and current_dynamic_main().level == 0 and \
            not any(isinstance(c, Tracer) for c in traced.consts)
        if eager and (traced.effects or not (grad_mode.enabled and
                                             any(not t.stop_gradient for t in (*tensors, *traced.consts)))):
            # a program with effects (a Paddle train step: backward and the optimizer update inside) is not
            # recorded on the eager tape: its gradients were taken inside it
            outs = traced.run(tensors, device, self._name)
        else:
            outs = jit_call_p.bind(*traced.consts, *tensors, program=traced.program, name=self._name, device=device)
        if traced.effects:
            n = len(outs) - len(traced.effects)
            traced.write_back(outs[n:])
            outs = outs[:n]
        return tree_unflatten(traced.out_tree, outs)

    # -- ahead of time
    def lower(self, *args, **kwargs) -> "Lowered":
        """Trace and lower for these arguments without running: ``jit(f).lower(x).as_text()`` / ``.compile()``."""
        traced, tensors, device = self._lookup(args, kwargs)
        return Lowered(self, traced, device, args, kwargs)

    def clear_cache(self):
        self._cache.clear()


class Lowered:
    """A traced and lowered jit function: `as_text()` is its StableHLO; `compile()` builds the executable."""

    def __init__(self, jitted, traced, device, args, kwargs):
        self._jitted, self._traced, self.device = jitted, traced, device
        self._args, self._kwargs = args, kwargs

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

    def as_text(self) -> str:
        return lower_program(self._traced.program, name="main")

    def compile(self) -> "Compiled":
        _executable(self._traced.program, self.device, self._jitted._name)
        return Compiled(self)

    def cross_compile(self, target: str, extra_flags=()):
        """Compile for another target without running: 'cuda' (sm_80 unless extra_flags say
        --iree-cuda-target=...), 'rocm' (gfx942), 'vulkan-spirv', 'metal-spirv' or 'llvm-cpu'. Returns the runtime's
        CompiledArtifact (`.vmfb` bytes, `.flags`); works on a machine without that GPU."""
        text = lower_program(simplify(self._traced.program), name="main")
        return runtime.compile_stablehlo(text, target=target, extra_flags=tuple(extra_flags),
                                         use_disk_cache=config.disk_cache)

    def __repr__(self):
        return f"Lowered(jit({self._jitted._name}), in={self.input_types}, out={self.output_types})"

    @property
    def input_types(self):
        return [a.str_short() for a in self.in_avals]

    @property
    def output_types(self):
        return [a.str_short() for a in self.out_avals]


class Compiled:
    """A compiled jit function for one signature; call it with arguments of the lowered shapes and dtypes."""

    def __init__(self, lowered: Lowered):
        self.lowered = lowered
        self.input_types = lowered.input_types
        self.output_types = lowered.output_types

    def __call__(self, *args, **kwargs):
        jitted = self.lowered._jitted
        traced, tensors, device = jitted._lookup(args, kwargs)
        if traced is not self.lowered._traced:
            got = [get_aval(t).str_short() for t in tensors]
            raise TransformError(f"compiled jit({jitted._name}) was lowered for inputs {self.input_types} (and the "
                                 f"static arguments given then) but was called with {got}; lower it again for the "
                                 "new signature")
        return tree_unflatten(traced.out_tree, traced.run(tensors, device, jitted._name))

    def as_text(self) -> str:
        return self.lowered.as_text()

    def __repr__(self):
        return f"Compiled(jit({self.lowered._jitted._name}), in={self.input_types}, out={self.output_types})"


def jit(fun=None, *, static_argnums=(), static_argnames=(), donate_argnums=(), device=None):
    """Compile `fun` with IREE: traced once per argument signature, then run as one executable.

    Args:
        fun: a function of Tensors (pytrees allowed); may be used as ``@jit`` or ``@jit(static_argnums=1)``.
        static_argnums: positions of arguments that are Python values baked into the program (one
            compilation per distinct value; they must be hashable).
        static_argnames: the same, by keyword name.
        donate_argnums: accepted for JAX compatibility (inputs are never overwritten).
        device: where to compile and run ('cpu', 'gpu:0', a device from ``paddle_fn.devices()``, a Place).

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
        return functools.partial(jit, static_argnums=static_argnums, static_argnames=static_argnames,
                                 donate_argnums=donate_argnums, device=device)
    if isinstance(fun, JitFunction):
        if not (static_argnums or static_argnames or device):
            return fun
        fun = fun.fun  # re-jit the original function with the new options
    return JitFunction(fun, static_argnums, static_argnames, donate_argnums, device)

