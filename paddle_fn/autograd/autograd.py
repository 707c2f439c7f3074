"""paddle.autograd.jacobian / hessian (Paddle 2.5+), in Paddle's tape form and in functional form.

Paddle's form takes ``ys`` already computed from ``xs`` (Tensors with ``stop_gradient=False``) and differentiates
through the eager tape: ``jacobian(ys, xs, batch_axis=None)``. The functional form takes the function that
computes ``ys`` instead, ``jacobian(func, xs, batch_axis)`` with ``ys = func(*xs)`` (``func(xs)`` for a single
Tensor); it needs no tape, so it also works under ``jit`` and ``vmap``. Both follow Paddle: blocks per
(output, input) pair, ``batch_axis`` None or 0, lazy row-by-row evaluation with caching, and the shape rules below.
The engine, `paddle_fn.incubate.autograd.lazy_jacobian`, is shared with ``paddle.incubate.autograd`` (one VJP per
row, a vmapped VJP for several rows).
"""
from __future__ import annotations

import math

import paddle_fn as paddle
from paddle_fn.core import tape
from paddle_fn.incubate.autograd.lazy_jacobian import LazyBlock, RowEngine, check_inputs, tuple_output
from paddle_fn.incubate.autograd.utils import as_tensors

__all__ = ["jacobian", "hessian"]


def _is_tensors(ys):
    return isinstance(ys, paddle.Tensor) or (isinstance(ys, (tuple, list)) and ys
                                             and all(isinstance(y, paddle.Tensor) for y in ys))


def _check_batch_axis(batch_axis, who):
    if batch_axis not in (None, 0):
        raise ValueError(f"{who}: batch_axis should be None or 0, but got {batch_axis!r}")


def _unrecorded(inputs, who):
    """The error message for the first input the tape recorded nothing for, or None.

    Raised only when a row is evaluated: like Paddle's, the Jacobian is built without differentiating, so
    argument errors of indexing (an Ellipsis, say) come first.
    """
    for i, x in enumerate(inputs):
        if x.stop_gradient:
            return (f"{who}: xs[{i}] (shape {x.shape}) has stop_gradient=True, so the tape recorded nothing for it; "
                    "create it with stop_gradient=False before computing ys from it")
    return None


def _tape_engine(ys, xs, batched, who):
    """A row engine over ys already computed from xs: each row is one backward pass through the tape."""
    outs, inputs = as_tensors(ys), as_tensors(xs)
    error = _unrecorded(inputs, who)

    # an output with no graph (a constant, or the zero gradient of an unused input in hessian) has zero rows
    live = [i for i, y in enumerate(outs) if not y.stop_gradient]

    def pullback(cotangents):
        if error is not None:
            raise ValueError(error)
        grads = [None] * len(inputs)
        if live:
            grads = tape.grad([outs[i] for i in live], list(inputs), grad_outputs=[cotangents[i] for i in live],
                              retain_graph=True, create_graph=paddle.is_grad_enabled(), allow_unused=True)
        return [paddle.zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]

    return RowEngine.from_pullback(outs, pullback, inputs, batched, who)


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
        tuple(LazyBlock(engine, rows, cols, keep_row=len(y_shape) > keep, keep_col=len(x_shape) > keep)
              for cols, x_shape in zip(col_ranges, engine.in_shapes))
        for rows, y_shape in zip(row_ranges, engine.out_shapes))
    if ys_single and xs_single:
        return grid[0][0]
    if ys_single:
        return grid[0]
    if xs_single:
        return tuple(row[0] for row in grid)
    return grid


def jacobian(ys, xs, batch_axis=None):
    """Lazy Jacobian blocks of ``ys`` with respect to ``xs`` (Paddle's ``paddle.autograd.jacobian``).

    Args:
        ys (Tensor|Tuple[Tensor, ...]|Callable): the outputs, computed eagerly from ``xs`` (Paddle's form: the
            tape differentiates them), or the function that computes them from the Tensors of ``xs``, passed
            positionally (functional form, usable under jit and vmap).
        xs (Tensor|Tuple[Tensor, ...]): the independent variables (``stop_gradient=False`` in the tape form).
        batch_axis (int|None): None, or 0 when axis 0 of every ``x`` and ``y`` is an independent batch axis.

    Returns:
        One lazy block per (y, x) pair: a single block when ``ys`` and ``xs`` are single Tensors, a tuple when
        one of them is a tuple, ``J[i][j]`` when both are. With ``batch_axis=None`` ``x`` and ``y`` are 0-D or
        1-D and a block has shape ``y.shape[:1] + x.shape[:1]`` (``[M, N]`` for vectors); with ``batch_axis=0``
        they are 1-D or 2-D and a block has shape ``[B, M, N]`` (minus the axes of 1-D ones). Index a block
        (``J[:]``, ``J[i]``, ``J[:, i, :]``) to evaluate it; only the needed rows are computed, then cached.

    Example:
        >>> import paddle_fn as paddle
        >>> x1 = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
        >>> x2 = paddle.to_tensor([4.0, 5.0, 6.0], stop_gradient=False)
        >>> J = paddle.autograd.jacobian(x1 * x2, (x1, x2))
        >>> J[0].shape, J[1].shape
        ((3, 3), (3, 3))
        >>> J[0][:].numpy()
        array([[4., 0., 0.],
               [0., 5., 0.],
               [0., 0., 6.]], dtype=float32)
        >>> J = paddle.autograd.jacobian(lambda a, b: a * b, (x1, x2))   # the functional form
        >>> J[1][:].numpy()
        array([[1., 0., 0.],
               [0., 2., 0.],
               [0., 0., 3.]], dtype=float32)
    """
    _check_batch_axis(batch_axis, "jacobian")
    batched = batch_axis == 0
    if _is_tensors(ys):
        engine = _tape_engine(ys, xs, batched, "jacobian")
        ys_single = isinstance(ys, paddle.Tensor)
    else:
        check_inputs(ys, xs)
        engine = RowEngine(ys, as_tensors(xs), batched, "jacobian")
        ys_single = engine.store["single"]
    _check_ranks(engine.in_shapes, batched, "x", "jacobian")
    _check_ranks(engine.out_shapes, batched, "y", "jacobian")
    return _blocks(engine, ys_single, isinstance(xs, paddle.Tensor), batched)


def hessian(ys, xs, batch_axis=None):
    """Lazy Hessian blocks of the scalar ``ys`` with respect to ``xs`` (Paddle's ``paddle.autograd.hessian``).

    Args:
        ys (Tensor|Callable): one element (shape ``[]`` or ``[1]``), or one element per batch element (``[B]`` or
            ``[B, 1]``) with ``batch_axis=0``: computed eagerly from ``xs`` (Paddle's form, through the tape), or
            the function that computes it from the Tensors of ``xs`` (functional form).
        xs (Tensor|Tuple[Tensor, ...]): the independent variables, 0-D or 1-D (1-D or 2-D when batched).
        batch_axis (int|None): None, or 0 for an independent batch axis 0.

    Returns:
        A lazy ``[N, N]`` block (``[B, N, N]`` batched) for a single ``x``; for a tuple of ``xs``, ``H[i][j]`` is
        the ``[N_i, N_j]`` block of second derivatives with respect to ``xs[i]`` and ``xs[j]``.

    Example:
        >>> import paddle_fn as paddle
        >>> x1 = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> x2 = paddle.to_tensor([3.0], stop_gradient=False)
        >>> H = paddle.autograd.hessian(paddle.sum(x1 * x1 * x2), (x1, x2))
        >>> H[0][0][:].numpy()
        array([[6., 0.],
               [0., 6.]], dtype=float32)
        >>> H = paddle.autograd.hessian(lambda a, b: paddle.sum(a * a * b), (x1, x2))   # the functional form
        >>> H[0][1][:].numpy()
        array([[2.],
               [4.]], dtype=float32)
    """
    _check_batch_axis(batch_axis, "hessian")
    batched = batch_axis == 0
    primals = as_tensors(xs)
    _check_ranks([x.shape for x in primals], batched, "x", "hessian")
    single_x = isinstance(xs, paddle.Tensor)
    if _is_tensors(ys):
        _check_scalar_output(as_tensors(ys), isinstance(ys, paddle.Tensor), batched)
        if _unrecorded(primals, "hessian") is None:
            with paddle.enable_grad():
                grads = tape.grad(as_tensors(ys), list(primals), create_graph=True, allow_unused=True)
            grads = [paddle.zeros_like(x) if g is None else g for g, x in zip(grads, primals)]
        else:
            grads = primals   # stand-ins shaped like the gradients; evaluating a row raises the tape engine's error
        engine = _tape_engine(grads[0] if single_x else tuple(grads), xs, batched, "hessian")
        return _blocks(engine, single_x, single_x, batched)
    check_inputs(ys, xs)

    def gradients(*args):
        store = {}
        outs, pullback = paddle.vjp(tuple_output(ys, store, "hessian"), *args)
        _check_scalar_output(outs, store["single"], batched)
        grads = pullback((paddle.ones_like(outs[0]),))
        return grads[0] if single_x else tuple(grads)

    engine = RowEngine(gradients, primals, batched, "hessian")
    return _blocks(engine, single_x, single_x, batched)


def _check_scalar_output(outs, single, batched):
    y = outs[0]
    if batched and single and not y.shape:
        # Paddle reads the first batch element, ys[0], which is an IndexError on a 0-D Tensor
        raise IndexError("hessian: with batch_axis=0, ys needs a batch axis 0 of shape [B] or [B, 1], but it is 0-D "
                         "(shape []); reduce over the non-batch axes only (e.g. paddle.sum(y, axis=1)), or pass "
                         "batch_axis=None")
    per_element = math.prod(y.shape[1:]) if batched and y.shape else math.prod(y.shape)
    if not single or per_element != 1 or (batched and len(y.shape) not in (1, 2)):
        expected = "[B] or [B, 1]" if batched else "[] or [1]"
        raise ValueError(f"hessian: ys must be a single Tensor of shape {expected} (one element"
                         f"{' per batch element' if batched else ''}), but got "
                         f"{'shape ' + str(y.shape) if single else str(len(outs)) + ' Tensors'}. "
                         "Reduce it (e.g. paddle.sum) or use jacobian for vector outputs")
