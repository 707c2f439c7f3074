"""paddle.sparse's convolutions and pooling (paddle.sparse.nn.functional.conv2d/conv3d/subm_conv2d/subm_conv3d/
max_pool3d and their layers): output sites, values and gradients against paddle 3.3.1's, recorded as literals (from
paddle 3.3.1 on the CPU, float64), and grad / vmap / jit through them."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.errors import ConcretizationError, ShapeError
from paddle_fn.sparse import rulebook
from paddle_fn.test_util import check_grads

F = paddle.sparse.nn.functional

# Each case's input: `coords` and `shape`; values cos(1.3 k) and weights sin(0.7 k) (k counting the elements
# row-major, rounded to 3 decimals), bias [0.5, -0.25, 0.125][:out_channels]; the loss is sum(out ** 2 * cos(k)).
# conv3d has a repeated coordinate and unsorted entries; max_pool3d a tie (2.0) inside one window.
CASES = {
    "conv3d": dict(shape=[2, 3, 4, 5, 2], coords=[[0, 0, 0, 1, 1, 0], [0, 1, 2, 0, 2, 1], [1, 3, 0, 2, 1, 3],
                                                  [4, 0, 2, 2, 3, 0]],
                   kernel=[2, 3, 2], out_channels=2, options=dict(stride=[1, 2, 1], padding=[1, 1, 0],
                                                                 dilation=[1, 1, 2])),
    "conv2d": dict(shape=[1, 5, 5, 2], coords=[[0, 0, 0, 0, 0], [4, 0, 2, 3, 0], [1, 3, 2, 0, 4]],
                   kernel=[3, 3], out_channels=3, options=dict(stride=2, padding=1)),
    "subm_conv3d": dict(shape=[1, 3, 4, 4, 2], coords=[[0, 0, 0, 0, 0], [0, 0, 1, 1, 2], [1, 1, 1, 2, 3],
                                                       [1, 2, 2, 2, 0]],
                        kernel=[3, 1, 3], out_channels=2, options={}),
    "subm_conv2d": dict(shape=[2, 4, 4, 2], coords=[[1, 0, 0, 1, 0], [2, 1, 1, 1, 3], [2, 1, 2, 3, 3]],
                        kernel=[3, 3], out_channels=2, options={}),
    "max_pool3d": dict(shape=[1, 3, 4, 4, 2], coords=[[0, 0, 0, 0, 0, 0], [0, 0, 1, 2, 2, 1], [0, 1, 1, 3, 2, 0],
                                                      [0, 1, 2, 3, 1, 3]],
                       options=dict(kernel_size=[2, 3, 3], stride=[1, 2, 2], padding=[0, 1, 1])),
}

# paddle 3.3.1's results. subm_conv2d's input is unsorted: there Paddle's backward gives gradients of the values and
# the weight that are not the derivative of its own output (finite differences of Paddle's forward agree with
# paddle_fn's), so only its forward and bias gradient are recorded, and test_subm_gradient_is_the_derivative
# checks the rest.
EXPECTED = {
    "conv3d": {'grad_bias': [-8.2629043, 4.57217449],
     'grad_values': [[-4.93809063, -3.30282371], [-0.61727221, -2.24507541], [0.88762207, 1.94040815],
                     [3.2657924, 2.65666012], [0.35344266, -3.95380354], [-0.61727221, -2.24507541]],
     'grad_weight': [0.0, 0.0, 0.0, 0.0, -0.41610494, 0.87392694, 0.23143883, 1.22742577, 0.51299916, 0.70815489,
                     1.28395385, 0.74050875, -0.44722368, 0.31220442, -1.73517095, -0.61410489, 0.0057547,
                     0.06653803, -0.10220339, -1.18171533, -2.18633378, 0.26578012, -0.39687889, 0.09155718, 0.0,
                     0.0, 0.0, 0.0, -1.28395845, -0.98539585, -0.18043359, -1.16961606, -0.65484867, -1.07663916,
                     1.60502876, -1.94678333, -1.2027345, 0.06261643, -2.12495798, -1.02724068, 0.12630214,
                     0.04439987, -2.24312607, -0.78854164, 1.6053458, 0.4003089, -1.54001775, -0.30882274],
     'indices': [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1],
                 [0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 0, 0, 1, 1, 2, 2, 3, 3],
                 [0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1],
                 [2, 2, 2, 0, 2, 0, 2, 0, 0, 2, 0, 2, 0, 2, 1, 1, 1, 1]],
     'shape': [2, 4, 2, 3, 2],
     'values': [[0.110502, 0.099932], [1.405479, 0.819629], [1.571901, 0.494006], [1.315414, 0.588934],
                [0.602176, -0.863194], [1.503538, 0.883465], [-0.636306, -1.247162], [0.420858, -0.87586],
                [0.543413, -0.960149], [0.84595, 0.723249], [-0.439642, -0.99652], [1.399964, 0.261938],
                [0.893138, 0.601466], [-0.15691, -1.185706], [1.281746, 0.348284], [0.659774, -0.621097],
                [0.140393, -0.972142], [-0.252991, -0.689425]]},
    "conv2d": {'grad_bias': [1.1625335, -3.68714064, -1.12764544],
     'grad_values': [[-0.08864537, -0.80604191], [1.40864004, -1.29718406], [0.14200769, 0.0424869],
                     [0.95064999, -2.14801753], [0.42711542, 0.31233825]],
     'grad_weight': [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.09431059, -0.08804584, -0.02069674, -1.65567486, 1.54569371,
                     0.36334286, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.49746944, -1.02066358, -0.81859432, 0.24837304,
                     -0.3080673, -0.36972614, 0.31699296, -0.00750595, -0.16719636, -0.73251192, 0.11426057,
                     0.204033, 1.00525432, -1.82468923, 0.25521709, -0.16161988, -0.59986161, 0.4385574, 0.0, 0.0,
                     0.0, 0.0, 0.0, 0.0, 0.03853494, -0.07910582, 0.0133635, -0.67650235, 1.38874658, -0.23460372,
                     0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
     'indices': [[0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 2, 2], [1, 2, 0, 1, 0, 1]],
     'shape': [1, 3, 3, 3],
     'values': [[0.432461, 0.209713, 0.895152], [0.387234, -0.054696, 0.535914], [0.371606, -0.97156, -0.85042],
                [0.132378, -0.04143, 0.811416], [1.034831, -0.898388, -1.401495], [0.759882, 0.500901, 1.014006]]},
    "subm_conv3d": {'grad_bias': [-8.42989532, -4.75624633],
     'grad_values': [[4.71805041, 0.43788229], [-4.57397469, -1.99544008], [1.31824924, 4.70509047],
                     [0.07588809, -0.90083808], [0.90301715, -0.65873122]],
     'grad_weight': [-0.89292817, 1.13629852, -0.23841182, 0.30339171, 0.76523944, -0.97380783, 0.64826585,
                     -0.82495273, 0.0, 0.0, 0.0, 0.0, -2.67100018, -1.23424741, -0.71315705, -0.32954406,
                     -3.26281465, -0.2473935, -1.31928364, 2.07663162, 4.585795, 1.97621559, 3.88481584, 1.67413362,
                     0.0, 0.0, 0.0, 0.0, -1.25269909, -0.57886203, -2.60956718, -1.20585972, -2.50961243,
                     -1.08149954, -5.22791332, -2.25293189],
     'indices': [[0, 0, 0, 0, 0], [0, 0, 1, 1, 2], [1, 1, 1, 2, 3], [1, 2, 2, 2, 0]],
     'shape': [1, 3, 4, 4, 2],
     'values': [[-2.675493, -2.133962], [3.209204, 0.623362], [0.683039, 2.002908], [0.414902, -0.918532],
                [1.071251, 0.530858]]},
    "subm_conv2d": {'grad_bias': [2.18607339, -0.72332936],
     'indices': [[0, 0, 0, 1, 1], [1, 1, 3, 1, 2], [1, 2, 3, 3, 2]],
     'shape': [2, 4, 4, 2],
     'values': [[2.075129, -0.183234], [-0.392952, 0.480245], [1.071251, 0.530858], [-0.634633, -1.881182],
                [-1.126832, -1.624816]]},
    "max_pool3d": {'grad_values': [[0.0, 0.28852143], [3.56151932, -0.41187749], [4.9695095, -0.46851785], [0.0, 0.0],
                     [0.94143826, 0.0057357], [0.0, 0.0]],
     'indices': [[0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 0, 1, 1], [0, 1, 0, 1, 1, 0, 1]],
     'shape': [1, 2, 2, 2, 2],
     'values': [[2.0, 0.267], [2.0, 0.977], [2.0, -0.726], [2.0, 0.977], [2.0, 0.977], [-0.561, 0.648],
                [2.0, 0.977]]},
}


def _inputs(name, values_dtype="float64", tie=True):
    case = CASES[name]
    nnz, channels = len(case["coords"][0]), case["shape"][-1]
    values = np.cos(np.arange(nnz * channels) * 1.3).reshape(nnz, channels).round(3)
    if name == "max_pool3d" and tie:
        values[1, 0] = values[2, 0] = 2.0
    weight = bias = None
    if "kernel" in case:
        shape = case["kernel"] + [channels, case["out_channels"]]
        weight = np.sin(np.arange(np.prod(shape)) * 0.7).reshape(shape).round(3)
        bias = np.array([0.5, -0.25, 0.125][:case["out_channels"]])
    return values.astype(values_dtype), weight, bias


def _apply(name, values, weight=None, bias=None):
    case = CASES[name]
    x = paddle.sparse.sparse_coo_tensor(case["coords"], values, case["shape"])
    if weight is None:
        return getattr(F, name)(x, **case["options"])
    return getattr(F, name)(x, weight, bias, **case["options"])


def _loss(out):
    values = out.values()
    return (values * values * paddle.to_tensor(np.cos(np.arange(values.size)).reshape(values.shape))).sum()


@pytest.mark.parametrize("name", sorted(CASES))
def test_sites_values_and_backward_match_paddle(name):
    values, weight, bias = _inputs(name)
    v = paddle.to_tensor(values, stop_gradient=False)
    params = [] if weight is None else [paddle.to_tensor(weight, stop_gradient=False),
                                        paddle.to_tensor(bias, stop_gradient=False)]
    out = _apply(name, v, *params)
    want = EXPECTED[name]
    assert out.shape == want["shape"]
    assert out.indices().numpy().tolist() == want["indices"]
    np.testing.assert_allclose(out.values().numpy(), want["values"], rtol=1e-7, atol=1e-8)
    _loss(out).backward()
    grads = {"grad_values": v.grad}
    if params:
        grads.update(grad_weight=params[0].grad.reshape([-1]), grad_bias=params[1].grad)
    for key, grad in grads.items():
        if key in want:
            np.testing.assert_allclose(grad.numpy(), want[key], rtol=1e-7, atol=1e-8, err_msg=key)


@pytest.mark.parametrize("name", ["conv3d", "subm_conv3d", "max_pool3d"])
def test_functional_grad_matches_backward(name):
    values, weight, bias = _inputs(name)
    want = EXPECTED[name]
    if weight is None:
        g = paddle.grad(lambda v: _loss(_apply(name, v)))(paddle.to_tensor(values))
        np.testing.assert_allclose(g.numpy(), want["grad_values"], rtol=1e-7, atol=1e-8)
        return
    gv, gw, gb = paddle.grad(lambda v, w, b: _loss(_apply(name, v, w, b)), argnums=(0, 1, 2))(
        paddle.to_tensor(values), paddle.to_tensor(weight), paddle.to_tensor(bias))
    np.testing.assert_allclose(gv.numpy(), want["grad_values"], rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(gw.numpy().ravel(), want["grad_weight"], rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(gb.numpy(), want["grad_bias"], rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_is_the_derivative(name):
    """Against finite differences (float64), first and second order, in values and weight together (max_pool3d
    without its tie, where the maximum has no derivative)."""
    values, weight, bias = _inputs(name, tie=False)
    if weight is None:
        check_grads(lambda v: _loss(_apply(name, v)), (paddle.to_tensor(values),), order=2)
    else:
        check_grads(lambda v, w: _loss(_apply(name, v, w, paddle.to_tensor(bias))),
                    (paddle.to_tensor(values), paddle.to_tensor(weight)), order=2)


def test_groups_convolve_each_channel_block_with_its_filters():
    """groups=2 (which Paddle 3.3 refuses) equals two convolutions of the channel halves, side by side."""
    rng = np.random.default_rng(0)
    coords = [[0, 0, 0, 0], [0, 1, 2, 2], [1, 1, 0, 3], [2, 0, 1, 1]]
    values = paddle.to_tensor(rng.standard_normal((4, 4)))
    weight = paddle.to_tensor(rng.standard_normal((3, 1, 2, 2, 6)))
    x = paddle.sparse.sparse_coo_tensor(coords, values, [1, 3, 4, 4, 4])
    # multiplied first (more output sites than entries), gathered first (the input's sites), and traced
    for conv in (lambda x, w, groups: F.conv3d(x, w, padding=[1, 0, 1], groups=groups),
                 lambda x, w, groups: F.subm_conv3d(x, w, groups=groups),
                 paddle.jit(lambda x, w, groups: F.subm_conv3d(x, w, groups=groups), static_argnums=2)):
        out = conv(x, weight, 2)
        halves = [conv(paddle.sparse.sparse_coo_tensor(coords, values[:, 2 * g:2 * g + 2], [1, 3, 4, 4, 2]),
                       weight[..., 3 * g:3 * g + 3], 1) for g in range(2)]
        assert out.indices().numpy().tolist() == halves[0].indices().numpy().tolist()
        np.testing.assert_allclose(out.values().numpy(),
                                   np.concatenate([h.values().numpy() for h in halves], axis=1), rtol=1e-12)


def test_vmap_over_values_and_weights_matches_a_loop():
    values, weight, bias = _inputs("subm_conv3d")
    stacked_values = paddle.to_tensor(np.stack([values, 2 * values, -values]))
    stacked_weights = paddle.to_tensor(np.stack([weight, weight[::-1], 0.5 * weight]))
    got = paddle.vmap(lambda v, w: _apply("subm_conv3d", v, w, bias).values())(stacked_values, stacked_weights)
    for i in range(3):
        want = _apply("subm_conv3d", stacked_values[i], stacked_weights[i], bias).values()
        np.testing.assert_allclose(got[i].numpy(), want.numpy(), rtol=1e-12)


def test_jit_compiles_the_products_of_a_closed_over_input():
    values, weight, bias = _inputs("conv3d", "float32")
    x = paddle.sparse.sparse_coo_tensor(CASES["conv3d"]["coords"], values, CASES["conv3d"]["shape"])
    options = CASES["conv3d"]["options"]

    def layer(w, b):
        return F.conv3d(x, w, b, **options)

    w, b = paddle.to_tensor(weight.astype("float32")), paddle.to_tensor(bias.astype("float32"))
    compiled = paddle.jit(layer)(w, b)
    eager = layer(w, b)
    assert compiled.indices().numpy().tolist() == EXPECTED["conv3d"]["indices"]
    np.testing.assert_allclose(compiled.values().numpy(), eager.values().numpy(), rtol=1e-5, atol=1e-6)
    step = paddle.jit(paddle.grad(lambda w, b: _loss(layer(w, b)), argnums=(0, 1)))
    gw, gb = step(w, b)
    np.testing.assert_allclose(gw.numpy().ravel(), EXPECTED["conv3d"]["grad_weight"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gb.numpy(), EXPECTED["conv3d"]["grad_bias"], rtol=1e-4, atol=1e-5)


def test_a_traced_pattern_is_a_clear_error():
    values, weight, _ = _inputs("conv3d")
    x = paddle.sparse.sparse_coo_tensor(CASES["conv3d"]["coords"], values, CASES["conv3d"]["shape"])
    with pytest.raises(ConcretizationError, match="conv3d: the output's stored sites depend on the input's"):
        paddle.jit(lambda x: F.conv3d(x, paddle.to_tensor(weight)).values())(x)
    with pytest.raises(ConcretizationError, match="max_pool3d"):
        paddle.jit(lambda x: F.max_pool3d(x, 2).values())(x)


@pytest.mark.parametrize("kernel, dilation", [((3, 3, 3), 1), ((3, 1, 3), 2), ((2, 2, 2), 1)])
def test_submanifold_of_traced_coordinates_matches_eager(kernel, dilation):
    """A coalesced input passed into jit or vmap: the neighbours found by binary search give the rulebook's
    values, and gradients through the compiled form."""
    rng = np.random.default_rng(0)
    def cloud():
        coords = np.stack(np.nonzero(rng.random((2, 4, 5, 6)) < 0.3))[:, :60]
        return paddle.sparse.sparse_coo_tensor(coords, rng.standard_normal((60, 3)), [2, 4, 5, 6, 3])
    x, y = cloud(), cloud()
    w = paddle.to_tensor(rng.standard_normal(kernel + (3, 4)))

    def conv(x, w):
        return F.subm_conv3d(x, w, dilation=dilation)

    eager = conv(x, w)
    compiled = paddle.jit(conv)(x, w)
    assert compiled.indices().numpy().tolist() == x.indices().numpy().tolist()
    np.testing.assert_allclose(compiled.values().numpy(), eager.values().numpy(), rtol=1e-10, atol=1e-12)
    both = paddle.sparse.SparseCooTensor(paddle.stack([x.indices(), y.indices()]),
                                         paddle.stack([x.values(), y.values()]), x.shape)
    mapped = paddle.vmap(lambda s: conv(s, w).values())(both)
    for i, member in enumerate([x, y]):
        np.testing.assert_allclose(mapped[i].numpy(), conv(member, w).values().numpy(), rtol=1e-10, atol=1e-12)
    def loss(x, w):
        return (conv(x, w).values() ** 2).sum()
    g_compiled = paddle.jit(paddle.grad(loss, argnums=1))(x, w)
    np.testing.assert_allclose(g_compiled.numpy(), paddle.grad(loss, argnums=1)(x, w).numpy(), rtol=1e-10)


def test_bad_input_is_named():
    values, weight, _ = _inputs("subm_conv3d")
    x = paddle.sparse.sparse_coo_tensor(CASES["subm_conv3d"]["coords"], values, CASES["subm_conv3d"]["shape"])
    w = paddle.to_tensor(weight)
    with pytest.raises(ValueError, match="data_format must be 'NDHWC'"):
        F.conv3d(x, w, data_format="NCDHW")
    with pytest.raises(TypeError, match=r"conv3d: expects a 5-D COO Tensor .*to_sparse_coo\(4\)"):
        F.conv3d(x.to_dense(), w)
    with pytest.raises(TypeError, match="to_sparse_coo"):
        F.conv3d(x.to_dense().to_sparse_coo(5), w)
    with pytest.raises(ShapeError, match=r"weight \[1, 3, 2, 2\] must be \[\*kernel \(3 sizes\)"):
        F.subm_conv3d(x, w[0])
    with pytest.raises(TypeError, match="one float dtype"):
        F.conv3d(x, w.astype("float32"))
    with pytest.raises(ShapeError, match=r"bias \[3\] must be \[out_channels\] = \[2\]"):
        F.conv3d(x, w, paddle.zeros([3], "float64"))
    with pytest.raises(ShapeError, match="larger than the padded input"):
        F.conv3d(x, paddle.zeros([5, 1, 1, 2, 2], "float64"))
    with pytest.raises(ValueError, match="return_mask"):
        paddle.sparse.nn.MaxPool3D(2, return_mask=True)
    with pytest.raises(ValueError, match="padding_mode must be 'zeros'"):
        paddle.sparse.nn.Conv3D(2, 2, 3, padding_mode="reflect")


def test_submanifold_keeps_sites_and_key_reuses_the_rulebook():
    values, weight, _ = _inputs("subm_conv3d")
    x = paddle.sparse.sparse_coo_tensor(CASES["subm_conv3d"]["coords"], values, CASES["subm_conv3d"]["shape"])
    w = paddle.to_tensor(weight)
    # as Paddle 3.3: stride and padding do not apply to a submanifold convolution
    same = F.subm_conv3d(x, w, stride=2, padding=0)
    np.testing.assert_array_equal(same.values().numpy(), F.subm_conv3d(x, w).values().numpy())
    first = F.subm_conv3d(x, w, key="block")
    assert first.indices() is x.indices()  # a coalesced input's own index Tensor
    shape, geometry = x.shape, rulebook.submanifold_geometry((3, 4, 4), (3, 1, 3), 1)
    coords = x.indices().numpy()
    kept = rulebook.rulebook_for(x.indices(), coords, shape, geometry, True, "block")
    assert rulebook.rulebook_for(first.indices(), coords, shape, geometry, True, "block") is kept
    assert rulebook.rulebook_for(x.indices(), coords, shape, geometry, True, None) is not kept
    # an unsorted input with a repeated coordinate: sorted unique sites, the repeats added (paddle 3.3.1)
    dup = paddle.sparse.sparse_coo_tensor([[1, 0, 0, 0, 1], [0, 1, 1, 2, 0], [1, 3, 2, 0, 1]],
                                          [[1.], [2.], [3.], [4.], [5.]], [2, 5, 5, 1])
    out = F.subm_conv2d(dup, paddle.ones([3, 3, 1, 1]))
    assert out.indices().numpy().tolist() == [[0, 0, 0, 1], [1, 1, 2, 0], [2, 3, 0, 1]]
    assert out.values().numpy().ravel().tolist() == [5.0, 5.0, 4.0, 6.0]


def test_padding_forms_and_max_pool_of_negative_values():
    values, weight, bias = _inputs("conv2d")
    x = paddle.sparse.sparse_coo_tensor(CASES["conv2d"]["coords"], values, CASES["conv2d"]["shape"])
    w = paddle.to_tensor(weight)
    ref = F.conv2d(x, w, padding=[1, 2])
    for same in ([1, 1, 2, 2], [[0, 0], [1, 1], [2, 2], [0, 0]]):
        out = F.conv2d(x, w, padding=same)
        assert out.shape == ref.shape == [1, 5, 7, 3]
        np.testing.assert_array_equal(out.values().numpy(), ref.values().numpy())
    # an asymmetric padding moves the sites (Paddle 3.3 reads the first two of four numbers as (h, w))
    assert F.conv2d(x, w, padding=[0, 2, 1, 0]).shape == [1, 5, 4, 3]
    # padding='SAME' keeps ceil(size / stride) sites per axis, as the dense conv2d (Paddle 3.3's sparse one pads 0)
    assert F.conv2d(x, w, stride=2, padding="SAME").shape == [1, 3, 3, 3]
    # the sites not stored take no part in a max: the largest of -1 and -3 is -1, not 0 (paddle 3.3.1)
    neg = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 0], [0, 1]], [[-1.], [-3.]], [1, 1, 2, 2, 1])
    assert F.max_pool3d(neg, [1, 2, 2]).values().numpy().tolist() == [[-1.0]]
    # ceil_mode counts the last, partial window (Paddle 3.3's sparse max_pool3d ignores it)
    assert F.max_pool3d(neg, [1, 2, 2], stride=[1, 2, 2], ceil_mode=True).shape == [1, 1, 1, 1, 1]
    big = paddle.sparse.sparse_coo_tensor([[0], [0], [2], [2]], [[7.]], [1, 1, 3, 3, 1])
    assert F.max_pool3d(big, [1, 2, 2], ceil_mode=True).indices().numpy().ravel().tolist() == [0, 0, 1, 1]


def test_layers_hold_paddles_parameters_and_train():
    paddle.seed(0)
    conv = paddle.sparse.nn.SubmConv3D(2, 4, 3, key="stem")
    down = paddle.sparse.nn.Conv3D(4, 3, 2, stride=2, bias_attr=False)
    assert conv.weight.shape == [3, 3, 3, 2, 4] and conv.bias.shape == [4] and down.bias is None
    # Paddle's default: Normal(0, sqrt(2 / (in_channels * prod(kernel_size))))
    assert abs(float(conv.weight.numpy().std()) - (2 / 54) ** 0.5) < 0.05
    assert paddle.sparse.nn.Conv2D(2, 3, [1, 3]).weight.shape == [1, 3, 2, 3]
    assert paddle.sparse.nn.SubmConv2D(2, 3, 3, backend="igemm").weight.shape == [3, 3, 2, 3]
    values, _, _ = _inputs("subm_conv3d", "float32")
    x = paddle.sparse.sparse_coo_tensor(CASES["subm_conv3d"]["coords"], values, CASES["subm_conv3d"]["shape"])
    pool = paddle.sparse.nn.MaxPool3D(kernel_size=[1, 2, 2])
    params = conv.parameters() + down.parameters()
    opt = paddle.optimizer.SGD(learning_rate=0.05, parameters=params)
    losses = []
    for _ in range(5):
        out = pool(down(paddle.sparse.nn.functional.relu(conv(x))))
        loss = (out.values() ** 2).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < losses[0]
