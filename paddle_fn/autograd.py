"""paddle.autograd.jacobian / hessian (Paddle 2.5+), in functional form.

Paddle's versions take ``ys`` already computed from ``xs`` and differentiate through its eager tape:
``jacobian(ys, xs, batch_axis=None)``. paddle_fn records no tape, a Tensor does not remember how it was
computed, so here the first argument is the function that computes ``ys``: ``jacobian(func, xs, batch_axis)``
with ``ys = func(*xs)`` (``func(xs)`` for a single Tensor). Passing a Tensor raises a TypeError that shows the
functional form. Everything else follows Paddle: blocks per (output, input) pair, ``batch_axis`` None or 0, lazy
row-by-row evaluation with caching, and the shape rules below. The engine is shared with
``paddle_fn.incubate.autograd`` (one linearization of ``func``; one VJP per row, a vmapped VJP for several rows).
"""
from __future__ import annotations

import math

import paddle_fn as paddle
from paddle_fn.incubate.autograd import _RowEngine, _LazyBlock, _as_tensors, _check_inputs, _tuple_output

__all__ = ["jacobian", "hessian"]


def _check_functional(func, xs, batch_axis, who):
    if isinstance(func, paddle.Tensor) or (isinstance(func, (tuple, list)) and func
                                           and all(isinstance(y, paddle.Tensor) for y in func)):
        raise TypeError(
            f"paddle_fn.autograd.{who} takes the function that computes ys, not ys itself: paddle_fn records no "
            f"autograd tape, so a Tensor does not know how it was computed. Replace Paddle's {who}(ys, xs) with "
            f"{who}(lambda x: <the expression that gave ys>, xs) (for several inputs, lambda x1, x2: ...).")
    _check_inputs(func, xs)
    if batch_axis not in (None, 0):
        raise ValueError(f"{who}: batch_axis should be None or 0, but got {batch_axis!r}")


def _check_ranks(shapes, batched, what, who):
    allowed = (1, 2) if batched else (0, 1)
    for i, shape in enumerate(shapes):
        if len(shape) not in allowed:
            raise ValueError(f"{who}: with batch_axis={0 if batched else None} every {what} must be "
                             f"{allowed[0]}-D or {allowed[1]}-D, but {what} {i} has shape {shape}. Flatten it "
                             "(paddle.reshape) or use paddle_fn.incubate.autograd.Jacobian, which flattens for you")


def _blocks(engine, ys_single, xs_single, batched):
    keep = int(batched)
    row_ranges, start = [], 0
    for width in engine.out_widths:
        row_ranges.append(range(start, start + width))
        start += width
    col_ranges, start = [], 0
    for width in engine.in_widths:
        col_ranges.append(range(start, start + width))
        start += width
    grid = tuple(
        tuple(_LazyBlock(engine, rows, cols, keep_row=len(y_shape) > keep, keep_col=len(x_shape) > keep)
              for cols, x_shape in zip(col_ranges, engine.in_shapes))
        for rows, y_shape in zip(row_ranges, engine.out_shapes))
    if ys_single and xs_single:
        return grid[0][0]
    if ys_single:
        return grid[0]
    if xs_single:
        return tuple(row[0] for row in grid)
    return grid


def jacobian(func, xs, batch_axis=None):
    """Lazy Jacobian blocks of ``ys = func(*xs)`` with respect to ``xs`` (Paddle's ``jacobian(ys, xs)``).

    Args:
        func (Callable): computes ``ys`` (a Tensor or a tuple of Tensors) from the Tensors of ``xs``, passed
            positionally. Paddle's first argument is ``ys`` itself; see the module docstring.
        xs (Tensor|Tuple[Tensor, ...]): the independent variables.
        batch_axis (int|None): None, or 0 when axis 0 of every ``x`` and ``y`` is an independent batch axis.

    Returns:
        One lazy block per (y, x) pair: a single block when ``ys`` and ``xs`` are single Tensors, a tuple when
        one of them is a tuple, ``J[i][j]`` when both are. With ``batch_axis=None`` ``x`` and ``y`` are 0-D or
        1-D and a block has shape ``y.shape[:1] + x.shape[:1]`` (``[M, N]`` for vectors); with ``batch_axis=0``
        they are 1-D or 2-D and a block has shape ``[B, M, N]`` (minus the axes of 1-D ones). Index a block
        (``J[:]``, ``J[i]``, ``J[:, i, :]``) to evaluate it; only the needed rows are computed, then cached.

    Example:
        >>> import paddle_fn as paddle
        >>> x1 = paddle.to_tensor([1.0, 2.0, 3.0])
        >>> x2 = paddle.to_tensor([4.0, 5.0, 6.0])
        >>> J = paddle.autograd.jacobian(lambda a, b: a * b, (x1, x2))
        >>> J[0].shape, J[1].shape
        ((3, 3), (3, 3))
        >>> J[0][:].numpy()
        array([[4., 0., 0.],
               [0., 5., 0.],
               [0., 0., 6.]], dtype=float32)
        >>> paddle.autograd.jacobian(x1 * x2, x1)
        Traceback (most recent call last):
        ...
        TypeError: paddle_fn.autograd.jacobian takes the function that computes ys, not ys itself: ...
    """
    _check_functional(func, xs, batch_axis, "jacobian")
    batched = batch_axis == 0
    engine = _RowEngine(func, _as_tensors(xs), batched, "jacobian")
    _check_ranks(engine.in_shapes, batched, "x", "jacobian")
    _check_ranks(engine.out_shapes, batched, "y", "jacobian")
    return _blocks(engine, engine.store["single"], isinstance(xs, paddle.Tensor), batched)


def hessian(func, xs, batch_axis=None):
    """Lazy Hessian blocks of the scalar ``ys = func(*xs)`` with respect to ``xs`` (Paddle's ``hessian(ys, xs)``).

    Args:
        func (Callable): computes ``ys`` from the Tensors of ``xs``: one element (shape ``[]`` or ``[1]``), or one
            element per batch element (``[B]`` or ``[B, 1]``) with ``batch_axis=0``. Paddle's first argument is
            ``ys`` itself; see the module docstring.
        xs (Tensor|Tuple[Tensor, ...]): the independent variables, 0-D or 1-D (1-D or 2-D when batched).
        batch_axis (int|None): None, or 0 for an independent batch axis 0.

    Returns:
        A lazy ``[N, N]`` block (``[B, N, N]`` batched) for a single ``x``; for a tuple of ``xs``, ``H[i][j]`` is
        the ``[N_i, N_j]`` block of second derivatives with respect to ``xs[i]`` and ``xs[j]``.

    Example:
        >>> import paddle_fn as paddle
        >>> x1 = paddle.to_tensor([1.0, 2.0])
        >>> x2 = paddle.to_tensor([3.0])
        >>> H = paddle.autograd.hessian(lambda a, b: paddle.sum(a * a * b), (x1, x2))
        >>> H[0][0][:].numpy()
        array([[6., 0.],
               [0., 6.]], dtype=float32)
        >>> H[0][1][:].numpy()
        array([[2.],
               [4.]], dtype=float32)
    """
    _check_functional(func, xs, batch_axis, "hessian")
    batched = batch_axis == 0
    primals = _as_tensors(xs)
    _check_ranks([x.shape for x in primals], batched, "x", "hessian")

    def gradients(*args):
        store = {}
        outs, pullback = paddle.vjp(_tuple_output(func, store, "hessian"), *args)
        y = outs[0]
        per_element = math.prod(y.shape[1:]) if batched and y.shape else math.prod(y.shape)
        if not store["single"] or per_element != 1 or (batched and len(y.shape) not in (1, 2)):
            expected = "[B] or [B, 1]" if batched else "[] or [1]"
            raise ValueError(f"hessian: func must return a single Tensor of shape {expected} (one element"
                             f"{' per batch element' if batched else ''}), but it returned "
                             f"{'shape ' + str(y.shape) if store['single'] else str(len(outs)) + ' Tensors'}. "
                             "Reduce it (e.g. paddle.sum) or use jacobian for vector outputs")
        grads = pullback((paddle.ones_like(y),))
        return grads[0] if isinstance(xs, paddle.Tensor) else tuple(grads)

    engine = _RowEngine(gradients, primals, batched, "hessian")
    return _blocks(engine, isinstance(xs, paddle.Tensor), isinstance(xs, paddle.Tensor), batched)
