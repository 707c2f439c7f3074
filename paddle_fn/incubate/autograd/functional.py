"""paddle.incubate.autograd.functional with Paddle's semantics: ``vjp``, ``jvp`` and the lazy ``Jacobian`` /
``Hessian``.

Built on the public transforms. A Jacobian linearizes ``func`` once (``paddle_fn.vjp``, which runs ``func`` as
Paddle's constructor does) and evaluates rows of the flattened matrix only when an index asks for them (see
`paddle_fn.incubate.autograd.lazy_jacobian`), so ``J[0]`` followed by ``J[:]`` evaluates row 0 once.
"""
from __future__ import annotations

import math

import paddle_fn as paddle
from paddle_fn.incubate.autograd.lazy_jacobian import LazyBlock, RowEngine, check_inputs, flatten_concat, tuple_output
from paddle_fn.incubate.autograd.utils import as_result, as_tensors

__all__ = ["vjp", "jvp", "Jacobian", "Hessian"]


# ----------------------------------------------------------------------------------------------- arguments

def _restore(values, store):
    if store["single"]:
        return values[0]
    return list(values) if store["container"] is list else tuple(values)


def _check_v_shape(v, refs, against):
    """v (Tensor or sequence) against refs (a tuple of Tensors): Paddle raises RuntimeError on a mismatch."""
    vs = as_tensors(v)
    if len(vs) != len(refs):
        raise RuntimeError(f"The argument v is a tuple of invalid length: should be {len(refs)} (one per "
                           f"{against}) but got {len(vs)}.")
    for i, (e, ref) in enumerate(zip(vs, refs)):
        if e.shape != ref.shape:
            raise RuntimeError(f"The v[{i}] has invalid shape: should be {ref.shape} (the shape of {against} {i}) "
                               f"but got {e.shape}.")
    return tuple(e if e.dtype == ref.dtype else paddle.cast(e, ref.dtype) for e, ref in zip(vs, refs))


# ----------------------------------------------------------------------------------------------- vjp / jvp

def vjp(func, xs, v=None):
    """Vector-Jacobian product: ``(func(xs), v^T J)``, the functional form of reverse mode.

    Args:
        func (Callable): takes the Tensors of ``xs`` as positional arguments and returns a Tensor or a sequence
            of Tensors.
        xs (Tensor|Sequence[Tensor]): the point of evaluation.
        v (Tensor|Sequence[Tensor]|None): the cotangent, shaped like ``func``'s output; ``None`` means ones.

    Returns:
        ``(func_out, vjp)``: ``func_out`` is what ``func`` returned; ``vjp`` is a Tensor when ``xs`` is a Tensor,
        else a tuple with one Tensor per element of ``xs``; both with ``stop_gradient=False``, as Paddle's. A ``v``
        whose shape differs from the output's raises RuntimeError.

    Example:
        >>> import paddle_fn as paddle
        >>> def func(x):
        ...     return paddle.matmul(x, x)
        >>> x = paddle.ones(shape=[2, 2], dtype='float32')
        >>> _, vjp_result = paddle.incubate.autograd.vjp(func, x)
        >>> print(vjp_result)
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,
               [[4., 4.],
                [4., 4.]])
        >>> v = paddle.to_tensor([[1.0, 0.0], [0.0, 0.0]])
        >>> _, vjp_result = paddle.incubate.autograd.vjp(func, x, v)
        >>> print(vjp_result)
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,
               [[2., 1.],
                [1., 0.]])
    """
    check_inputs(func, xs, v)
    store = {}
    outs, pullback = paddle.vjp(tuple_output(func, store, "vjp"), *as_tensors(xs))
    cts = tuple(paddle.ones_like(o) for o in outs) if v is None else _check_v_shape(v, outs, "func's output")
    grads = [as_result(g) for g in pullback(cts)]
    outs = [as_result(o) for o in outs]
    return _restore(outs, store), (grads[0] if isinstance(xs, paddle.Tensor) else tuple(grads))


def jvp(func, xs, v=None):
    """Jacobian-vector product: ``(func(xs), J v)``, the functional form of forward mode.

    Args:
        func (Callable): takes the Tensors of ``xs`` as positional arguments and returns a Tensor or a sequence
            of Tensors.
        xs (Tensor|Sequence[Tensor]): the point of evaluation.
        v (Tensor|Sequence[Tensor]|None): the tangent, shaped like ``xs``; ``None`` means ones.

    Returns:
        ``(func_out, jvp)``: ``jvp`` is a Tensor when ``func`` returns a Tensor, else a tuple with one Tensor per
        output; both with ``stop_gradient=False``, as Paddle's. A ``v`` whose shape differs from ``xs`` raises
        RuntimeError.

    Example:
        >>> import paddle_fn as paddle
        >>> def func(x):
        ...     return paddle.matmul(x, x)
        >>> x = paddle.ones(shape=[2, 2], dtype='float32')
        >>> _, jvp_result = paddle.incubate.autograd.jvp(func, x)
        >>> jvp_result.numpy()
        array([[4., 4.],
               [4., 4.]], dtype=float32)
        >>> v = paddle.to_tensor([[1.0, 0.0], [0.0, 0.0]])
        >>> _, jvp_result = paddle.incubate.autograd.jvp(func, x, v)
        >>> jvp_result.numpy()
        array([[2., 1.],
               [1., 0.]], dtype=float32)
    """
    check_inputs(func, xs, v)
    primals = as_tensors(xs)
    tangents = tuple(paddle.ones_like(x) for x in primals) if v is None else _check_v_shape(v, primals, "xs")
    store = {}
    outs, tangents_out = paddle.jvp(tuple_output(func, store, "jvp"), primals, tangents)
    outs, tangents_out = [as_result(o) for o in outs], [as_result(t) for t in tangents_out]
    return _restore(outs, store), (tangents_out[0] if store["single"] else tuple(tangents_out))


# ----------------------------------------------------------------------------------------------- Jacobian / Hessian

class Jacobian:
    """The Jacobian matrix of ``func`` at ``xs``, evaluated lazily by rows and cached (Paddle's semantics).

    Inputs are flattened (after the batch axis when ``is_batched``) and concatenated into one vector; outputs
    likewise. ``J.shape`` is ``(M, N)``, or ``(B, M, N)`` batched, with M the flattened output size and N the
    flattened input size. Index ``J`` like a Tensor with ints and slices (``J[:]``, ``J[i]``, ``J[a:b, c:d]``,
    ``J[:, i, :]`` when batched); only the rows the index touches are evaluated (one VJP for one row, a vmapped
    VJP for several) and evaluated rows are cached. Ellipsis raises IndexError, as in Paddle.

    Args:
        func (Callable): takes the Tensors of ``xs`` as positional arguments and returns a Tensor or a sequence
            of Tensors. ``func`` runs once, when the Jacobian is created.
        xs (Tensor|Sequence[Tensor]): the point of evaluation.
        is_batched (bool): if True, axis 0 of every input and output is a batch axis whose elements are
            independent; the result is then ``[B, M, N]``.

    Example:
        >>> import paddle_fn as paddle
        >>> def func(x, y):
        ...     return paddle.matmul(x, y)
        >>> x = paddle.to_tensor([[1., 2.], [3., 4.]])
        >>> J = paddle.incubate.autograd.Jacobian(func, [x, x])
        >>> J.shape
        (4, 8)
        >>> print(J[:, :])
        Tensor(shape=[4, 8], dtype=float32, place=Place(cpu), stop_gradient=False,
               [[1., 3., 0., 0., 1., 0., 2., 0.],
                [2., 4., 0., 0., 0., 1., 0., 2.],
                [0., 0., 1., 3., 3., 0., 4., 0.],
                [0., 0., 2., 4., 0., 3., 0., 4.]])
        >>> J[0, 4:].numpy()
        array([1., 0., 2., 0.], dtype=float32)
    """

    def __init__(self, func, xs, is_batched=False):
        check_inputs(func, xs)
        self._init_engine(func, as_tensors(xs), bool(is_batched), "Jacobian")

    def _init_engine(self, func, xs, batched, who):
        engine = RowEngine(func, xs, batched, who)
        self._block = LazyBlock(engine, range(engine.num_rows), range(engine.num_cols))

    def __getitem__(self, indexes):
        return as_result(self._block[indexes])

    @property
    def shape(self):
        """``(M, N)`` (``(N, N)`` for a Hessian), or with a leading batch size ``B`` when batched."""
        return self._block.shape


class Hessian(Jacobian):
    """The Hessian matrix of a scalar ``func`` at ``xs``, lazily evaluated by rows and cached.

    ``func`` must return a single-element Tensor (shape ``[]`` or ``[1]``; ``[B]`` or ``[B, 1]`` when
    ``is_batched``), else
    RuntimeError. Inputs are flattened and concatenated as for :class:`Jacobian`, so the result is ``[N, N]``
    or ``[B, N, N]``. Row k is one VJP of the gradient (reverse over reverse); indexing works as for Jacobian.

    Args:
        func (Callable): takes the Tensors of ``xs`` as positional arguments and returns one single-element
            Tensor (per batch element).
        xs (Tensor|Sequence[Tensor]): the point of evaluation.
        is_batched (bool): if True, axis 0 of the inputs and the output is an independent batch axis.

    Example:
        >>> import paddle_fn as paddle
        >>> def reducer(x):
        ...     return paddle.sum(x * x)
        >>> x = paddle.rand([2, 2])
        >>> h = paddle.incubate.autograd.Hessian(reducer, x)
        >>> print(h[:])
        Tensor(shape=[4, 4], dtype=float32, place=Place(cpu), stop_gradient=False,
               [[2., 0., 0., 0.],
                [0., 2., 0., 0.],
                [0., 0., 2., 0.],
                [0., 0., 0., 2.]])
    """

    def __init__(self, func, xs, is_batched=False):
        check_inputs(func, xs)
        batched = bool(is_batched)
        self._init_engine(_flat_gradient(func, batched, "Hessian"), as_tensors(xs), batched, "Hessian")


def _flat_gradient(func, batched, who):
    """x -> the flattened, concatenated gradient of a single-element func (per batch element when batched)."""
    def gradient(*xs):
        store = {}
        outs, pullback = paddle.vjp(tuple_output(func, store, who), *xs)
        keep = int(batched)
        sizes = [math.prod(o.shape[keep:]) for o in outs]
        if sum(sizes) != 1 or (batched and any(len(o.shape) == 0 for o in outs)):
            expected = "[B] or [B, 1] (one element per batch element)" if batched else "[] or [1] (a single element)"
            raise RuntimeError(f"The function given to {who} should return a single element Tensor, shaped "
                               f"{expected}, but it returned shapes {[o.shape for o in outs]}. Reduce the output "
                               "(e.g. paddle.sum) or use Jacobian for vector outputs.")
        grads = pullback(tuple(paddle.ones_like(o) for o in outs))
        return flatten_concat(grads, keep)
    return gradient
