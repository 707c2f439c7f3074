"""paddle_fn.nn.functional against numpy references, Paddle's semantics where they differ from other libraries,
and composition with grad, vmap and jit."""
import doctest
import importlib
import itertools
import pkgutil

import numpy as np
import pytest
import scipy.special as sps

import paddle_fn as pf
import paddle_fn.nn.functional as F
from paddle_fn import random
from paddle_fn.core.errors import ConcretizationError, ShapeError
from paddle_fn.core.staging import trace_to_program
from paddle_fn.core.trace import get_aval
from optable.conv import NCHW, _ref_conv

RNG = np.random.default_rng(0)


def tt(a):
    return pf.to_tensor(np.asarray(a))


def close(out, expected, rtol=1e-6, atol=1e-9):
    expected = np.asarray(expected)
    assert out.shape == list(expected.shape), (out.shape, expected.shape)
    np.testing.assert_allclose(out.numpy().astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol)


def test_every_family_module_has_examples():
    """tests/test_docs.py runs them (with its float tolerance); here: they are there, one per function."""
    modules = [F] + [importlib.import_module(f"{F.__name__}.{m.name}") for m in pkgutil.iter_modules(F.__path__)]
    tests = [t for mod in modules for t in doctest.DocTestFinder(exclude_empty=True).find(mod, mod.__name__)]
    assert len(tests) >= 95


# ---------------------------------------------------------------------------------------------- activations

X = RNG.normal(size=(3, 5)) * 3
ACTIVATIONS = [
    ("relu", {}, lambda a: np.maximum(a, 0)),
    ("relu6", {}, lambda a: np.clip(a, 0, 6)),
    ("elu", {"alpha": 0.5}, lambda a: np.where(a > 0, a, 0.5 * np.expm1(a))),
    ("selu", {}, lambda a: 1.0507009873554805 * np.where(a > 0, a, 1.6732632423543772 * np.expm1(a))),
    ("celu", {"alpha": 2.0}, lambda a: np.maximum(a, 0) + np.minimum(0, 2.0 * np.expm1(a / 2.0))),
    ("gelu", {}, lambda a: 0.5 * a * (1 + sps.erf(a / np.sqrt(2)))),
    ("gelu", {"approximate": True}, lambda a: 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a ** 3)))),
    ("silu", {}, lambda a: a * sps.expit(a)),
    ("swish", {}, lambda a: a * sps.expit(a)),
    ("mish", {}, lambda a: a * np.tanh(np.log1p(np.exp(a)))),
    ("hardswish", {}, lambda a: a * np.clip(a + 3, 0, 6) / 6),
    ("hardsigmoid", {}, lambda a: np.clip(a * 0.1666667 + 0.5, 0, 1)),
    ("hardtanh", {"min": -0.5, "max": 2.0}, lambda a: np.clip(a, -0.5, 2.0)),
    ("hardshrink", {"threshold": 1.0}, lambda a: np.where(np.abs(a) > 1.0, a, 0)),
    ("softshrink", {"threshold": 1.0}, lambda a: np.where(a > 1, a - 1, np.where(a < -1, a + 1, 0))),
    ("thresholded_relu", {"threshold": 0.5}, lambda a: np.where(a > 0.5, a, 0)),
    ("leaky_relu", {"negative_slope": 0.2}, lambda a: np.where(a > 0, a, 0.2 * a)),
    ("softplus", {"beta": 2, "threshold": 3}, lambda a: np.where(2 * a > 3, a, np.log1p(np.exp(2 * a)) / 2)),
    ("softsign", {}, lambda a: a / (1 + np.abs(a))),
    ("tanhshrink", {}, lambda a: a - np.tanh(a)),
    ("log_sigmoid", {}, lambda a: -np.log1p(np.exp(-a))),
    ("sigmoid", {}, sps.expit),
    ("tanh", {}, np.tanh),
    ("softmax", {"axis": 0}, lambda a: sps.softmax(a, axis=0)),
    ("log_softmax", {}, lambda a: sps.log_softmax(a, axis=-1)),
]


@pytest.mark.parametrize("name, kwargs, ref", ACTIVATIONS, ids=[f"{a[0]}{len(a[1])}" for a in ACTIVATIONS])
def test_activations(name, kwargs, ref):
    close(getattr(F, name)(tt(X), **kwargs), ref(X), rtol=1e-6)


def test_prelu_maxout_and_softmax_dtype():
    x = RNG.normal(size=(2, 3, 4))
    w = np.array([0.1, 0.2, 0.3])
    close(F.prelu(tt(x), tt(w)), np.where(x > 0, x, w[None, :, None] * x))
    close(F.prelu(tt(x.transpose(0, 2, 1)), tt(w), data_format="NLC"),
          np.where(x > 0, x, w[None, :, None] * x).transpose(0, 2, 1))
    close(F.maxout(tt(x.reshape(2, 12)), 3), x.reshape(2, 4, 3).max(-1))
    out = F.softmax(pf.to_tensor([[1, 2]]), dtype="float64")
    assert out.dtype == "float64"
    with pytest.raises(ShapeError, match="channels"):
        F.prelu(tt(x), tt(np.ones(4)))


# ---------------------------------------------------------------------------------------------- linear, embedding

def test_linear_uses_paddle_weight_layout():
    x, w, b = RNG.normal(size=(2, 3)), RNG.normal(size=(3, 4)), RNG.normal(size=4)
    close(F.linear(tt(x), tt(w), tt(b)), x @ w + b)
    close(F.linear(tt(x), tt(w)), x @ w)


def test_embedding_padding_idx_gives_zero_rows_and_gradient():
    w = RNG.normal(size=(5, 3))
    ids = np.array([[0, 4], [-1 + 5, 2]])
    close(F.embedding(tt(ids), tt(w)), w[ids])
    out = F.embedding(tt(ids), tt(w), padding_idx=-1)
    close(out, np.where((ids == 4)[..., None], 0, w[ids]))
    g = pf.grad(lambda v: F.embedding(tt(ids), v, padding_idx=4).sum())(tt(w))
    expected = np.zeros_like(w)
    np.add.at(expected, ids[ids != 4], 1.0)
    close(g, expected)


def test_one_hot_cosine_pairwise_label_smooth_normalize():
    close(F.one_hot(pf.to_tensor([[1], [3]]), 4), np.eye(4, dtype=np.float32)[[[1], [3]]])
    a, b = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
    cos = (a * b).sum(1) / np.sqrt(np.maximum((a * a).sum(1) * (b * b).sum(1), 1e-16))
    close(F.cosine_similarity(tt(a), tt(b)), cos, rtol=1e-10)
    close(F.pairwise_distance(tt(a), tt(b)), np.linalg.norm(a - b + 1e-6, axis=-1), rtol=1e-10)
    close(F.pairwise_distance(tt(a), tt(b), p=1, keepdim=True), np.abs(a - b + 1e-6).sum(-1, keepdims=True),
          rtol=1e-10)
    onehot = np.eye(3)[[0, 2]]
    close(F.label_smooth(tt(onehot), epsilon=0.3), 0.7 * onehot + 0.1, rtol=1e-10)
    prior = np.array([0.5, 0.25, 0.25])
    close(F.label_smooth(tt(onehot), tt(prior), epsilon=0.3), 0.7 * onehot + 0.3 * prior, rtol=1e-10)
    close(F.normalize(tt(a)), a / np.linalg.norm(a, axis=1, keepdims=True), rtol=1e-10)
    close(F.normalize(tt(a), p=1, axis=0), a / np.abs(a).sum(0, keepdims=True), rtol=1e-10)


# ---------------------------------------------------------------------------------------------- dropout

def test_dropout_with_key_is_deterministic_and_scaled():
    x = pf.ones([1000])
    a = F.dropout(x, 0.3, key=random.key(0)).numpy()
    b = F.dropout(x, 0.3, key=random.key(0)).numpy()
    assert np.array_equal(a, b)
    assert set(np.unique(a)) <= {0.0, np.float32(1 / 0.7)}
    assert abs((a == 0).mean() - 0.3) < 0.05
    down = F.dropout(x, 0.3, key=random.key(0), mode="downscale_in_infer").numpy()
    assert set(np.unique(down)) <= {0.0, 1.0}
    close(F.dropout(x, 0.3, training=False, mode="downscale_in_infer"), np.full(1000, 0.7, np.float32))
    close(F.dropout(x, 0.3, training=False), np.ones(1000, np.float32))
    close(F.dropout(x, 1.0, key=random.key(0)), np.zeros(1000, np.float32))
    rows = F.dropout(pf.ones([50, 4]), 0.5, axis=0, key=random.key(1)).numpy()
    assert all(len(set(r)) == 1 for r in rows)  # the mask varies along axis 0 only


def test_dropout_global_rng_is_eager_only_and_follows_seed():
    pf.seed(3)
    a = F.dropout(pf.ones([20]), 0.5).numpy()
    pf.seed(3)
    assert np.array_equal(a, F.dropout(pf.ones([20]), 0.5).numpy())
    g = pf.grad(lambda v: F.dropout(v, 0.5).sum())(pf.ones([20]))  # grad keeps primals concrete
    assert set(np.unique(g.numpy())) <= {0.0, 2.0}
    with pytest.raises(ConcretizationError, match="key="):
        pf.jit(lambda v: F.dropout(v, 0.5))(pf.ones([4]))
    with pytest.raises(ConcretizationError, match="key="):
        pf.vmap(lambda v: F.dropout(v, 0.5))(pf.ones([2, 4]))
    keys = random.split(random.key(0), 2)
    out = pf.vmap(lambda k, v: F.dropout(v, 0.5, key=k))(keys, pf.ones([2, 64])).numpy()
    assert not np.array_equal(out[0], out[1])
    jitted = pf.jit(lambda k, v: F.dropout(v, 0.5, key=k))(random.key(5), pf.ones([16]))
    close(jitted, F.dropout(pf.ones([16]), 0.5, key=random.key(5)).numpy())


# ---------------------------------------------------------------------------------------------- convolution

PADDINGS = [(0, ((0, 0), (0, 0))), (1, ((1, 1), (1, 1))), ([1, 2], ((1, 1), (2, 2))),
            ([1, 0, 2, 1], ((1, 0), (2, 1))), ([[0, 0], [0, 0], [1, 0], [0, 2]], ((1, 0), (0, 2)))]


@pytest.mark.parametrize("padding, pairs", PADDINGS, ids=[str(p[0]) for p in PADDINGS])
def test_conv2d_padding_forms_and_layouts(padding, pairs):
    x, w, b = RNG.normal(size=(2, 4, 7, 6)), RNG.normal(size=(6, 2, 3, 2)), RNG.normal(size=6)
    ref = _ref_conv(x, w, (2, 1), pairs, (1, 1), (1, 2), NCHW, 2) + b[None, :, None, None]
    close(F.conv2d(tt(x), tt(w), tt(b), stride=[2, 1], padding=padding, dilation=[1, 2], groups=2), ref,
          rtol=1e-10, atol=1e-10)
    if not (isinstance(padding, list) and isinstance(padding[0], list)):
        out = F.conv2d(tt(x.transpose(0, 2, 3, 1)), tt(w), tt(b), stride=[2, 1], padding=padding, dilation=[1, 2],
                       groups=2, data_format="NHWC")
        close(out, ref.transpose(0, 2, 3, 1), rtol=1e-10, atol=1e-10)


def test_conv_same_valid_and_conv1d():
    x, w = RNG.normal(size=(1, 2, 7, 5)), RNG.normal(size=(3, 2, 3, 2))
    same = F.conv2d(tt(x), tt(w), stride=2, padding="SAME")
    assert same.shape == [1, 3, 4, 3]
    # SAME pads total = (out - 1) * stride + k - in, the smaller half first
    close(same, _ref_conv(x, w, (2, 2), ((1, 1), (0, 1)), (1, 1), (1, 1), NCHW), rtol=1e-10)
    close(F.conv2d(tt(x), tt(w), padding="valid"), _ref_conv(x, w, (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1), NCHW),
          rtol=1e-10)
    x1, w1 = RNG.normal(size=(2, 3, 9)), RNG.normal(size=(4, 3, 3))
    from optable.conv import NCL
    close(F.conv1d(tt(x1), tt(w1), stride=2, padding=1),
          _ref_conv(x1, w1, (2,), ((1, 1),), (1,), (1,), NCL), rtol=1e-10)
    close(F.conv1d(tt(x1.transpose(0, 2, 1)), tt(w1), data_format="NLC"),
          _ref_conv(x1, w1, (1,), ((0, 0),), (1,), (1,), NCL).transpose(0, 2, 1), rtol=1e-10)
    with pytest.raises(ShapeError, match="channels"):
        F.conv2d(pf.ones([1, 3, 4, 4]), pf.ones([2, 2, 3, 3]))


@pytest.mark.parametrize("stride, padding, output_padding, dilation, groups",
                         [(2, 1, 1, 1, 1), (3, 0, 2, 1, 2), (2, [1, 0], 0, 2, 2), (2, "SAME", 0, 1, 1)])
def test_conv2d_transpose_is_the_input_gradient_of_conv2d(stride, padding, output_padding, dilation, groups):
    w = RNG.normal(size=(4, 3, 3, 2))
    y = RNG.normal(size=(2, 4, 5, 4))
    out = F.conv2d_transpose(tt(y), tt(w), stride=stride, padding=padding, output_padding=output_padding,
                             dilation=dilation, groups=groups)
    x0 = pf.zeros([2, 3 * groups] + out.shape[2:], dtype="float64")
    fwd, vjp = pf.vjp(lambda v: F.conv2d(v, tt(w), stride=stride, padding=padding, dilation=dilation,
                                         groups=groups), x0)
    assert fwd.shape == list(y.shape)
    close(out, vjp(tt(y))[0].numpy(), rtol=1e-10, atol=1e-10)


def test_conv_transpose_output_size_and_1d():
    close(F.conv1d_transpose(pf.to_tensor([[[1.0, 2.0]]]), pf.to_tensor([[[1.0, 10.0]]]), stride=2),
          np.array([[[1.0, 10.0, 2.0, 20.0]]]))
    out = F.conv2d_transpose(pf.ones([1, 2, 4, 4]), pf.ones([2, 3, 3, 3]), stride=2, padding=1, output_size=[8, 7])
    assert out.shape == [1, 3, 8, 7]
    with pytest.raises(ValueError, match="output_size"):
        F.conv2d_transpose(pf.ones([1, 2, 4, 4]), pf.ones([2, 3, 3, 3]), stride=2, padding=1, output_size=[9, 9])


# ---------------------------------------------------------------------------------------------- pooling

def _np_pool(x, k, s, pads, reduce, count_pad=False, ceil=False):
    n = len(k)
    outs = []
    for size, kk, ss, (lo, hi) in zip(x.shape[2:], k, s, pads):
        span = size + lo + hi - kk
        outs.append((-(-span // ss) if ceil else span // ss) + 1)
    out = np.zeros(x.shape[:2] + tuple(outs))
    for pos in itertools.product(*map(range, outs)):
        sl, count = [], 1
        for d in range(n):
            start = pos[d] * s[d] - pads[d][0]
            lo_, hi_ = max(start, 0), min(start + k[d], x.shape[2 + d])
            sl.append(slice(lo_, hi_))
            count *= (min(start + k[d], x.shape[2 + d] + pads[d][1]) - start) if count_pad else (hi_ - lo_)
        window = x[(slice(None), slice(None)) + tuple(sl)].reshape(x.shape[:2] + (-1,))
        out[(slice(None), slice(None)) + pos] = window.max(-1) if reduce == "max" else window.sum(-1) / count
    return out


@pytest.mark.parametrize("k, s, p, ceil", [(2, None, 0, False), (3, 2, 1, False), (3, 2, 0, True), ([2, 3], [1, 2],
                                                                                                     [1, 0], True)])
def test_max_and_avg_pool2d(k, s, p, ceil):
    x = RNG.normal(size=(2, 3, 7, 8))
    kk = [k, k] if isinstance(k, int) else k
    ss = kk if s is None else ([s, s] if isinstance(s, int) else s)
    pp = [(p, p)] * 2 if isinstance(p, int) else [(v, v) for v in p]
    close(F.max_pool2d(tt(x), k, s, p, ceil_mode=ceil), _np_pool(x, kk, ss, pp, "max", ceil=ceil))
    close(F.avg_pool2d(tt(x), k, s, p, ceil_mode=ceil), _np_pool(x, kk, ss, pp, "avg", ceil=ceil), rtol=1e-10)
    if not ceil:
        close(F.avg_pool2d(tt(x), k, s, p, exclusive=False), _np_pool(x, kk, ss, pp, "avg", count_pad=True),
              rtol=1e-10)
    nhwc = F.max_pool2d(tt(x.transpose(0, 2, 3, 1)), k, s, p, ceil_mode=ceil, data_format="NHWC")
    close(nhwc, _np_pool(x, kk, ss, pp, "max", ceil=ceil).transpose(0, 2, 3, 1))


def test_pool1d_adaptive_and_divisor():
    x = RNG.normal(size=(2, 3, 9))
    close(F.max_pool1d(tt(x), 3, 2, 1), _np_pool(x, [3], [2], [(1, 1)], "max"))
    close(F.avg_pool1d(tt(x), 2), _np_pool(x, [2], [2], [(0, 0)], "avg"), rtol=1e-10)
    x2 = RNG.normal(size=(2, 3, 7, 5))
    close(F.avg_pool2d(tt(x2), 2, divisor_override=3), _np_pool(x2, [2, 2], [2, 2], [(0, 0)] * 2, "avg") * 4 / 3,
          rtol=1e-10)

    def bins(n, out):
        return [(i * n // out, -(-(i + 1) * n // out)) for i in range(out)]

    expect_avg = np.stack([np.stack([x2[:, :, a:b, c:d].mean((2, 3)) for c, d in bins(5, 2)], -1)
                           for a, b in bins(7, 3)], -2)
    close(F.adaptive_avg_pool2d(tt(x2), [3, 2]), expect_avg, rtol=1e-10)
    expect_max = np.stack([np.stack([x2[:, :, a:b, c:d].max((2, 3)) for c, d in bins(5, 2)], -1)
                           for a, b in bins(7, 3)], -2)
    close(F.adaptive_max_pool2d(tt(x2), [3, 2]), expect_max)
    close(F.adaptive_avg_pool2d(tt(x2), 1), x2.mean((2, 3), keepdims=True), rtol=1e-10)
    close(F.adaptive_avg_pool2d(tt(x2.transpose(0, 2, 3, 1)), [3, None], data_format="NHWC"),
          np.stack([x2[:, :, a:b].mean(2) for a, b in bins(7, 3)], 2).transpose(0, 2, 3, 1), rtol=1e-10)
    close(F.adaptive_avg_pool1d(tt(x), 4), np.stack([x[:, :, a:b].mean(-1) for a, b in bins(9, 4)], -1), rtol=1e-10)
    close(F.adaptive_max_pool1d(tt(x), 4), np.stack([x[:, :, a:b].max(-1) for a, b in bins(9, 4)], -1))


# ---------------------------------------------------------------------------------------------- normalization

def test_layer_norm():
    x, w, b = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    mu, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    close(F.layer_norm(tt(x), [3, 4], tt(w), tt(b)), (x - mu) / np.sqrt(var + 1e-5) * w + b, rtol=1e-10)
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    close(F.layer_norm(tt(x), 4, epsilon=1e-3), (x - mu) / np.sqrt(var + 1e-3), rtol=1e-10)


@pytest.mark.parametrize("norm, sums_expected", [("layer_norm", 4), ("batch_norm", 6)])
def test_normalization_gradient_sums_over_the_normalized_axes_once_per_statistic(norm, sums_expected):
    """The mean and the variance, then two sums in the backward (batch_norm: two more, its weight's and bias's
    gradients, which sum over the same axes): the normalized input is the centered one scaled, so the mean's
    gradient is one sum. Subtracting the mean twice gave one more sum, two more compiled dispatches."""
    x = tt(RNG.normal(size=(6, 5)))
    w, b = tt(RNG.normal(size=5)), tt(RNG.normal(size=5))
    if norm == "layer_norm":
        normalize, statistics_axes = (lambda x, w, b: F.layer_norm(x, 5, w, b)), (1,)
    else:
        normalize, statistics_axes = (lambda x, w, b: F.batch_norm(x, pf.zeros([5]), pf.ones([5]), w, b,
                                                                   training=True)), (0,)
    loss = lambda x, w, b: pf.sum(pf.tanh(normalize(x, w, b)))  # noqa: E731
    prog, _ = trace_to_program(lambda *a: list(pf.grad(loss, argnums=(0, 1, 2))(*a)),
                               [get_aval(a) for a in (x, w, b)])
    sums = [e.params["axes"] for e in prog.eqns if e.prim.name == "reduce_sum"]
    assert sums.count(statistics_axes) == sums_expected, sums
    grads = pf.grad(loss, argnums=(0, 1, 2))(x, w, b)
    numeric = [np.zeros(a.shape) for a in (x, w, b)]
    arrays = [a.numpy().copy() for a in (x, w, b)]
    for k, array in enumerate(arrays):
        for index in np.ndindex(array.shape):
            shifted = [a.copy() for a in arrays]
            shifted[k][index] += 1e-6
            up = float(loss(*map(tt, shifted)))
            shifted[k][index] -= 2e-6
            numeric[k][index] = (up - float(loss(*map(tt, shifted)))) / 2e-6
    for got, want in zip(grads, numeric):
        close(got, want, rtol=1e-5, atol=1e-7)


def test_batch_norm_training_inference_and_running_stats():
    x = RNG.normal(size=(4, 3, 2, 2))
    rm, rv, w, b = RNG.normal(size=3), RNG.uniform(0.5, 2, size=3), RNG.normal(size=3), RNG.normal(size=3)
    c = (slice(None), None, None)
    out = F.batch_norm(tt(x), tt(rm), tt(rv), tt(w), tt(b))  # inference: running statistics
    close(out, (x - rm[c]) / np.sqrt(rv[c] + 1e-5) * w[c] + b[c], rtol=1e-10)
    out, new_mean, new_var = F.batch_norm_with_stats(tt(x), tt(rm), tt(rv), tt(w), tt(b), training=True,
                                                     momentum=0.8)
    mu, var = x.mean((0, 2, 3)), x.var((0, 2, 3))  # Paddle: biased batch variance, also for the running value
    close(out, (x - mu[c]) / np.sqrt(var[c] + 1e-5) * w[c] + b[c], rtol=1e-10)
    m = float(np.float32(0.8))  # Paddle's kernel takes momentum as a float32 attribute, in float64 too
    close(new_mean, m * rm + (1 - m) * mu, rtol=1e-14)
    close(new_var, m * rv + (1 - m) * var, rtol=1e-14)
    nhwc = F.batch_norm(tt(x.transpose(0, 2, 3, 1)), tt(rm), tt(rv), training=True, data_format="NHWC")
    close(nhwc, ((x - mu[c]) / np.sqrt(var[c] + 1e-5)).transpose(0, 2, 3, 1), rtol=1e-10)
    frozen = F.batch_norm(tt(x), tt(rm), tt(rv), training=True, use_global_stats=True)
    close(frozen, (x - rm[c]) / np.sqrt(rv[c] + 1e-5), rtol=1e-10)


def test_instance_and_group_norm():
    x = RNG.normal(size=(2, 4, 3, 3))
    mu, var = x.mean((2, 3), keepdims=True), x.var((2, 3), keepdims=True)
    close(F.instance_norm(tt(x)), (x - mu) / np.sqrt(var + 1e-5), rtol=1e-10)
    g = x.reshape(2, 2, 2, 3, 3)
    mu, var = g.mean((2, 3, 4), keepdims=True), g.var((2, 3, 4), keepdims=True)
    close(F.group_norm(tt(x), 2), ((g - mu) / np.sqrt(var + 1e-5)).reshape(x.shape), rtol=1e-10)


# ---------------------------------------------------------------------------------------------- pad, interpolate

def test_pad_modes_and_paddle_pad_order():
    x = RNG.normal(size=(1, 2, 3, 4))
    # spatial form: [left, right, top, bottom] -- the last dim first
    close(F.pad(tt(x), [1, 2, 0, 1]), np.pad(x, ((0, 0), (0, 0), (0, 1), (1, 2))))
    close(F.pad(tt(x), [1, 2, 0, 1], mode="reflect"), np.pad(x, ((0, 0), (0, 0), (0, 1), (1, 2)), mode="reflect"))
    close(F.pad(tt(x), [1, 2, 2, 1], mode="replicate"), np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 2)), mode="edge"))
    close(F.pad(tt(x), [3, 2, 2, 1], mode="circular"), np.pad(x, ((0, 0), (0, 0), (2, 1), (3, 2)), mode="wrap"))
    close(F.pad(tt(x.transpose(0, 2, 3, 1)), [1, 2, 0, 1], mode="reflect", data_format="NHWC"),
          np.pad(x, ((0, 0), (0, 0), (0, 1), (1, 2)), mode="reflect").transpose(0, 2, 3, 1))
    # constant with 2 * ndim entries: every dim, first dim first
    close(F.pad(tt(x), [1, 0, 0, 0, 0, 2, 1, 1], value=7.0), np.pad(x, ((1, 0), (0, 0), (0, 2), (1, 1)),
                                                                    constant_values=7.0))
    close(F.zeropad2d(tt(x), 1), np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))))
    with pytest.raises(ValueError, match="reflect"):
        F.pad(tt(x), [4, 0, 0, 0], mode="reflect")


def test_interpolate_nearest_and_bilinear():
    x = np.array([[[[1.0, 2.0], [3.0, 4.0]]]])
    # half-pixel centres (align_corners=False, align_mode=0), as Paddle and torch
    close(F.interpolate(tt(x), scale_factor=2, mode="bilinear"),
          np.array([[[[1, 1.25, 1.75, 2], [1.5, 1.75, 2.25, 2.5], [2.5, 2.75, 3.25, 3.5], [3, 3.25, 3.75, 4]]]]),
          rtol=1e-12)
    close(F.interpolate(tt(x), size=[3, 3], mode="bilinear", align_corners=True),
          np.array([[[[1, 1.5, 2], [2, 2.5, 3], [3, 3.5, 4]]]]), rtol=1e-12)
    close(F.interpolate(tt(x), scale_factor=2, mode="bilinear", align_mode=1),
          np.array([[[[1, 1.5, 2, 2], [2, 2.5, 3, 3], [3, 3.5, 4, 4], [3, 3.5, 4, 4]]]]), rtol=1e-12)
    close(F.interpolate(tt(x), size=[3, 5]), x[:, :, [0, 0, 1]][:, :, :, [0, 0, 0, 1, 1]])
    close(F.interpolate(tt(x), size=[3, 3], align_corners=True), x[:, :, [0, 1, 1]][:, :, :, [0, 1, 1]])
    close(F.interpolate(tt(x.transpose(0, 2, 3, 1)), scale_factor=2, data_format="NHWC"),
          x.repeat(2, 2).repeat(2, 3).transpose(0, 2, 3, 1))
    line = np.array([[[0.0, 3.0]]])
    close(F.interpolate(tt(line), size=4, mode="linear", align_corners=True, data_format="NCW"),
          np.array([[[0.0, 1.0, 2.0, 3.0]]]), rtol=1e-12)
    with pytest.raises(ShapeError, match="bilinear"):
        F.interpolate(tt(line), size=4, mode="bilinear", data_format="NCW")


def _bicubic_reference(x, out_h, out_w, align_corners):
    """Bicubic resampling of NCHW `x`, pixel by pixel from the cubic convolution kernel's piecewise definition
    (a = -0.75, Paddle's), edge taps clamped; one output (a size of 1) reads source coordinate -0.5, as Paddle."""
    def kernel(d):
        d, a = abs(d), -0.75
        return (a + 2) * d ** 3 - (a + 3) * d ** 2 + 1 if d <= 1 else a * d ** 3 - 5 * a * d ** 2 + 8 * a * d - 4 * a

    def source(i, size, out):
        if out == 1:
            return 0.0 if align_corners else -0.5
        return i * (size - 1) / (out - 1) if align_corners else (i + 0.5) * size / out - 0.5
    h, w = x.shape[2:]
    out = np.zeros(x.shape[:2] + (out_h, out_w))
    for oy in range(out_h):
        for ox in range(out_w):
            sy, sx = source(oy, h, out_h), source(ox, w, out_w)
            for ty in range(int(np.floor(sy)) - 1, int(np.floor(sy)) + 3):
                for tx in range(int(np.floor(sx)) - 1, int(np.floor(sx)) + 3):
                    out[:, :, oy, ox] += (kernel(sy - ty) * kernel(sx - tx) *
                                          x[:, :, min(max(ty, 0), h - 1), min(max(tx, 0), w - 1)])
    return out


def test_interpolate_bicubic_and_area_as_paddle():
    x = RNG.normal(size=(2, 3, 5, 7))
    for size, align_corners in (([9, 4], False), ([9, 4], True), ([3, 11], False), ([1, 1], False), ([5, 7], True)):
        close(F.interpolate(tt(x), size=size, mode="bicubic", align_corners=align_corners),
              _bicubic_reference(x, *size, align_corners), rtol=1e-10, atol=1e-12)
    close(F.interpolate(tt(x.transpose(0, 2, 3, 1)), size=[4, 6], mode="bicubic", data_format="NHWC"),
          _bicubic_reference(x, 4, 6, False).transpose(0, 2, 3, 1), rtol=1e-10, atol=1e-12)
    # area: the adaptive average pool to `size`; as in Paddle 3.3, the input is read as channels first
    close(F.interpolate(tt(x), size=[2, 3], mode="area"), F.adaptive_avg_pool2d(tt(x), [2, 3]).numpy())
    close(F.interpolate(tt(x), size=[5, 1], mode="area"), x.mean(axis=3, keepdims=True))
    close(F.interpolate(tt(x), size=[2, 2], mode="area", data_format="NHWC"),
          F.adaptive_avg_pool2d(tt(x), 2).numpy())
    volume = RNG.normal(size=(1, 2, 4, 6, 5))
    close(F.interpolate(tt(volume), size=[2, 3, 5], mode="area"), F.adaptive_avg_pool3d(tt(volume), [2, 3, 5]).numpy())
    close(pf.nn.Upsample(size=[10, 14], mode="bicubic")(tt(x)), _bicubic_reference(x, 10, 14, False),
          rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="mode 'area' needs size"):
        F.interpolate(tt(x), scale_factor=2, mode="area")
    with pytest.raises(ShapeError, match="'bicubic' needs a 4-D input"):
        F.interpolate(tt(volume), size=[2, 3, 5], mode="bicubic")
    with pytest.raises(ValueError, match="use nearest, linear, bilinear, trilinear, bicubic or area"):
        F.interpolate(tt(x), size=[2, 2], mode="lanczos")


def test_pixel_shuffle_and_unfold():
    x = RNG.normal(size=(1, 8, 2, 3))
    expected = x.reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6)
    close(F.pixel_shuffle(tt(x), 2), expected)
    img = RNG.normal(size=(1, 2, 3, 4))
    cols = F.unfold(tt(img), [2, 2])
    patches = [img[0, :, i:i + 2, j:j + 2].reshape(-1) for i in range(2) for j in range(3)]
    close(cols, np.stack(patches, -1)[None], rtol=1e-10)


# ---------------------------------------------------------------------------------------------- losses

LOGITS = RNG.normal(size=(5, 4))
LABELS = np.array([0, 3, 1, 1, 2])
LOGP = sps.log_softmax(LOGITS, axis=1)
NLL = -LOGP[np.arange(5), LABELS]


def test_cross_entropy_hard_labels_shapes_and_reductions():
    close(F.cross_entropy(tt(LOGITS), tt(LABELS)), NLL.mean(), rtol=1e-10)
    close(F.cross_entropy(tt(LOGITS), tt(LABELS[:, None])), NLL.mean(), rtol=1e-10)
    close(F.cross_entropy(tt(LOGITS), tt(LABELS), reduction="none"), NLL, rtol=1e-10)  # [N] label -> [N]
    close(F.cross_entropy(tt(LOGITS), tt(LABELS[:, None]), reduction="none"), NLL[:, None], rtol=1e-10)
    close(F.cross_entropy(tt(LOGITS), tt(LABELS), reduction="sum"), NLL.sum(), rtol=1e-10)
    probs = sps.softmax(LOGITS, axis=1)
    close(F.cross_entropy(tt(probs), tt(LABELS), use_softmax=False), NLL.mean(), rtol=1e-10)


def test_cross_entropy_weight_and_ignore_index_follow_paddle():
    w = np.array([1.0, 2.0, 0.5, 3.0])
    wl = w[LABELS]
    close(F.cross_entropy(tt(LOGITS), tt(LABELS), weight=tt(w)), (NLL * wl).sum() / wl.sum(), rtol=1e-10)
    close(F.cross_entropy(tt(LOGITS), tt(LABELS), weight=tt(w), reduction="none"), NLL * wl, rtol=1e-10)
    keep = LABELS != 1
    close(F.cross_entropy(tt(LOGITS), tt(LABELS), ignore_index=1), NLL[keep].mean(), rtol=1e-10)
    close(F.cross_entropy(tt(LOGITS), tt(LABELS), weight=tt(w), ignore_index=1),
          (NLL * wl)[keep].sum() / wl[keep].sum(), rtol=1e-10)
    # Paddle: with a negative ignore_index (default -100) and no weight, 'mean' divides by all examples
    labels = LABELS.copy()
    labels[0] = -100
    mask = labels != -100
    close(F.cross_entropy(tt(LOGITS), tt(labels)), NLL[mask].sum() / 5, rtol=1e-10)
    close(F.cross_entropy(tt(LOGITS), tt(labels), reduction="none"), np.where(mask, NLL, 0.0), rtol=1e-10)
    labels[0] = -1
    close(F.cross_entropy(tt(LOGITS), tt(labels), ignore_index=-1), NLL[mask].sum() / 5, rtol=1e-10)


def test_cross_entropy_soft_labels_and_axis():
    soft = sps.softmax(RNG.normal(size=(5, 4)), axis=1)
    per = -(soft * LOGP).sum(1, keepdims=True)
    close(F.cross_entropy(tt(LOGITS), tt(soft), soft_label=True, reduction="none"), per, rtol=1e-10)
    close(F.cross_entropy(tt(LOGITS), tt(soft), soft_label=True), per.mean(), rtol=1e-10)
    w = np.array([1.0, 2.0, 0.5, 3.0])
    ew = soft @ w
    close(F.cross_entropy(tt(LOGITS), tt(soft), soft_label=True, weight=tt(w)),
          (per[:, 0] * ew).sum() / ew.sum(), rtol=1e-10)
    x = RNG.normal(size=(2, 3, 4, 5))
    lab = RNG.integers(0, 3, size=(2, 4, 5))
    lp = sps.log_softmax(x, axis=1)
    per_pixel = -np.take_along_axis(lp, lab[:, None], 1)[:, 0]
    close(F.cross_entropy(tt(x), tt(lab), axis=1, reduction="none"), per_pixel, rtol=1e-10)
    with pytest.raises(ShapeError, match="does not fit"):
        F.cross_entropy(tt(LOGITS), tt(LABELS[:3]))


def test_softmax_with_cross_entropy_and_nll_loss():
    close(F.softmax_with_cross_entropy(tt(LOGITS), tt(LABELS[:, None])), NLL[:, None], rtol=1e-10)
    loss, sm = F.softmax_with_cross_entropy(tt(LOGITS), tt(LABELS[:, None]), return_softmax=True)
    close(sm, sps.softmax(LOGITS, axis=1), rtol=1e-10)
    close(F.nll_loss(tt(LOGP), tt(LABELS)), NLL.mean(), rtol=1e-10)
    w = np.array([1.0, 2.0, 0.5, 3.0])
    keep = LABELS != 3
    wl = w[LABELS] * keep
    close(F.nll_loss(tt(LOGP), tt(LABELS), weight=tt(w), ignore_index=3), (NLL * wl).sum() / wl.sum(), rtol=1e-10)
    close(F.nll_loss(tt(LOGP), tt(LABELS), reduction="none"), NLL, rtol=1e-10)
    x = sps.log_softmax(RNG.normal(size=(2, 3, 4)), axis=1)
    lab = RNG.integers(0, 3, size=(2, 4))
    close(F.nll_loss(tt(x), tt(lab), reduction="sum"), -np.take_along_axis(x, lab[:, None], 1).sum(),
          rtol=1e-10)


def test_binary_and_regression_losses():
    p = np.array([0.2, 0.9, 1.0, 0.0])
    y = np.array([1.0, 0.0, 0.0, 1.0])
    with np.errstate(divide="ignore"):
        bce = -(y * np.maximum(np.log(p), -100) + (1 - y) * np.maximum(np.log(1 - p), -100))  # logs clamped at -100
        close(F.binary_cross_entropy(tt(p), tt(y), reduction="none"), bce, rtol=1e-10)
        w = np.array([1.0, 2.0, 3.0, 4.0])
        close(F.binary_cross_entropy(tt(p), tt(y), weight=tt(w)), (bce * w).mean(), rtol=1e-10)
    z = np.array([-3.0, 0.5, 40.0, -40.0])
    pw = np.array([2.0])
    ref = pw * y * np.logaddexp(0, -z) + (1 - y) * np.logaddexp(0, z)  # -log(sigmoid(z)), -log(1 - sigmoid(z))
    close(F.binary_cross_entropy_with_logits(tt(z), tt(y), pos_weight=tt(pw), reduction="none"), ref, rtol=1e-8)
    a, b = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    close(F.mse_loss(tt(a), tt(b)), ((a - b) ** 2).mean(), rtol=1e-10)
    close(F.l1_loss(tt(a), tt(b), reduction="sum"), np.abs(a - b).sum(), rtol=1e-10)
    d = np.abs(a - b)
    huber = np.where(d <= 0.5, 0.5 * d ** 2, 0.5 * (d - 0.25))  # Paddle's smooth_l1 is the Huber loss
    close(F.smooth_l1_loss(tt(a), tt(b), reduction="none", delta=0.5), huber, rtol=1e-10)
    q = sps.softmax(a, axis=1)
    t = sps.softmax(b, axis=1)
    t[0, 0] = 0.0
    kl = np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - np.log(q)), 0)
    close(F.kl_div(tt(np.log(q)), tt(t), reduction="none"), kl, rtol=1e-10)
    close(F.kl_div(tt(np.log(q)), tt(t), reduction="batchmean"), kl.sum() / 3, rtol=1e-10)
    close(F.kl_div(tt(np.log(q)), tt(t)), kl.mean(), rtol=1e-10)
    close(F.margin_ranking_loss(tt(a), tt(b), tt(np.sign(a - b + 0.1)), margin=0.2, reduction="none"),
          np.maximum(0, -np.sign(a - b + 0.1) * (a - b) + 0.2))
    with pytest.raises(ValueError, match="reduction"):
        F.mse_loss(tt(a), tt(b), reduction="avg")


# ---------------------------------------------------------------------------------------------- transforms

def _cnn(params, x, labels):
    w1, b1, w2, gamma, beta = params
    h = F.relu(F.conv2d(x, w1, b1, padding=1))
    h = F.max_pool2d(h, 2)
    h = F.layer_norm(h, h.shape[1:], gamma, beta)
    h = F.avg_pool2d(h, 2)
    logits = F.linear(h.reshape([h.shape[0], -1]), w2)
    return F.cross_entropy(logits, labels)


def _cnn_params():
    return [tt(RNG.normal(size=(4, 2, 3, 3)) * 0.5), tt(RNG.normal(size=4)), tt(RNG.normal(size=(16, 3)) * 0.5),
            tt(RNG.normal(size=(4, 4, 4))), tt(RNG.normal(size=(4, 4, 4)))]


def test_grad_of_a_small_cnn_matches_finite_differences():
    params = _cnn_params()
    x, labels = tt(RNG.normal(size=(2, 2, 8, 8))), tt(np.array([0, 2]))
    grads = pf.grad(_cnn)(params, x, labels)
    rng = np.random.default_rng(1)
    direction = [rng.normal(size=p.shape) for p in params]
    eps = 1e-6
    plus = _cnn([pf.to_tensor(p.numpy() + eps * d) for p, d in zip(params, direction)], x, labels).numpy()
    minus = _cnn([pf.to_tensor(p.numpy() - eps * d) for p, d in zip(params, direction)], x, labels).numpy()
    directional = sum(float((g.numpy() * d).sum()) for g, d in zip(grads, direction))
    np.testing.assert_allclose(directional, (plus - minus) / (2 * eps), rtol=1e-5)


def test_vmap_and_jit_of_the_cnn_match_eager():
    params = _cnn_params()
    xs, labels = RNG.normal(size=(3, 2, 2, 8, 8)), np.array([[0, 1], [2, 2], [1, 0]])
    batched = pf.vmap(lambda x, y: _cnn(params, x, y))(tt(xs), tt(labels))
    close(batched, np.stack([_cnn(params, tt(x), tt(y)).numpy() for x, y in zip(xs, labels)]), rtol=1e-10)
    params32 = [pf.to_tensor(p.numpy().astype(np.float32)) for p in params]
    x32 = pf.to_tensor(xs[0].astype(np.float32))
    jitted = pf.jit(lambda ps, x: pf.grad(_cnn)(ps, x, tt(labels[0])))(params32, x32)
    eager = pf.grad(_cnn)(params32, x32, tt(labels[0]))
    for a, b in zip(jitted, eager):
        close(a, b.numpy(), rtol=2e-4, atol=1e-5)


def test_representatives_of_each_family_under_jit():
    x = pf.to_tensor(RNG.normal(size=(2, 3, 6, 6)).astype(np.float32))

    def family_outputs(v):
        return [F.gelu(v, approximate=True) + F.hardswish(v) + F.log_sigmoid(v),
                F.conv2d_transpose(v, pf.ones([3, 2, 3, 3]), stride=2, padding=1),
                F.interpolate(v, scale_factor=1.5, mode="bilinear"),
                F.pad(v, [1, 1, 2, 0], mode="reflect"),
                F.batch_norm(v, pf.zeros([3]), pf.ones([3]), training=True),
                F.adaptive_avg_pool2d(v, [4, 3]) + F.adaptive_max_pool2d(v, [4, 3]),
                F.kl_div(F.log_softmax(v, 1), F.softmax(v * 2, 1)) + F.smooth_l1_loss(v, v * 0.5)]

    for a, b in zip(pf.jit(family_outputs)(x), family_outputs(x)):
        close(a, b.numpy(), rtol=2e-5, atol=2e-5)


def test_reverse_over_reverse_through_grouped_conv():
    x, w = tt(RNG.normal(size=(1, 4, 5, 5))), tt(RNG.normal(size=(4, 2, 3, 3)))

    def inner(w):
        return pf.grad(lambda v: (F.conv2d(v, w, groups=2, stride=2) ** 2).sum())(x).sum()

    g = pf.grad(inner)(w)
    eps = 1e-6
    d = RNG.normal(size=(4, 2, 3, 3))
    fd = (inner(tt(w.numpy() + eps * d)).numpy() - inner(tt(w.numpy() - eps * d)).numpy()) / (2 * eps)
    np.testing.assert_allclose(float((g.numpy() * d).sum()), fd, rtol=1e-5)


def test_sequence_mask():
    F = pf.nn.functional
    lengths = pf.to_tensor([[1, 2], [0, 3]])
    np.testing.assert_array_equal(F.sequence_mask(lengths, 3, dtype="float32").numpy(),
                                  np.arange(3) < lengths.numpy()[..., None])
    assert F.sequence_mask(pf.to_tensor([2, 4])).shape == [2, 4]           # maxlen = max(x)
    assert F.sequence_mask(pf.to_tensor([2, 4])).dtype == pf.int64
    np.testing.assert_array_equal(pf.jit(lambda t: F.sequence_mask(t, 4))(pf.to_tensor([2, 4])).numpy(),
                                  [[1, 1, 0, 0], [1, 1, 1, 1]])
    with pytest.raises(TypeError, match="integer"):
        F.sequence_mask(pf.to_tensor([1.0]))


def test_kl_div_with_log_target_gives_paddles_numbers():
    # Paddle 3.3.1: F.kl_div(x, y, reduction, log_target=True) for these x, y
    x = pf.to_tensor([[-1.0, -2.0], [-0.5, -3.0]])
    y = pf.to_tensor([[-0.7, -0.2], [-1.5, -0.1]])
    want = {"mean": 1.0058973, "sum": 4.023589, "batchmean": 2.0117946}
    for reduction, value in want.items():
        np.testing.assert_allclose(F.kl_div(x, y, reduction, log_target=True).numpy(), value, rtol=1e-6)
    np.testing.assert_allclose(F.kl_div(x, y, "none", log_target=True).numpy(),
                               [[0.1489756, 1.4737153], [-0.22313017, 2.6240287]], rtol=1e-6)
    np.testing.assert_allclose(pf.nn.KLDivLoss("sum", log_target=True)(x, y).numpy(), 4.023589, rtol=1e-6)


def test_cross_entropy_label_smoothing_gives_paddles_numbers():
    # Paddle 3.3.1's values for these logits and labels
    x = pf.to_tensor([[2.0, 0.0, 1.0], [0.5, 0.0, -1.0]])
    hard = pf.to_tensor([0, 2])
    np.testing.assert_allclose(F.cross_entropy(x, hard, label_smoothing=0.2).numpy(), 1.272535, rtol=1e-6)
    np.testing.assert_allclose(F.cross_entropy(x, hard, label_smoothing=0.2, reduction="none").numpy(),
                               [[0.6076061], [1.9374639]], rtol=1e-6)
    np.testing.assert_allclose(F.cross_entropy(x, hard, label_smoothing=0.2, weight=pf.to_tensor([1.0, 2.0, 3.0]))
                               .numpy(), 1.5385065, rtol=1e-6)
    soft = pf.to_tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
    np.testing.assert_allclose(F.cross_entropy(x, soft, label_smoothing=0.3, soft_label=True).numpy(), 1.1408683,
                               rtol=1e-6)
    np.testing.assert_allclose(pf.nn.CrossEntropyLoss(label_smoothing=0.1)(x, pf.to_tensor([1, 1])).numpy(),
                               1.7142017, rtol=1e-6)
    with pytest.raises(ValueError, match="label_smoothing"):
        F.cross_entropy(x, hard, label_smoothing=1.5)


def test_cross_entropy_clips_each_log_probability_at_minus_64_as_paddle():
    # Paddle 3.3.1's values: the loss value is clipped, the gradient stays softmax - label
    y = pf.to_tensor([0])
    far = pf.to_tensor([[0.0, 100.0]], stop_gradient=False)
    loss = F.cross_entropy(far, y)
    loss.backward()
    assert float(loss) == 64.0
    np.testing.assert_allclose(far.grad.numpy(), [[-1.0, 1.0]])
    assert float(F.cross_entropy(pf.to_tensor([[0.0, 100.0]], dtype="float64"), y)) == 64.0
    np.testing.assert_allclose(F.cross_entropy(pf.to_tensor([[0.0, 50.0, 100.0]]), pf.to_tensor([1]),
                                               reduction="none").numpy(), [50.0])
    np.testing.assert_allclose(F.cross_entropy(pf.to_tensor([[0.0, 100.0]]), pf.to_tensor([[0.3, 0.7]]),
                                               soft_label=True, reduction="none").numpy(), [[19.2]], rtol=1e-6)
