"""`paddle.sparse.nn.functional`'s convolutions and pooling of COO Tensors in Paddle's channels-last layouts:
`x` is ``[N, D, H, W, C]`` ('NDHWC') or ``[N, H, W, C]`` ('NHWC') with the batch and spatial axes sparse and the
channels one dense axis (``dense.to_sparse_coo(4)``), as Paddle 3.3 stores them.

The output sites come from a rulebook built with numpy from the concrete indices (`paddle_fn.sparse.rulebook`);
the values are GEMMs and a sparse 0/1 product over it, so gradients reach the values, the weight and the bias
(eager `backward()` and `paddle.grad`), `vmap` maps over the values and weights, and `jit` compiles the products
of a sparse input it closes over. A traced index Tensor (a sparse Tensor passed into `jit` or `vmap`) has no
concrete coordinates to build the rulebook from: a submanifold convolution, whose sites are the input's, then
finds the neighbours with static-shape operations (`paddle_fn.sparse.traced_submanifold`, for a coalesced input);
the others raise a `ConcretizationError` naming the function.
"""
from __future__ import annotations

import numpy as np

import paddle_fn.tensor as T
from paddle_fn.core.errors import ConcretizationError, ShapeError
from paddle_fn.sparse import rulebook as rb
from paddle_fn.sparse.tensor import SparseCooTensor
from paddle_fn.sparse.traced_submanifold import traced_submanifold
from paddle_fn.tensor._util import eager_value
from paddle_fn.tensor.promotion import as_tensor

__all__ = ["conv2d", "conv3d", "subm_conv2d", "subm_conv3d", "subm_conv2d_igemm", "subm_conv3d_igemm", "max_pool3d"]

_LAYOUT = {2: "NHWC", 3: "NDHWC"}


def check_sparse_input(op: str, x, n: int, data_format: str, traced_ok: bool = False):
    """The concrete coordinates ([1 + n, nnz]) of `x`, a COO Tensor in the channels-last layout of `n` spatial
    axes, or a clear error; None for traced coordinates where the caller has a traced form (`traced_ok`)."""
    layout = _LAYOUT[n]
    if data_format != layout:
        raise ValueError(f"paddle.sparse.nn.functional.{op}: data_format must be {layout!r} (channels last, the "
                         f"only layout of sparse Tensors), got {data_format!r}")
    if not isinstance(x, SparseCooTensor) or x.ndim != n + 2 or x.sparse_dim() != n + 1:
        got = (f"a COO Tensor of shape {x.shape} with {x.sparse_dim()} sparse axes"
               if isinstance(x, SparseCooTensor) else type(x).__name__)
        raise TypeError(f"paddle.sparse.nn.functional.{op}: expects a {n + 2}-D COO Tensor ({layout}) whose "
                        f"{n + 1} leading axes are sparse and the channels dense (dense.to_sparse_coo({n + 1})), got "
                        f"{got}")
    coords = eager_value(x.indices())
    if coords is None and traced_ok:
        return None
    if coords is None:
        raise ConcretizationError(
            f"paddle.sparse.nn.functional.{op}: the output's stored sites depend on the input's indices, which are "
            "being traced (a sparse Tensor passed into jit/vmap); build the sparse input outside the transform and "
            "close over it, or pass only its values in and make the sparse Tensor inside")
    return np.asarray(coords, np.int64)


def _check_weight(op: str, x, weight, bias, n: int, groups: int):
    weight = as_tensor(weight)
    channels = x.shape[-1]
    if weight.ndim != n + 2 or groups < 1 or channels % groups or weight.shape[-2] * groups != channels or (
            weight.shape[-1] % groups):
        raise ShapeError(f"paddle.sparse.nn.functional.{op}: weight {list(weight.shape)} must be [*kernel ({n} sizes), "
                         f"in_channels / groups, out_channels] for an input with {channels} channels and groups="
                         f"{groups} (both channel counts divisible by groups)")
    if weight.dtype != x.dtype or x.dtype.kind != "f":
        raise TypeError(f"paddle.sparse.nn.functional.{op}: x ({x.dtype.name}) and weight ({weight.dtype.name}) must "
                        "have one float dtype")
    if bias is not None:
        bias = as_tensor(bias)
        if bias.shape != [weight.shape[-1]]:
            raise ShapeError(f"paddle.sparse.nn.functional.{op}: bias {list(bias.shape)} must be [out_channels] = "
                             f"[{weight.shape[-1]}]")
    return weight, bias


def _conv(op, n, x, weight, bias, stride, padding, dilation, groups, data_format, submanifold, key):
    coords = check_sparse_input(op, x, n, data_format, traced_ok=submanifold)
    weight, bias = _check_weight(op, x, weight, bias, n, groups)
    kernel = tuple(weight.shape[:n])
    in_spatial = tuple(x.shape[1:-1])
    if submanifold:
        geometry = rb.submanifold_geometry(in_spatial, kernel, dilation)
    else:
        geometry = rb.conv_geometry(f"paddle.sparse.nn.functional.{op}", in_spatial, kernel, stride, padding,
                                    dilation)
    if coords is None:  # a submanifold convolution of traced coordinates keeps them
        indices = x.indices()
        values = traced_submanifold(x.values(), indices, x.shape, weight, geometry, groups)
    else:
        book = rb.rulebook_for(x.indices(), coords, x.shape, geometry, submanifold, key)
        values = rb.convolve(x.values(), weight, book, groups)
        indices = x.indices() if book.same_sites else T.to_tensor(book.sites)
    if bias is not None:
        values = values + bias
    return SparseCooTensor(indices, values, [x.shape[0], *geometry.out_spatial, weight.shape[-1]])


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", name=None):
    """3-D convolution of a sparse ``[N, D, H, W, C]`` COO Tensor with `weight` ``[kD, kH, kW, C / groups, M]``
    (a cross-correlation, as `paddle.nn.functional.conv3d`), plus `bias` ``[M]``. The output stores every site
    that some stored input site reaches through the kernel, sorted by (batch, d, h, w).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 1], [1, 2]], [[1.], [2.]], [1, 1, 3, 4, 1])
        >>> y = paddle.sparse.nn.functional.conv3d(x, paddle.ones([1, 2, 2, 1, 1]))
        >>> y.shape
        paddle.Size([1, 1, 2, 3, 1])
        >>> y.indices().numpy()
        array([[0, 0, 0, 0, 0],
               [0, 0, 0, 0, 0],
               [0, 0, 0, 1, 1],
               [0, 1, 2, 1, 2]])
        >>> y.values().numpy().ravel()
        array([1., 3., 2., 2., 2.], dtype=float32)
    """
    return _conv("conv3d", 3, x, weight, bias, stride, padding, dilation, groups, data_format, False, None)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC", name=None):
    """2-D convolution of a sparse ``[N, H, W, C]`` COO Tensor with `weight` ``[kH, kW, C / groups, M]``, plus
    `bias` ``[M]``; the output stores every site some stored input site reaches, sorted by (batch, h, w).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 2]], [[1.], [2.]], [1, 3, 4, 1])
        >>> y = paddle.sparse.nn.functional.conv2d(x, paddle.ones([3, 3, 1, 1]), padding=1)
        >>> y.to_dense().numpy()[0, :, :, 0]
        array([[1., 3., 3., 2.],
               [1., 3., 3., 2.],
               [0., 2., 2., 2.]], dtype=float32)
    """
    return _conv("conv2d", 2, x, weight, bias, stride, padding, dilation, groups, data_format, False, None)


def subm_conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", key=None,
                name=None):
    """Submanifold 3-D convolution: outputs only at the stored sites of `x` (coalesced: sorted, repeats added),
    the kernel's tap ``k // 2`` on each site and stride 1, so the output has the input's pattern and spatial shape;
    as in Paddle 3.3, `stride` and `padding` do not apply. `key` keeps the rulebook under that name for the index
    Tensor and reuses it on the next call with the same key (a stack of submanifold convolutions builds it once).
    Under `jit`/`vmap` of the sparse input itself, the neighbours are found by a binary search among the input's
    coordinates, which must then be coalesced (sorted, no repeats).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0, 0], [0, 0, 0], [0, 0, 2], [1, 2, 0]], [[1.], [2.], [4.]],
        ...                                     [1, 1, 3, 4, 1])
        >>> y = paddle.sparse.nn.functional.subm_conv3d(x, paddle.ones([1, 3, 3, 1, 1]))
        >>> y.indices().numpy()
        array([[0, 0, 0],
               [0, 0, 0],
               [0, 0, 2],
               [1, 2, 0]])
        >>> y.values().numpy().ravel()
        array([3., 3., 4.], dtype=float32)
    """
    return _conv("subm_conv3d", 3, x, weight, bias, stride, padding, dilation, groups, data_format, True, key)


def subm_conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC", key=None,
                name=None):
    """Submanifold 2-D convolution of a sparse ``[N, H, W, C]`` COO Tensor: outputs only at its stored sites
    (see `subm_conv3d`).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0, 0], [0, 0, 2], [1, 2, 0]], [[1.], [2.], [4.]], [1, 3, 4, 1])
        >>> y = paddle.sparse.nn.functional.subm_conv2d(x, paddle.ones([3, 3, 1, 1]))
        >>> y.values().numpy().ravel()
        array([3., 3., 4.], dtype=float32)
    """
    return _conv("subm_conv2d", 2, x, weight, bias, stride, padding, dilation, groups, data_format, True, key)


def subm_conv3d_igemm(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", key=None,
                      name=None):
    """`subm_conv3d` (Paddle's name for its implicit-GEMM GPU kernel; the result is the same).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 0], [1, 2]], [[1.], [2.]], [1, 1, 3, 4, 1])
        >>> y = paddle.sparse.nn.functional.subm_conv3d_igemm(x, paddle.ones([1, 3, 3, 1, 1]))
        >>> y.values().numpy().ravel()
        array([3., 3.], dtype=float32)
    """
    return _conv("subm_conv3d_igemm", 3, x, weight, bias, stride, padding, dilation, groups, data_format, True, key)


def subm_conv2d_igemm(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC", key=None,
                      name=None):
    """`subm_conv2d` (Paddle's name for its implicit-GEMM GPU kernel; the result is the same).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 2]], [[1.], [2.]], [1, 3, 4, 1])
        >>> y = paddle.sparse.nn.functional.subm_conv2d_igemm(x, paddle.ones([3, 3, 1, 1]))
        >>> y.values().numpy().ravel()
        array([3., 3.], dtype=float32)
    """
    return _conv("subm_conv2d_igemm", 2, x, weight, bias, stride, padding, dilation, groups, data_format, True, key)


def max_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NDHWC", name=None):
    """3-D max pooling of a sparse ``[N, D, H, W, C]`` COO Tensor: an output site is stored when its window holds a
    stored input site, and its value is the largest stored value there, per channel (the sites not stored take no
    part, as if they were -inf). `stride` defaults to `kernel_size`.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0, 0], [0, 0, 1], [0, 1, 2], [1, 0, 3]], [[-1.], [-3.], [5.]],
        ...                                     [1, 2, 4, 4, 1])
        >>> y = paddle.sparse.nn.functional.max_pool3d(x, [1, 2, 2])
        >>> y.indices().numpy()
        array([[0, 0],
               [0, 1],
               [0, 1],
               [0, 1]])
        >>> y.values().numpy().ravel()
        array([-1.,  5.], dtype=float32)
    """
    coords = check_sparse_input("max_pool3d", x, 3, data_format)
    geometry = rb.pool_geometry("paddle.sparse.nn.functional.max_pool3d", tuple(x.shape[1:-1]), kernel_size, stride,
                                padding, ceil_mode)
    book = rb.build_rulebook(coords, x.shape, geometry, submanifold=False)
    return SparseCooTensor(T.to_tensor(book.sites), rb.pool_max(x.values(), book),
                           [x.shape[0], *geometry.out_spatial, x.shape[-1]])
