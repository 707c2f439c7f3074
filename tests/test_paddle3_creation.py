"""Paddle 3's finfo/iinfo, from_numpy, asarray, broadcast_shapes and the random *_like functions."""
import ml_dtypes
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.errors import DTypeError, ShapeError


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_finfo_is_the_dtypes_limits(name):
    info, want = paddle.finfo(name), ml_dtypes.finfo(getattr(ml_dtypes, name, None) or np.dtype(name))
    assert (info.bits, info.eps, info.max, info.min, info.tiny, info.smallest_normal, info.resolution, info.dtype) == \
        (want.bits, float(want.eps), float(want.max), float(want.min), float(want.smallest_normal),
         float(want.smallest_normal), float(want.resolution), name)
    assert paddle.finfo(getattr(paddle, name)).eps == info.eps


def test_finfo_and_iinfo_print_as_paddle_does_and_refuse_the_other_kind():
    assert repr(paddle.finfo(paddle.float32)) == (
        "paddle.finfo(min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, resolution=1e-06, "
        "smallest_normal=1.17549e-38, tiny=1.17549e-38, bits=32, dtype=float32)")
    assert repr(paddle.iinfo(paddle.int32)) == "paddle.iinfo(min=-2147483648, max=2147483647, bits=32, dtype=int32)"
    assert (paddle.iinfo("uint8").min, paddle.iinfo("uint8").max, paddle.iinfo("int64").bits) == (0, 255, 64)
    with pytest.raises(TypeError, match="finfo: int32 is not a floating dtype; use paddle.iinfo"):
        paddle.finfo("int32")
    with pytest.raises(TypeError, match="iinfo: float32 is not an integer dtype; use paddle.finfo"):
        paddle.iinfo(paddle.float32)


def test_from_numpy_and_asarray():
    a = np.arange(6, dtype=np.int16).reshape(2, 3)
    t = paddle.from_numpy(a)
    assert t.dtype == paddle.int16 and t.tolist() == a.tolist()
    with pytest.raises(TypeError, match="from_numpy: expected a numpy.ndarray, got list"):
        paddle.from_numpy([1, 2])
    assert paddle.asarray([[1, 2]], dtype="float64").dtype == paddle.float64
    assert paddle.asarray(3).dtype == paddle.int64 and paddle.asarray(3).shape == []
    x = paddle.to_tensor([1.0, 2.0])
    assert paddle.asarray(x) is x
    y = paddle.asarray(x, requires_grad=True)
    assert not y.stop_gradient and x.stop_gradient and y.tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="asarray: copy must be True, False or None"):
        paddle.asarray(x, copy="yes")


def test_broadcast_shapes():
    assert paddle.broadcast_shapes([2, 1], [3], (4, 1, 1)) == [4, 2, 3]
    assert paddle.broadcast_shapes([5]) == [5] and paddle.broadcast_shapes() == []
    with pytest.raises(ShapeError, match="broadcast_shapes: .*\\[2\\] and \\[3\\]"):
        paddle.broadcast_shapes([2], [3])


def test_random_like_functions():
    paddle.seed(3)
    u = paddle.rand_like(paddle.zeros([1000], "float64"))
    assert u.dtype == paddle.float64 and u.shape == [1000] and 0 <= float(u.min()) and float(u.max()) < 1
    assert abs(float(u.mean()) - 0.5) < 0.05 and u.stop_gradient
    n = paddle.randn_like(paddle.zeros([2000]), dtype="float64", requires_grad=True)
    assert n.dtype == paddle.float64 and not n.stop_gradient and abs(float(n.std()) - 1) < 0.1
    k = paddle.randint_like(paddle.zeros([500], "int32"), 3, 6).numpy()
    assert k.dtype == np.int32 and set(np.unique(k)) == {3, 4, 5}
    assert set(np.unique(paddle.randint_like(paddle.zeros([300]), 2).numpy())) == {0.0, 1.0}
    paddle.seed(3)
    np.testing.assert_array_equal(paddle.rand_like(paddle.zeros([1000], "float64")).numpy(), u.numpy())
    with pytest.raises(DTypeError, match="rand_like: draws floats, but the dtype is int64"):
        paddle.rand_like(paddle.zeros([2], "int64"))
    with pytest.raises(ValueError, match="randint_like: low must be less than high"):
        paddle.randint_like(paddle.zeros([2]), 5, 5)
