"""Paddle 3.3's Tensor storage semantics and queries: handles that share a buffer (detach, set_, reconstruct_from_),
inplace_version, format() of 0-D Tensors, device/layout/type, get_tensor, random_, and the stop_gradient flags Paddle
gives gradients. Expected values were printed by Paddle 3.3.1 (CPU) on the same programs."""
import numpy as np
import pytest

import paddle_fn as paddle


def test_detach_shares_storage_both_ways_and_keeps_gradients_apart():
    # Paddle 3.3.1: x prints [10.] after detach_x[0] = 10; x.grad [20.]; then detach_x.grad [300.], x.grad unchanged
    x = paddle.to_tensor([1.0], stop_gradient=False)
    detach_x = x.detach()
    detach_x[0] = 10.0
    assert x.tolist() == [10.0] and x.stop_gradient is False
    (x ** 2).backward()
    assert x.grad.tolist() == [20.0]
    detach_x.stop_gradient = False
    (detach_x ** 3).backward()
    assert x.grad.tolist() == [20.0] and detach_x.grad.tolist() == [300.0]
    # Paddle 3.3.1: an update through x shows in the detached handle too, and both count it
    x2 = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    d = x2.detach()
    assert (x2.inplace_version, d.inplace_version) == (0, 0)
    d.add_(paddle.to_tensor(1.0))
    assert x2.tolist() == [2.0, 3.0, 4.0] and (x2.inplace_version, d.inplace_version) == (1, 1)
    d.reshape_([3, 1])
    assert x2.shape == [3, 1]
    assert d._is_shared_buffer_with(x2) and not paddle.ones([1])._is_shared_buffer_with(x2)


def test_detach_of_an_intermediate_writes_through():
    # Paddle 3.3.1: y = x * 2; y.detach()[0] = 100 makes y [100, 2*x1, ...]
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = x * 2
    y.detach()[0] = 100.0
    assert y.tolist() == [100.0, 4.0]


def test_set_selects_from_the_source_buffer_as_paddle():
    src = paddle.to_tensor([[11., 22., 33.]])
    src2 = paddle.to_tensor([11., 22., 33., 44., 55., 66.])
    x = paddle.to_tensor([1., 2., 3., 4., 5.])
    assert x.set_() is x and x.shape == [0] and x.dtype == paddle.float32
    x = paddle.to_tensor([1., 2., 3., 4., 5.])
    x.set_(src)
    assert x.tolist() == [[11., 22., 33.]] and x._is_shared_buffer_with(src)
    src[0, 0] = 7.0
    assert x.tolist() == [[7., 22., 33.]]
    # Paddle 3.3.1's outputs of its docstring example
    assert paddle.to_tensor([1.]).set_(paddle.to_tensor([[11., 22., 33.]]), shape=[2, 1]).tolist() == [[11.], [22.]]
    assert paddle.to_tensor([1.]).set_(src2, shape=[3], stride=[2]).tolist() == [11., 33., 55.]
    assert paddle.to_tensor([1.]).set_(src2, shape=[5], offset=4).tolist() == [22., 33., 44., 55., 66.]
    with pytest.raises(ValueError, match="reach element"):
        paddle.to_tensor([1.]).set_(src2, shape=[4], stride=[2])


def test_reconstruct_from_takes_value_flag_and_storage():
    # Paddle 3.3.1: t1 prints [2., 3.] stop_gradient=True; t2[0] = 7 then shows in t1
    t1 = paddle.to_tensor([1.0], stop_gradient=False)
    t2 = paddle.to_tensor([2.0, 3.0])
    assert t1.reconstruct_from_(t2) is None
    assert t1.tolist() == [2.0, 3.0] and t1.stop_gradient is True
    t2[0] = 7.0
    assert t1.tolist() == [7.0, 3.0]


def test_format_of_a_0d_tensor_is_its_number():
    # Paddle 3.3.1: '2.5', '2.50', '     2.5'; a [2] Tensor with a spec raises TypeError
    t = paddle.to_tensor(2.5)
    assert ("{}".format(t), "{:.2f}".format(t), f"{t:>8}") == ("2.5", "2.50", "     2.5")
    x = paddle.to_tensor([1., 2.])
    assert "{}".format(x) == str(x)
    with pytest.raises(TypeError, match="format"):
        "{:.2f}".format(x)


def test_kind_queries():
    x = paddle.to_tensor([1, 2, 3])
    assert x.device == "cpu" and str(x.device) == "cpu" and x.device.type == "cpu" and x.device.index is None
    assert paddle.device.Device("gpu:1").index == 1 and paddle.device.Device("gpu", 0) == "gpu:0"
    assert x.layout == "NCHW" and str(x.type) == "VarType.DENSE_TENSOR" and x[1].offset == 0
    assert x.data_ptr() == np.asarray(x).ctypes.data
    assert x.is_same_shape(paddle.zeros([3])) and not x.is_same_shape(paddle.zeros([3, 1]))


def test_get_tensor_prints_and_sets_as_paddle():
    # Paddle 3.3.1's print of paddle.to_tensor([[1.5, 2.], [3., 4.]]).get_tensor()
    x = paddle.to_tensor([[1.5, 2.], [3., 4.]])
    assert str(x.get_tensor()) == ("  - shape: [2, 2]\n  - layout: NCHW\n  - place: Place(cpu)\n  - dtype: float32\n"
                                   "  - data: [1.5 2 3 4]")
    x.get_tensor().set(np.array([5.0, 6.0], np.float32), paddle.CPUPlace() if hasattr(paddle, "CPUPlace") else None)
    assert x.tolist() == [5.0, 6.0] and x.get_tensor().shape() == [2]


def test_random_fills_integers_in_range_in_place():
    x = paddle.zeros([1000], dtype=paddle.int32)
    assert x.random_(0, 10) is x and x.dtype == paddle.int32
    values = np.asarray(x)
    assert values.min() >= 0 and values.max() <= 9 and len(np.unique(values)) == 10
    f = paddle.zeros([100]).random_(from_=5, to=7)
    assert set(np.asarray(f).tolist()) <= {5.0, 6.0}
    with pytest.raises(ValueError, match="less than"):
        paddle.zeros([2]).random_(3, 3)


def test_create_tensor_is_empty_until_set():
    t = paddle.tensor.create_tensor(dtype="float64", name="buf", persistable=True)
    assert t.shape == [0] and t.dtype == paddle.float64 and t.name == "buf" and t.persistable
    assert t.set_(paddle.to_tensor([1.0, 2.0], dtype="float64")).tolist() == [1.0, 2.0]


def test_gradients_read_stop_gradient_false():
    # Paddle 3.3.1: a grad set over an existing one, and the grad a hook receives, print stop_gradient=False
    x = paddle.to_tensor(1.0, stop_gradient=False)
    (x * x).backward()
    x.grad = paddle.to_tensor(3.0)
    assert x.grad.stop_gradient is False and x.grad.item() == 3.0
    seen = []
    b = paddle.to_tensor([1., 2.], stop_gradient=False)
    b.register_hook(lambda g: seen.append(g.stop_gradient))
    (b * 2).sum().backward()
    assert seen == [False]


def test_incubate_autograd_results_need_gradients():
    # Paddle 3.3.1: every Tensor vjp/jvp/Jacobian/Hessian return has stop_gradient=False; x keeps True
    ia = paddle.incubate.autograd
    x = paddle.ones([2, 2])
    out, vjp = ia.vjp(lambda a: a, x)
    assert (out.stop_gradient, vjp.stop_gradient, x.stop_gradient) == (False, False, True)
    _, jvp = ia.jvp(lambda a: paddle.matmul(a, a), x)
    assert jvp.stop_gradient is False and jvp.tolist() == [[4.0, 4.0], [4.0, 4.0]]
    assert ia.Jacobian(lambda a: a * 2, x)[0].stop_gradient is False
    assert ia.Hessian(lambda a: (a * a).sum(), x)[:].stop_gradient is False


def test_clone_passes_gradients_back_and_shares_no_storage():
    # Paddle 3.3.1 (Tensor.clone's example): clone_x.grad 2., x.grad 2.; a clone of a constant needs no gradient
    x = paddle.to_tensor(1.0, stop_gradient=False)
    clone_x = x.clone()
    clone_x.retain_grads()
    (clone_x ** 2).backward()
    assert clone_x.stop_gradient is False and clone_x.grad.item() == 2.0 and x.grad.item() == 2.0
    c = paddle.to_tensor([1.0, 2.0])
    copy = paddle.clone(c)
    copy[0] = 5.0
    assert c.tolist() == [1.0, 2.0] and copy.stop_gradient is True and not copy._is_shared_buffer_with(c)


def test_nll_loss_takes_labels_with_a_class_axis_of_one():
    # Paddle 3.3.1: 0.49041462 for labels [[0], [1]] as for [0, 1]; reduction='none' gives [2]; [4, 3, 5] with
    # labels [4, 1, 5] gives [4, 5]
    F = paddle.nn.functional
    logp = paddle.log(paddle.to_tensor([[0.5, 0.5], [0.25, 0.75]]))
    np.testing.assert_allclose(F.nll_loss(logp, paddle.to_tensor([[0], [1]])).numpy(), 0.49041462, rtol=1e-6)
    assert F.nll_loss(logp, paddle.to_tensor([[0], [1]]), reduction="none").shape == [2]
    assert F.nll_loss(paddle.zeros([4, 3, 5]), paddle.zeros([4, 1, 5], dtype="int64"), reduction="none").shape == [4, 5]
    with pytest.raises(paddle.ShapeError, match="needs label"):
        F.nll_loss(logp, paddle.to_tensor([[0, 1], [1, 0]]))


def test_base_dygraph_switches():
    # Paddle 3.3.1: base.dygraph.enabled() is True, guard('cpu') runs the block, grad is the tape's paddle.grad
    base = paddle.base
    with base.dygraph.guard("cpu"):
        assert base.dygraph.enabled()
    x = paddle.to_tensor(3.0, stop_gradient=False)
    assert base.dygraph.grad(x * x, x)[0].item() == 6.0
    base.dygraph.enable_dygraph()
    with pytest.raises(ValueError, match="CPU"):
        with base.dygraph.guard("gpu:0"):
            pass
    with pytest.raises(NotImplementedError, match="static-graph"):
        base.dygraph.disable_dygraph()


def test_sparse_dims_and_the_coalesced_mark_as_paddle():
    # Paddle 3.3.1: CSR sparse_dim 2 / dense_dim 0 (a [2, 2, 2] batch too); is_coalesced is False for a COO Tensor
    # made by sparse_coo_tensor (sorted or not) or by an op on a coalesced one, True after coalesce() and for
    # conversions from dense and CSR
    csr = paddle.sparse.sparse_csr_tensor([0, 1, 2], [0, 1], [1., 2.], [2, 2])
    batch = paddle.sparse.sparse_csr_tensor([0, 1, 2, 0, 1, 1], [0, 1, 1], [1., 2., 3.], [2, 2, 2])
    assert (csr.sparse_dim(), csr.dense_dim(), batch.sparse_dim(), batch.dense_dim()) == (2, 0, 2, 0)
    x = paddle.sparse.sparse_coo_tensor([[0, 1, 1], [1, 0, 2]], [1., 2., 3.])
    assert not x.is_coalesced() and x.coalesce().is_coalesced()
    assert not paddle.sparse.sin(x.coalesce()).is_coalesced()
    assert paddle.to_tensor([[0., 1.], [2., 0.]]).to_sparse_coo(2).is_coalesced()
    assert csr.to_sparse_coo(2).is_coalesced()


def test_saved_tensors_hooks_pack_inputs_and_unpack_in_backward():
    # Paddle 3.3.1's example: multiply under the hooks packs a then b; backward unpacks a then b; grads b and a
    events = []

    def pack(t):
        events.append(("pack", t.tolist()))
        return t.numpy()

    def unpack(v):
        events.append(("unpack", v.tolist()))
        return paddle.to_tensor(v)

    a = paddle.to_tensor([1.0, 1.0], stop_gradient=False)
    b = paddle.to_tensor([2.0, 2.0], stop_gradient=False)
    with paddle.autograd.saved_tensors_hooks(pack, unpack):
        y = paddle.multiply(a, b)
    y.sum().backward()
    assert events == [("pack", [1.0, 1.0]), ("pack", [2.0, 2.0]), ("unpack", [1.0, 1.0]), ("unpack", [2.0, 2.0])]
    assert a.grad.tolist() == [2.0, 2.0] and b.grad.tolist() == [1.0, 1.0]

    class Mul(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * w

        @staticmethod
        def backward(ctx, dy):
            x, w = ctx.saved_tensor()
            return dy * w, dy * x

    events.clear()
    with paddle.autograd.saved_tensors_hooks(pack, unpack):
        z = Mul.apply(a, b)
    z.sum().backward()
    assert [e[0] for e in events] == ["pack", "pack", "unpack", "unpack"]
    with pytest.raises(TypeError, match="unpack hook must return a Tensor"):
        with paddle.autograd.saved_tensors_hooks(lambda t: t, lambda v: 1.0):
            w = a * b
        w.sum().backward()
    assert paddle.ones([2, 3]).sparse_dim() == 0 and paddle.ones([2, 3]).dense_dim() == 2


def test_to_static_falls_back_to_eager_by_default_as_paddle_3():
    # Paddle 3.3.1 (paddle.jit.not_to_static's example; to_static's default full_graph=False): [[2., 2.]]; a
    # function whose source cannot be read (built by exec) still runs, with a warning
    namespace = {"paddle": paddle}
    exec("def func(x):\n    if paddle.mean(x) < 0:\n        return x - 1\n    return x + 1\n", namespace)  # noqa: S102
    func = paddle.jit.to_static(namespace["func"])
    with pytest.warns(UserWarning, match="graph break"):
        assert func(paddle.ones([1, 2])).tolist() == [[2.0, 2.0]]
    with pytest.raises(paddle.ConcretizationError, match="full_graph=False"):
        paddle.jit.to_static(namespace["func"], full_graph=True)(paddle.ones([1, 2]))
