"""Paddle 3's second names (cat, clamp, div, swapaxes, ...), its Tensor-only methods (new_*, stride, to, ...), the
in-place forms and retain_grads: Paddle 3.3.1's answers (recorded from paddlepaddle 3.3.1 on CPU), errors, and the
composites under grad, jit and vmap."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.errors import DTypeError, ShapeError


def test_aliases_give_paddles_answers():
    x = paddle.arange(6).reshape([2, 3])
    a, b = paddle.to_tensor([-7, 7, -6]), paddle.to_tensor([2, -2, 3])
    assert paddle.div(a, b, rounding_mode="trunc").tolist() == [-3, -3, -2]
    assert paddle.div(a, b, rounding_mode="floor").tolist() == [-4, -4, -2]
    assert paddle.div(paddle.to_tensor([-7.0]), 2.0, rounding_mode="trunc").tolist() == [-3.0]
    assert paddle.sub(paddle.to_tensor([5.0]), paddle.to_tensor([2.0]), alpha=2).tolist() == [1.0]
    assert paddle.reverse(x, 0).tolist() == [[3, 4, 5], [0, 1, 2]]
    assert paddle.argwhere(x > 2).tolist() == [[1, 0], [1, 1], [1, 2]]
    assert paddle.range(1, 4).tolist() == [1.0, 2.0, 3.0, 4.0] and paddle.range(4).dtype == paddle.float32
    assert paddle.range(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert paddle.reduce_as(paddle.ones([2, 3, 4]), paddle.ones([3, 1])).shape == [3, 1]
    assert paddle.msort(paddle.to_tensor([[3, 1], [1, 2]])).tolist() == [[1, 1], [3, 2]]
    assert paddle.take_along_dim(x, paddle.to_tensor([[0], [1]]), 1).tolist() == [[0], [4]]
    assert paddle.index_add(paddle.zeros([3, 2]), paddle.to_tensor([0, 0]), 0, paddle.ones([2, 2]),
                            alpha=3).tolist() == [[6.0, 6.0], [0.0, 0.0], [0.0, 0.0]]
    assert paddle.masked_fill(x, x > 3, 9).tolist() == [[0, 1, 2], [3, 9, 9]]
    assert paddle.bitwise_invert(paddle.to_tensor([1, 2])).tolist() == [-2, -3]
    assert paddle.clamp(paddle.to_tensor([1.0, 5.0]), 2, 3).tolist() == [2.0, 3.0]
    assert paddle.view(x.astype("float32"), "int32").dtype == paddle.int32
    assert paddle.swapaxes(paddle.ones([2, 3, 4]), 0, 2).shape == [4, 3, 2] and x.mT.shape == [3, 2]
    assert paddle.cat([x, x], axis=1).shape == [2, 6] and paddle.permute(x, 1, 0).shape == [3, 2]
    assert (paddle.pi, paddle.e, paddle.newaxis) == (np.pi, np.e, None) and np.isnan(paddle.nan)


def test_tensor_only_methods_give_paddles_answers():
    x = paddle.ones([2, 3])
    assert (x.stride(), x.stride(0), x.get_strides(), x.strides) == ([3, 1], 3, [3, 1], [3, 1])
    assert (x.element_size(), x.itemsize, x.is_contiguous(), x.contiguous() is x) == (4, 4, True, True)
    assert x.to("float64").dtype == paddle.float64 and x.to(paddle.int32).dtype == paddle.int32
    assert x.to("cpu") is x and x.to(paddle.zeros([1], "int64")).dtype == paddle.int64
    assert x.new_full([2], 3).dtype == paddle.float32 and x.new_zeros([2], dtype="int32").tolist() == [0, 0]
    assert x.new_ones(2).stop_gradient and not x.new_ones(2, requires_grad=True).stop_gradient
    assert [p.shape for p in x.split_with_sizes([1, 2], dim=1)] == [[2, 1], [2, 2]]
    assert x.long().dtype == paddle.int64 and x.half().dtype == paddle.float16 and x.bool().dtype == paddle.bool
    assert paddle.to_tensor([[1, 2]]).repeat(2, 2).tolist() == [[1, 2, 1, 2], [1, 2, 1, 2]]
    assert not x.requires_grad and x.ndimension() == 2
    z = paddle.zeros([3, 4])
    z.fill_diagonal_(5, offset=1)
    assert z.tolist() == [[0, 5, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]
    tall = paddle.zeros([7, 3])
    tall.fill_diagonal_(5, wrap=True)
    want = np.zeros((7, 3), np.float32)
    np.fill_diagonal(want, 5, wrap=True)
    np.testing.assert_array_equal(tall.numpy(), want)
    assert paddle.zeros([2, 3, 4]).fill_diagonal_tensor(paddle.ones([2, 3]), dim1=1, dim2=2).sum().item() == 6.0


def test_inplace_forms_and_retain_grads():
    x = paddle.to_tensor([1.0, 2.0])
    assert paddle.abs_(x) is x
    x.equal_(paddle.to_tensor([1.0, 3.0]))
    assert x.dtype == paddle.bool and x.tolist() == [True, False]  # Paddle 3.3.1 turns x into bool
    y = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    y.t_()
    assert y.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    h = w * 2
    h.retain_grads()
    (h * h).sum().backward()
    assert h.grad.tolist() == [4.0, 8.0] and w.grad.tolist() == [8.0, 16.0]


def test_errors():
    with pytest.raises(ValueError, match="divide: rounding_mode must be None, 'trunc' or 'floor'"):
        paddle.div(paddle.ones([1]), 2.0, rounding_mode="round")
    with pytest.raises(ShapeError, match="view: viewing float32 as the 2 times wider float64 needs a last dimension "
                                         "that is a multiple of 2"):
        paddle.view(paddle.ones([1]), "float64")
    assert paddle.view(paddle.ones([2, 2]), "float64").shape == [2, 1]  # Paddle: the last dimension halves
    with pytest.raises(ShapeError, match=r"index_add: value must have shape \[2, 2\]"):
        paddle.index_add(paddle.zeros([3, 2]), paddle.to_tensor([0, 1]), 0, paddle.ones([3, 2]))
    with pytest.raises(ValueError, match="to: device 'gpu:0' is not supported here"):
        paddle.ones([1]).to("gpu:0")
    with pytest.raises(ShapeError, match=r"split_with_sizes: the sizes \[1, 1\] add up to 2"):
        paddle.ones([3]).split_with_sizes([1, 1])
    with pytest.raises(DTypeError, match="masked_fill: mask must be a bool Tensor"):
        paddle.masked_fill(paddle.ones([2]), paddle.ones([2]), 0.0)


def test_grad_jit_and_vmap():
    x = paddle.to_tensor(np.arange(6.0).reshape(2, 3))
    mask = paddle.to_tensor([[True, False, True], [False, False, True]])

    def f(v):
        out = paddle.masked_fill(v, mask, 0.5) * v
        out = paddle.index_add(out, paddle.to_tensor([1, 1]), 1, v[:, :2] ** 2)
        return out.fill_diagonal_tensor(paddle.to_tensor([1.0, 2.0])).sum()

    g = paddle.grad(f)(x)
    want = np.where(mask.numpy(), 0.5, 2 * x.numpy())
    want[0, 0] = want[1, 1] = 0.0  # the diagonal is replaced
    want[0, :2] += 2 * x.numpy()[0, :2]  # row 1's squares land on [1, 1], which the diagonal replaces
    np.testing.assert_allclose(g.numpy(), want)
    np.testing.assert_allclose(paddle.jit(f)(x).numpy(), f(x).numpy())
    batch = paddle.to_tensor(np.arange(12.0).reshape(2, 2, 3))
    np.testing.assert_allclose(paddle.vmap(f)(batch).numpy(), [f(batch[i]).item() for i in range(2)])
    d = paddle.to_tensor([-7.0, 7.5, -6.0])
    np.testing.assert_allclose(paddle.jit(lambda v: paddle.div(v, 2.0, rounding_mode="trunc"))(d).numpy(),
                               [-3.0, 3.0, -3.0])


def test_paddle3_tensor_conveniences():
    x = paddle.ones([2, 2])
    assert x.new_zeros(3, 3).shape == [3, 3] and x.new_ones([2]).tolist() == [1.0, 1.0]
    row = paddle.to_tensor([[1.1, 2.2, 3.3]])
    assert row.item(2) == row.item(0, 2) == np.float32(3.3).item()  # one index counts in the flattened Tensor
    y = paddle.to_tensor([1.0, 2.0, 3.0])
    assert y.resize_([2, 1]) is y and y.tolist() == [[1.0], [2.0]]
    assert paddle.to_tensor([1.0, 2.0]).resize_([3]).tolist() == [1.0, 2.0, 0.0]
    assert y.is_dense() and not y.is_dist()
    assert paddle.argsort(paddle.to_tensor([2, 1, 2, 1]), descending=True, stable=True).tolist() == [0, 2, 1, 3]


def test_dlpack_round_trip():
    x = paddle.to_tensor([[1.5, 2.0], [3.0, -4.0]])
    capsule = paddle.to_dlpack(x)
    assert type(capsule).__name__ == "PyCapsule"
    back = paddle.utils.dlpack.from_dlpack(capsule)
    assert back.dtype == paddle.float32 and back.tolist() == x.tolist()
    assert paddle.from_dlpack(np.arange(4, dtype=np.int32)).dtype == paddle.int32
    with pytest.raises(TypeError, match="to_dlpack: expected a Tensor"):
        paddle.to_dlpack(np.ones(2))


def test_unfold_as_tensor_torch_style_names_and_linalg_methods():
    x = paddle.arange(7.0)
    assert paddle.unfold(x, 0, 2, 2).tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]  # Paddle 3.3.1
    grid = paddle.arange(12.0).reshape([3, 4])
    assert grid.unfold(0, 2, 1).tolist() == [[[0.0, 4.0], [1.0, 5.0], [2.0, 6.0], [3.0, 7.0]],
                                            [[4.0, 8.0], [5.0, 9.0], [6.0, 10.0], [7.0, 11.0]]]  # Paddle 3.3.1
    assert paddle.grad(lambda v: paddle.unfold(v, 0, 3, 2).sum())(x).tolist() == [1, 1, 2, 1, 2, 1, 1]
    with pytest.raises(ShapeError, match=r"unfold: size \(8\) must lie in \[1, 7\]"):
        paddle.unfold(x, 0, 8, 1)
    t = paddle.as_tensor([1, 2], dtype="float32", requires_grad=True)
    assert t.dtype == paddle.float32 and not t.stop_gradient
    nn = paddle.nn
    assert nn.Conv2d is nn.Conv2D and nn.ReflectionPad2d is nn.ReflectionPad2D and nn.Module is nn.Layer
    assert nn.ModuleList is nn.LayerList and nn.LPPool1d is nn.LPPool1D
    assert paddle.conv2d is paddle.nn.functional.conv2d and paddle.layer_norm is paddle.nn.functional.layer_norm
    a = paddle.to_tensor([[4.0, 2.0], [2.0, 3.0]])
    np.testing.assert_allclose(a.inverse().numpy(), [[0.375, -0.25], [-0.25, 0.5]], rtol=1e-6)
    np.testing.assert_allclose(a.cholesky().numpy(), np.linalg.cholesky(a.numpy()), rtol=1e-6)
    assert a.solve(paddle.to_tensor([[2.0], [2.0]])).shape == [2, 1]
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'no_such_method'"):
        a.no_such_method()
