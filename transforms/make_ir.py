"""make_ir: trace a function to paddle_fn's IR and show it (the `make_jaxpr` of this library)."""
from __future__ import annotations

import functools

from paddle_fn.core.ir import pp_program
from paddle_fn.core.pytree import tree_flatten, tree_unflatten
from paddle_fn.core.staging import trace_to_program
from paddle_fn.core.trace import get_aval
from paddle_fn.transforms._args import as_leaf, flatten_fun, fun_name


class TracedProgram:
    """The result of make_ir: `program` (inputs = [*constants, *arguments]), `consts`, and pytree structures."""

    def __init__(self, program, consts, in_tree, out_tree):
        self.program, self.consts, self.in_tree, self.out_tree = program, consts, in_tree, out_tree

    @property
    def eqns(self):
        return self.program.eqns

    def __str__(self):
        return pp_program(self.program, const_count=len(self.consts))

    def pretty_print(self, source_info: bool = False) -> str:
        """The program as text; with `source_info`, each equation ends with the file, line and function of the
        user code that staged it (as JAX's ``jaxpr.pretty_print(source_info=True)``).

        Example:
            >>> import paddle_fn as paddle
            >>> def f(x):
            ...     return paddle.sin(x) * 2.0
            >>> print(paddle.make_ir(f)(paddle.ones([3])).pretty_print(source_info=True))
            { lambda ; a:f32[3]. let
                b:f32[3] = sin a  # <doctest ...>:2 (in f)
                ...
              in (d) }
        """
        return pp_program(self.program, const_count=len(self.consts), source=source_info)

    __repr__ = __str__


def make_ir(func, static_argnums=()):
    """Return a function that traces `func` on its arguments' shapes and dtypes and returns the IR.

    Example:
        >>> import paddle_fn as paddle
        >>> print(paddle.make_ir(lambda x: paddle.sin(x) * 2.0)(paddle.ones([3])))
        { lambda ; a:f32[3]. let
            b:f32[3] = sin a
            c:f32[3] = broadcast_in_dim[broadcast_dimensions=() shape=(3,)] 2.0
            d:f32[3] = mul b c
          in (d) }
    """
    static = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)

    @functools.wraps(func)
    def traced(*args, **kwargs):
        dyn = [a for i, a in enumerate(args) if i not in static]
        leaves, in_tree = tree_flatten((tuple(dyn), kwargs))
        vals = [as_leaf(x, "make_ir") for x in leaves]
        def unflatten_args(leaves):
            d, kw = tree_unflatten(in_tree, leaves)
            it = iter(d)
            return [a if i in static else next(it) for i, a in enumerate(args)], kw

        flat_fun, out = flatten_fun(func, unflatten_args, what=f"make_ir({fun_name(func)})")
        prog, consts = trace_to_program(flat_fun, [get_aval(v) for v in vals], transform="make_ir", check=True)
        return TracedProgram(prog, consts, in_tree, out.tree)

    return traced
