"""`Primitive`: one object holding every rule of one operation, and the markers for rules that do not apply.

A primitive is defined once, in one block of `paddle_fn/prims/<family>.py`, with all of its fields. The six rules
are required: a missing rule is an error when the module is imported, never a KeyError mid-trace. The other fields
are optional, each with a default derived from the rules.
"""
from __future__ import annotations

import functools
from dataclasses import KW_ONLY, dataclass
from typing import Any, Callable

from paddle_fn.core.errors import UnsupportedError
from paddle_fn.core.trace import bind

_REGISTRY: dict[str, "Primitive"] = {}


class _Marker:
    def __init__(self, name, doc):
        self.name, self.__doc__ = name, doc

    def __repr__(self):
        return self.name


LINEAR = _Marker("LINEAR", "JVP rule: the primitive is linear in all its inputs; tangent out = prim(*tangents).")
ZERO_TANGENT = _Marker("ZERO_TANGENT", "JVP rule: the output does not vary with the inputs (comparisons, integer ops).")
NONLINEAR = _Marker("NONLINEAR",
                    "transpose rule: the primitive is not linear, so it never appears in a linear program.")
ELEMENTWISE = _Marker("ELEMENTWISE",
                      "batching rule: an n-ary elementwise op; batch dims are aligned and it is applied once.")


class unsupported:
    """A rule that cannot exist; calling it raises UnsupportedError with the reason and what to use instead."""

    def __init__(self, why: str):
        self.why = why

    def __call__(self, *args, **kwargs):
        raise UnsupportedError(self.why)

    def __repr__(self):
        return f"unsupported({self.why!r})"


@dataclass(frozen=True, eq=False)
class Primitive:
    """One operation of the IR with all of its rules: `Primitive("name", shape_rule=..., impl=..., ...)`.

    Fields (all but the name are keyword-only):
      shape_rule(*avals, **params) -> aval | list[aval]
      impl(*numpy_arrays, **params) -> numpy array | list
      jvp(primals, tangents, **params) -> (primal_out, tangent_out) | LINEAR | ZERO_TANGENT | unsupported
      transpose(cts, *args, **params) -> list of cotangents, one per arg (None where non-linear) | NONLINEAR
          args holding an `UndefinedPrimal` are the linear inputs
      batch(values, batch_dims, **params) -> (out, out_dims) | ELEMENTWISE | unsupported
      lower(ctx, *operand_names, **params) -> result name(s)   (StableHLO text, see paddle_fn.lowering)
      multiple_results (optional): True when the primitive has a list of outputs; its rules then take and return
          lists of values (avals, arrays, tangents, batch axes)
      eager_call (optional): (*Tensors, **params) -> list of Tensors, used instead of `impl` when evaluating
          eagerly, for primitives whose eager form keeps results on a device (jit's compiled call)
      vjp (optional): (primals, ct, **params) -> the input cotangents, a reverse rule the eager tape uses
          instead of linearizing the primitive at each node (a unary op whose JVP scales the tangent, a
          reduction choosing its extremum); by default the tape transposes or linearizes
      linear_in (optional): the input positions the primitive is jointly linear in when its JVP is not LINEAR
          (select's two branches, gather's operand, div's numerator); the tape transposes at those directly
      bilinear (optional): linear in each input with the others fixed (mul, dot_general, convolution); the tape
          transposes each input's cotangent with the others known
      lower_on_mesh (optional): how a collective is emitted into one module spanning a mesh of devices,
          ``rule(mesh, values, group) -> result names`` (lowering/multi_device.py's MeshCollective, the
          members' operand names, the group's device indices); a primitive with one is a collective: pmap cuts its
          programs at it, and its own `lower` may refuse a single-device program
      run_on_host (required with lower_on_mesh): how pmap's segment path performs the collective between
          compiled segments, ``rule(backend, values, first, **params) -> one result per value`` (a
          `transforms.pmap_collectives.Collectives`, the members' numpy values in axis order, the axis index of
          the first member)
      cost (optional): (avals_in, avals_out, **params) -> the element operations one application performs, for
          `core.ir.work_estimate` (which picks a program's driver and compiler flags); by default the larger of the
          inputs' and outputs' element counts, and a loop's body times its trip count
      error_check (optional): (inputs, outputs, **params) -> a list of `RuntimeCheck`, what a checked ``jit``
          (transforms/checks.py) compiles into the program after this primitive: indices in range, a divisor not
          zero, a decomposition that did not fail; written with public ops on the equation's traced values
      expansion (optional): (*operands, **params) -> outputs, the primitive written with other primitives for one
          problem (operands without batch dimensions), for targets whose IREE rejects its StableHLO operation or
          compiles it badly: a row of lowering/targets.py lowers it so (lowering/iree_linalg.py), vmapped over the
          batch dimensions; by default there is none, and `lower` is the only form
      slow_op_by_op (optional): True when evaluating the primitive's impl in a program that jit compiles in the
          background would take longer than the compile (a loop of unknown trip count), so
          a program holding it waits for its executable (transforms/background_compile.py)
    """
    name: str
    _: KW_ONLY
    shape_rule: Callable
    impl: Callable
    jvp: Any
    transpose: Any
    batch: Any
    lower: Callable
    multiple_results: bool = False
    eager_call: Any = None
    vjp: Any = None
    linear_in: tuple = ()
    bilinear: bool = False
    lower_on_mesh: Any = None
    run_on_host: Any = None
    cost: Any = None
    error_check: Any = None
    expansion: Any = None
    slow_op_by_op: bool = False

    def __post_init__(self):
        for f in ("shape_rule", "impl", "jvp", "transpose", "batch", "lower"):
            if getattr(self, f) is None:
                raise TypeError(f"primitive {self.name!r} has no {f} rule; give one or an explicit marker")
        if (self.lower_on_mesh is None) != (self.run_on_host is None):
            raise TypeError(f"primitive {self.name!r}: a collective needs both lower_on_mesh and run_on_host (pmap "
                            "runs it inside one multi-device module or between compiled segments)")
        if self.name in _REGISTRY:
            raise ValueError(f"primitive {self.name!r} is defined twice")
        _REGISTRY[self.name] = self
        # `prim.bind(*args, **params)` is `bind(prim, *args, **params)`; a partial saves eager ops a Python frame
        object.__setattr__(self, "bind", functools.partial(bind, self))

    def __repr__(self):
        return self.name

    def abstract_eval_list(self, avals, params):
        out = self.shape_rule(*avals, **params)
        return list(out) if self.multiple_results else [out]

    @property
    def is_linear(self):
        return self.jvp is LINEAR


@dataclass(frozen=True)
class RuntimeCheck:
    """One condition a checked ``jit`` verifies while the program runs (see `Primitive.error_check`).

    kind: the check set it belongs to, "index", "div", "linalg" or "nan" (transforms/checks.py's CHECK_KINDS).
    failures: an integer 0-D traced value, the number of failing elements (the check passes when it is 0).
    detail: a second integer 0-D traced value that the message quotes, or None.
    message: what failed, formatted with ``{failures}`` and ``{detail}`` after the call (shapes and bounds are
        written in when the check is made).
    """
    kind: str
    failures: Any
    detail: Any
    message: str


def symbolic_zeros(jvp_rule):
    """Mark a JVP rule that accepts `Zero` tangents (it is then not given materialised zeros)."""
    jvp_rule.symbolic_zeros = True
    return jvp_rule


def all_primitives() -> dict[str, Primitive]:
    return dict(_REGISTRY)


def get_primitive(name: str) -> Primitive:
    """The registered primitive named `name`, looked up now (so one registered late is found)."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no primitive named {name!r} is registered (a Primitive registers when it is created)") from None
