"""The keyword arguments Paddle 3.3 accepts (tests/test_paddle_signatures.py checks the signatures): each one has
its effect. Expected values from Paddle 3.3.1 (CPU) where they are not plain arithmetic."""
import inspect

import numpy as np
import pytest

import paddle_fn as paddle
import paddle_fn.nn.functional as F


@pytest.mark.parametrize("call", [
    lambda out: paddle.exp(paddle.to_tensor([0.0, 1.0]), out=out),
    lambda out: paddle.add(paddle.to_tensor([1.0]), paddle.to_tensor([2.0]), out=out),
    lambda out: paddle.sum(paddle.to_tensor([[1.0, 2.0]]), axis=1, out=out),
    lambda out: paddle.equal(paddle.to_tensor([1, 2]), 2, out=out),
    lambda out: paddle.logical_and(paddle.to_tensor([True, False]), paddle.to_tensor([True, True]), out=out),
    lambda out: paddle.bitwise_and(paddle.to_tensor([12]), paddle.to_tensor([10]), out),  # positional, as Paddle
    lambda out: paddle.bitwise_left_shift(paddle.to_tensor([1]), paddle.to_tensor([2]), True, out),
    lambda out: paddle.gather(paddle.to_tensor([[1, 2], [3, 4]]), paddle.to_tensor([1]), None, None, out),
    lambda out: paddle.prod(paddle.to_tensor([2.0, 3.0]), 0, False, None, out),
    lambda out: paddle.zeros([2], out=out),
    lambda out: paddle.complex(paddle.to_tensor([1.0]), paddle.to_tensor([2.0]), out=out),
    lambda out: paddle.linalg.norm(paddle.to_tensor([3.0, 4.0]), out=out),
    lambda out: paddle.matmul(paddle.ones([2, 2]), paddle.ones([2, 2]), out=out),
])
def test_out_is_made_to_hold_the_result(call):
    out = paddle.zeros([1])
    result = call(out)
    assert result is out
    fresh = call(None)
    assert out.dtype == fresh.dtype and out.tolist() == fresh.tolist()


def test_out_of_a_function_with_several_results_takes_a_tuple():
    values, indices = paddle.zeros([1]), paddle.zeros([1], dtype="int64")
    paddle.topk(paddle.to_tensor([1.0, 3.0, 2.0]), 2, out=(values, indices))
    assert values.tolist() == [3.0, 2.0] and indices.tolist() == [1, 2]
    with pytest.raises(TypeError, match="tuple of 2 Tensors"):
        paddle.topk(paddle.to_tensor([1.0, 3.0]), 1, out=paddle.zeros([1]))


def test_creation_functions_take_device_requires_grad_and_pin_memory():
    assert paddle.zeros([2], device="cpu", requires_grad=True).stop_gradient is False
    assert paddle.full_like(paddle.ones([2]), 3, device=paddle.CPUPlace()).stop_gradient is True
    assert paddle.arange(3, requires_grad=True).stop_gradient is False
    for make in (lambda **kw: paddle.ones([2], **kw), lambda **kw: paddle.eye(2, **kw),
                 lambda **kw: paddle.linspace(0, 1, 3, **kw), lambda **kw: paddle.to_tensor([1.0], place=kw["device"])):
        with pytest.raises(ValueError, match="eager Tensors live on the CPU"):
            make(device="gpu:0")
    with pytest.raises(ValueError, match="pin_memory"):
        paddle.empty([2], pin_memory=True)


def test_add_and_subtract_alpha_and_divide_rounding_mode():
    x, y = paddle.to_tensor([-7, 7]), paddle.to_tensor([2, 2])
    assert paddle.add(x, y, alpha=3).tolist() == [-1, 13]
    assert paddle.subtract(x, y, alpha=3).tolist() == [-13, 1]
    assert paddle.divide(x, y, rounding_mode="trunc").tolist() == [-3, 3]
    assert paddle.divide(x, y, rounding_mode="floor").tolist() == [-4, 3]
    assert paddle.divide(paddle.to_tensor([-7.5]), paddle.to_tensor([2.0]), rounding_mode="trunc").tolist() == [-3.0]
    with pytest.raises(ValueError, match="rounding_mode"):
        paddle.divide(x, y, rounding_mode="round")
    assert paddle.div is paddle.divide and paddle.sub is paddle.subtract


def test_var_correction_and_unbiased():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 5.0]])
    # Paddle 3.3.1: 2.91666675, correction=0: 2.1875, unbiased=False overrides correction=1: 2.1875, correction=2: 4.375
    assert np.allclose([paddle.var(x).item(), paddle.var(x, correction=0).item(),
                        paddle.var(x, unbiased=False, correction=1).item(), paddle.var(x, correction=2).item()],
                       [2.91666675, 2.1875, 2.1875, 4.375])


def test_histogram_weight_and_density_match_paddle():
    x = paddle.to_tensor([1.0, 2.0, 1.0])
    w = paddle.to_tensor([1.0, 2.0, 3.0])
    # Paddle 3.3.1
    assert paddle.histogram(x, bins=4, min=0, max=3, weight=w).tolist() == [0.0, 4.0, 2.0, 0.0]
    np.testing.assert_allclose(paddle.histogram(x, bins=4, min=0, max=3, weight=w, density=True).numpy(),
                               [0.0, 0.8888889, 0.44444445, 0.0], rtol=1e-6)
    np.testing.assert_allclose(paddle.histogram(x, bins=4, min=0, max=3, density=True).numpy(),
                               [0.0, 0.8888889, 0.44444445, 0.0], rtol=1e-6)
    with pytest.raises(Exception, match="weight must have the input's shape"):
        paddle.histogram(x, weight=paddle.ones([2]))


def test_search_and_gather_keywords_match_paddle():
    s, v = paddle.to_tensor([1.0, 3.0, 5.0, 7.0]), paddle.to_tensor([3.0, 6.0])
    assert paddle.searchsorted(s, v, side="right").tolist() == [2, 3]  # Paddle 3.3.1
    assert paddle.searchsorted(paddle.to_tensor([5.0, 1.0, 7.0, 3.0]), v,
                               sorter=paddle.to_tensor([1, 3, 0, 2])).tolist() == [1, 3]
    x = paddle.to_tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert paddle.take_along_axis(x, paddle.to_tensor([[0], [2]]), 1, broadcast=False).tolist() == [[1], [6]]
    assert paddle.take_along_axis(x, paddle.to_tensor([[0, 1]]), 0, broadcast=False).tolist() == [[1, 5]]
    with pytest.raises(Exception, match="broadcast=False"):
        paddle.take_along_axis(x, paddle.to_tensor([[0, 1, 2, 0]]), 0, broadcast=False)
    assert paddle.repeat_interleave(paddle.to_tensor([1, 2]), paddle.to_tensor([1, 3]), output_size=4).tolist() == \
        [1, 2, 2, 2]
    with pytest.raises(ValueError, match="output_size"):
        paddle.repeat_interleave(paddle.to_tensor([1, 2]), 2, output_size=3)
    assert paddle.unique(paddle.to_tensor([3, 1, 3]), sorted=False).tolist() == [1, 3]  # Paddle 3.3.1 sorts too


def test_nn_functional_keywords():
    assert F.one_hot(paddle.to_tensor([1, 3])).shape == [2, 4]  # num_classes=-1: the largest label + 1
    with pytest.raises(Exception, match="num_classes=-1"):
        paddle.jit(lambda x: F.one_hot(x))(paddle.to_tensor([1, 3]))
    x = paddle.to_tensor(np.arange(8, dtype="float32").reshape(1, 4, 2))
    w, b = paddle.to_tensor([1.0, 2.0, 3.0, 4.0]), paddle.zeros([4])
    by_position = F.group_norm(x, 2, 1e-5, w, b, "NCL")  # Paddle's order: epsilon before weight and bias
    np.testing.assert_allclose(by_position.numpy(), F.group_norm(x, 2, weight=w, bias=b, data_format="NCL").numpy())
    assert inspect.signature(paddle.nn.MaxUnPool2D).parameters["data_format"].default == "NCHW"
    assert inspect.signature(paddle.nn.LPPool1D).parameters["data_format"].default == "NCL"


def test_linalg_keywords_match_paddle():
    # Paddle 3.3.1: [[1.0, 2.0]], 1, 1
    assert paddle.linalg.solve(paddle.to_tensor([[2.0, 0.0], [1.0, 1.0]]), paddle.to_tensor([[4.0, 2.0]]),
                               left=False).tolist() == [[1.0, 2.0]]
    a = paddle.to_tensor([[1.0, 0.0], [0.0, 1e-3]])
    assert paddle.linalg.matrix_rank(a, atol=0.01).item() == 1
    assert paddle.linalg.matrix_rank(a, rtol=0.01).item() == 1
    assert paddle.linalg.matrix_rank(a, atol=1e-4).item() == 2
    with pytest.raises(ValueError, match="not both"):
        paddle.linalg.matrix_rank(a, tol=0.1, atol=0.1)
    assert paddle.linalg.norm(paddle.to_tensor([3, 4]), dtype="float64").dtype == paddle.float64


def test_sizes_as_one_list_separate_ints_or_by_name():
    x = paddle.ones([2, 3, 4])
    assert x.permute(dims=[2, 1, 0]).shape == [4, 3, 2] and paddle.permute(x, 1, 0, 2).shape == [3, 2, 4]
    assert x.repeat(1, 2, 1).shape == [2, 6, 4] and x.repeat(repeats=[1, 1, 2]).shape == [2, 3, 8]
    assert x.new_zeros(size=[3]).shape == [3] and x.new_ones(2, 3).shape == [2, 3]


def test_inplace_bitwise_ops_take_paddles_arguments():
    x = paddle.to_tensor([12])
    assert list(inspect.signature(paddle.bitwise_and_).parameters) == ["x", "y", "name"]
    x.bitwise_and_(paddle.to_tensor([10]), "named")
    assert x.tolist() == [8]


def test_autograd_and_framework_keywords():
    x = paddle.to_tensor([2.0], stop_gradient=False)
    (dx,) = paddle.grad(x * x, x, only_inputs=True)
    assert dx.tolist() == [4.0]
    with pytest.raises(ValueError, match="only_inputs"):
        paddle.grad(x * x, x, only_inputs=False)
    with pytest.raises(NotImplementedError, match="dump_backward_graph_path"):
        (x * x).sum().backward(dump_backward_graph_path="/tmp/graph")
    with pytest.raises(ValueError, match="copy=False"):
        paddle.from_dlpack(np.arange(3), copy=False)
    assert paddle.from_dlpack(np.arange(3), device="cpu").tolist() == [0, 1, 2]
    csr = paddle.sparse.sparse_csr_tensor([0, 2, 3, 0, 1, 2], [1, 3, 2, 0, 1], [1, 2, 3, 4, 5])
    assert csr.shape == [2, 2, 4]  # Paddle's inferred shape: two batches where the offsets drop
    assert paddle.Size([2, 3]) == [2, 3] and paddle.ones([2, 3]).numel(name="n") == 6
    assert paddle.amp.is_float16_supported("cpu") is False


def test_dataloader_takes_reader_buffer_size_in_paddles_position():
    data = [np.float32(i) for i in range(4)]
    loader = paddle.io.DataLoader(data, None, None, True, None, 2, False, False, None, 0, True, 3)
    assert loader.reader_buffer_size == 3 and loader.prefetch_factor == 2
    assert [b.tolist() for b in loader] == [[0.0, 1.0], [2.0, 3.0]]
    with pytest.raises(ValueError, match="reader_buffer_size"):
        paddle.io.DataLoader(data, reader_buffer_size=0)


def test_global_seed_draws_take_paddle33s_keywords_and_defaults():
    # Paddle 3.3.1: uniform and Tensor.uniform_ draw from [0, 1) by default (Paddle 2: [-1, 1)); seed(seed=)
    paddle.seed(seed=3)
    u = paddle.uniform([2000])
    assert 0.0 <= float(u.min()) and float(u.max()) < 1.0 and float(u.mean()) > 0.4
    v = paddle.zeros([2000]).uniform_()
    assert 0.0 <= float(v.min()) and float(v.max()) < 1.0
    assert not paddle.rand([2], requires_grad=True).stop_gradient
    out = paddle.zeros([3])
    assert paddle.randn([3], out=out) is out and float(paddle.abs(out).sum()) > 0
    with pytest.raises(ValueError, match="device"):
        paddle.standard_normal([2], device="gpu:0")
    with pytest.raises(ValueError, match="pin_memory"):
        paddle.randperm(4, pin_memory=True)
    paddle.seed(5)
    first = paddle.rand([4]).numpy()
    paddle.seed(5)
    np.testing.assert_array_equal(paddle.rand([4], device="cpu").numpy(), first)
