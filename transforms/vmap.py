"""vmap: vectorizing a function over a batch axis by batching rules, never by a Python loop over the batch."""
from __future__ import annotations

import functools

from paddle_fn.core.batching import vmap_flat
from paddle_fn.core.errors import TransformError
from paddle_fn.core.pytree import broadcast_prefix, tree_flatten, tree_unflatten
from paddle_fn.core.trace import get_aval
from paddle_fn.prims.collectives import UnnamedAxis
from paddle_fn.transforms._args import as_leaf, flatten_fun, fun_name, leaf_names


def _check_axis(ax, ndim, what, who):
    if ax is None:
        return None
    if not isinstance(ax, int):
        raise TransformError(f"{who}: {what} must be an int or None, got {ax!r}")
    if not -ndim <= ax < ndim:
        raise TransformError(f"{who}: {what} is {ax}, out of range for a value of rank {ndim} "
                             f"(valid: {-ndim}..{ndim - 1})")
    return ax % ndim


def vmap(func, in_axes=0, out_axes=0, axis_size=None, axis_name=None):
    """Vectorize `func` over a new leading (or `in_axes`) batch axis of its arguments.

    Args:
        func: function of Tensors (pytrees allowed).
        in_axes: int, None (not batched), or a pytree prefix of the positional arguments with those leaves.
            Keyword arguments are always batched along axis 0.
        out_axes: int, None, or a pytree prefix of the output: where the batch axis goes in each output.
        axis_size: the batch size, required only when no argument is batched.
        axis_name: a name for the batch axis: collectives (`paddle_fn.psum`, `pmean`, `all_gather`, ...) called
            with it inside `func` combine the examples, exactly as `pmap` combines devices.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> paddle.vmap(lambda r: paddle.sum(r * r))(x).numpy()   # one 0-D sum per row
        array([ 5., 25.], dtype=float32)
        >>> paddle.vmap(lambda r: r / paddle.psum(r, 'batch'), axis_name='batch')(x).numpy()  # column shares
        array([[0.25      , 0.33333334],
               [0.75      , 0.6666667 ]], dtype=float32)
    """
    who = f"vmap({fun_name(func)})"  # how errors name this transform
    if axis_name is not None:
        try:
            hash(axis_name)
        except TypeError:
            raise TransformError(f"{who}: axis_name must be hashable (a string), got {axis_name!r}") from None
    @functools.wraps(func)
    def vmapped(*args, **kwargs):
        axes_prefix = tuple(in_axes) if isinstance(in_axes, list) else in_axes  # a list means a tuple (as JAX)
        if isinstance(axes_prefix, tuple) and len(axes_prefix) != len(args):
            raise TransformError(f"{who}: in_axes has {len(axes_prefix)} entries but {fun_name(func)} was called with "
                                 f"{len(args)} positional arguments")
        try:
            flat_axes = broadcast_prefix(axes_prefix if isinstance(axes_prefix, tuple) else
                                         (axes_prefix,) * len(args), tuple(args))
        except ValueError as e:
            raise TransformError(f"{who}: in_axes {in_axes!r} does not match the structure of the arguments: {e}") \
                from None
        leaves, in_tree = tree_flatten((tuple(args), kwargs))
        kw_leaves = len(leaves) - len(flat_axes)
        flat_axes = list(flat_axes) + [0] * kw_leaves
        vals = [as_leaf(x, who) for x in leaves]
        dims = [_check_axis(ax, get_aval(v).ndim, f"in_axes for argument leaf {i} ({get_aval(v).str_short()})", who)
                for i, (v, ax) in enumerate(zip(vals, flat_axes))]
        sizes = {}
        for i, (v, d) in enumerate(zip(vals, dims)):
            if d is not None:
                sizes.setdefault(get_aval(v).shape[d], []).append(i)
        if len(sizes) > 1:
            names = leaf_names(func, args, kwargs)
            detail = "; ".join(f"size {s} for {', '.join(names[i] for i in ix)}" for s, ix in sizes.items())
            raise TransformError(f"{who}: the mapped axes have different sizes: {detail}. All mapped axes must have "
                                 "the same size")
        if sizes:
            size = next(iter(sizes))
            if axis_size is not None and axis_size != size:
                raise TransformError(f"{who}: axis_size={axis_size} but the mapped axes have size {size}")
        elif axis_size is None:
            raise TransformError(f"{who}: no argument is mapped (all in_axes are None); pass axis_size to say how "
                                 "many times to map")
        else:
            size = axis_size
        flat_fun, out = flatten_fun(func, lambda leaves: tree_unflatten(in_tree, leaves), what=who)

        @functools.cache  # asked once per output leaf
        def out_dims_thunk():
            try:
                return broadcast_prefix(out_axes, out.value)
            except ValueError as e:
                raise TransformError(f"{who}: out_axes {out_axes!r} does not match the structure of the output "
                                     f"{out.tree}: {e}") from None

        # an unnamed user vmap still gets a (private) name: collectives tell it from the vmaps that batching rules
        # run over sub-programs, which have none (see paddle_fn.prims.collectives)
        outs = vmap_flat(flat_fun, vals, dims, size, _LazyOutDims(out_dims_thunk, who),
                         axis_name=UnnamedAxis() if axis_name is None else axis_name)
        return tree_unflatten(out.tree, outs)

    return vmapped


class _LazyOutDims:
    """out_axes known only after tracing the function; normalizes negative axes against each output's rank."""

    def __init__(self, thunk, who):
        self.thunk, self.who = thunk, who

    def resolve(self, i, out_ndim):
        ax = self.thunk()[i]
        if ax is None:
            return None
        return _check_axis(ax, out_ndim + 1, f"out_axes for output leaf {i}", self.who)
