"""The convolution forms of lowering/llvm_cpu_conv.py (the llvm-cpu override of conv_general_dilated).

Each form is a program of paddle_fn primitives, so it is checked here twice: evaluated eagerly against the
convolution's own implementation over every kind of convolution a training step contains (fast, no compiler),
and compiled through IREE inside whole training steps against the eager step. The op table's conv rows
(tests/optable/conv.py) add each form's IREE run on its own.
"""
import pathlib
import re

import numpy as np
import pytest

import paddle_fn as pf
import paddle_fn.nn.functional as F
from paddle_fn.core.primitive import all_primitives
from paddle_fn.core.staging import eval_program, trace_to_program
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.lowering import Target, llvm_cpu_conv, lower_program, targets
from paddle_fn.prims import conv as C
from paddle_fn.runtime.compiler import TARGETS
from paddle_fn.transforms.jit import lowering_target

NCHW = C.conv_dimension_numbers("NCHW", "OIHW", "NCHW")
NHWC = C.conv_dimension_numbers("NHWC", "HWIO", "NHWC")
NCL = C.conv_dimension_numbers("NCL", "OIL", "NCL")
NCDHW = C.conv_dimension_numbers("NCDHW", "OIDHW", "NCDHW")


def _convs_of_step(x_shape, w_shape, dn, *, with_reversal=False, **params):
    """The convolutions (lhs aval, rhs aval, out aval, params) of the forward, input-gradient and weight-gradient
    of one convolution: what a training step holds (with `with_reversal`, each paired with whether its filter is
    made by a rev)."""
    x = Tensor(np.ones(x_shape, np.float32))
    w = Tensor(np.ones(w_shape, np.float32))

    def step(x, w):
        out, pullback = pf.vjp(lambda x, w: C.conv_general_dilated(x, w, dimension_numbers=dn, **params), x, w)
        return [out, *pullback(pf.ones_like(out))]

    prog, _ = trace_to_program(lambda x, w: step(x, w), [get_aval(x), get_aval(w)])
    convs = [e for e in prog.eqns if e.prim is C.conv_general_dilated_p]
    found = [(e.inputs[0].aval, e.inputs[1].aval, e.outputs[0].aval, e.params) for e in convs]
    producer = llvm_cpu_conv.program_producer(prog)
    return list(zip(found, [llvm_cpu_conv.made_by_rev(e.inputs[1], producer) for e in convs])) if with_reversal \
        else found


# the targets whose CPUs choose differently: IREE's direct convolution kernels are fast with AVX-512, slow without
AVX512 = Target("llvm-cpu", "x86-64-v4", frozenset({"avx2", "fma", "avx512f"}))
AVX2 = Target("llvm-cpu", "x86-64-v3", frozenset({"avx2", "fma"}))


def _form(conv, filter_reversed=False, target=Target()):
    found = llvm_cpu_conv.rewrite(*conv, target=target, filter_reversed=filter_reversed)
    return None if found is None else found[0]


RESNET_LAYERS = [
    ("stem", (16, 3, 32, 32), (32, 3, 3, 3), dict(window_strides=(1, 1), padding=((1, 1), (1, 1)))),
    ("3x3", (16, 32, 32, 32), (32, 32, 3, 3), dict(window_strides=(1, 1), padding=((1, 1), (1, 1)))),
    ("3x3 stride 2", (16, 32, 32, 32), (64, 32, 3, 3), dict(window_strides=(2, 2), padding=((1, 1),) * 2)),
    ("1x1 stride 2", (16, 32, 32, 32), (64, 32, 1, 1), dict(window_strides=(2, 2), padding=((0, 0),) * 2)),
    ("depthwise", (16, 64, 32, 32), (64, 1, 3, 3), dict(window_strides=(1, 1), padding=((1, 1),) * 2,
                                                         feature_group_count=64))]


def _resnet_forms(target):
    """{layer: the forms of its forward, input-gradient and weight-gradient convolutions, sorted}."""
    return {name: sorted(str(_form(c, rev, target)) for c, rev in _convs_of_step(x, w, NCHW, with_reversal=True,
                                                                                 **params))
            for name, x, w, params in RESNET_LAYERS}


@pytest.mark.parametrize("target", [AVX512, Target()], ids=["avx512", "no cpu named"])
def test_each_convolution_of_a_resnet_step_takes_its_form(target):
    # the forward, the input gradient and the weight gradient, in any order; the input gradient's filter is made
    # by a rev, which IREE already materializes where the convolution wants it (None: the generic lowering); the
    # weight gradient over the stem's 3 features is one product of its stacked position slices
    assert _resnet_forms(target) == {
        "stem": ["None", "filter_barrier", "patches_product"],
        "3x3": ["None", "filter_barrier", "positions_dots"],
        "3x3 stride 2": ["None", "filter_barrier", "positions_dots"],
        "1x1 stride 2": ["positions_dots", "tap_dots", "tap_dots"],
        "depthwise": ["depthwise_positions", "depthwise_taps", "depthwise_taps"]}


def test_a_weight_gradient_over_few_rows_and_many_positions_gathers_them():
    # an 11x11 stem (AlexNet's): 121 positions, past MAX_STACKED_POSITIONS; a 7x7 one (ResNet-18's) stacks its 49
    for k, form in ((11, "positions_gather"), (7, "patches_product")):
        forms = sorted(str(_form(c, rev, AVX512)) for c, rev in _convs_of_step(
            (8, 3, 64, 64), (16, 3, k, k), NCHW, with_reversal=True, window_strides=(4, 4), padding=((2, 2),) * 2))
        assert form in forms, (k, forms)


def test_without_avx512_convolutions_become_products():
    """IREE's direct kernels are slow with AVX2 code: forward and input-gradient convolutions with enough features
    take one im2col product, the input gradient of a strided one (a dilated image) per-tap products, the stem's
    forward (3 features) its direct kernel and its input gradient (3 out features) per-tap products."""
    assert _resnet_forms(AVX2) == {
        "stem": ["filter_barrier", "patches_product", "tap_dots"],
        "3x3": ["im2col", "im2col", "positions_dots"],
        "3x3 stride 2": ["im2col", "positions_dots", "tap_dots"],
        "1x1 stride 2": ["positions_dots", "tap_dots", "tap_dots"],
        "depthwise": ["depthwise_positions", "depthwise_taps", "depthwise_taps"]}


def test_a_filter_already_in_the_fast_layout_keeps_the_generic_lowering():
    (fwd, *_) = _convs_of_step((2, 8, 8, 3), (3, 3, 3, 4), NHWC, window_strides=(1, 1), padding=((1, 1),) * 2)
    assert _form(fwd) is None and _form(fwd, target=AVX512) is None
    # without AVX-512 the layout does not matter: enough features make it one product
    (fwd, *_) = _convs_of_step((2, 8, 8, 16), (3, 3, 16, 16), NHWC, window_strides=(1, 1), padding=((1, 1),) * 2)
    assert _form(fwd, target=AVX512) is None and _form(fwd, target=AVX2) == "im2col"


# every kind of convolution: layout, rank, stride, dilation, padding (negative too), groups, transposed
CASES = [
    ("nchw_3x3", (2, 3, 7, 6), (4, 3, 3, 3), NCHW, dict(window_strides=(1, 1), padding=((1, 1), (1, 1)))),
    ("nchw_strided_asymmetric", (2, 3, 8, 7), (4, 3, 3, 2), NCHW,
     dict(window_strides=(2, 3), padding=((1, 0), (0, 2)))),
    ("nchw_dilated_negative_pad", (1, 2, 9, 8), (3, 2, 2, 3), NCHW,
     dict(window_strides=(1, 2), padding=((-1, 2), (1, 1)), rhs_dilation=(2, 2))),
    ("pointwise_strided", (2, 5, 6, 6), (3, 5, 1, 1), NCHW, dict(window_strides=(2, 2), padding=((0, 0), (0, 0)))),
    ("grouped", (2, 4, 6, 6), (6, 2, 3, 3), NCHW, dict(window_strides=(1, 1), padding=((1, 1),) * 2,
                                                       feature_group_count=2)),
    ("depthwise_strided", (2, 3, 7, 7), (3, 1, 3, 3), NCHW, dict(window_strides=(2, 2), padding=((1, 1),) * 2,
                                                                 feature_group_count=3)),
    ("nhwc", (2, 6, 5, 3), (2, 2, 3, 4), NHWC, dict(window_strides=(1, 1), padding=((0, 1), (1, 0)))),
    ("conv1d", (3, 2, 11), (4, 2, 3), NCL, dict(window_strides=(2,), padding=((1, 1),))),
    ("conv3d", (1, 2, 4, 5, 4), (3, 2, 2, 3, 2), NCDHW,
     dict(window_strides=(1, 2, 1), padding=((1, 0), (1, 1), (0, 1)))),
    ("transposed", (2, 3, 4, 4), (5, 3, 3, 3), NCHW, dict(window_strides=(1, 1), padding=((2, 3), (2, 3)),
                                                          lhs_dilation=(2, 2))),
]


def _form_applies(form, lhs, rhs, out, params):
    """Whether a form forced on a convolution applies: every form but positions_dots takes no groups; each unrolls
    at most MAX_UNROLLED slices (one per window tap for im2col and tap_dots, one per output position for
    positions_dots and patches_product; positions_gather reads them all with one gather)."""
    c = llvm_cpu_conv._Conv(lhs.shape, rhs.shape, out.shape, **params)
    unrolled = np.prod(c.positions) if form in ("positions_dots", "patches_product") else np.prod(c.window)
    no_groups = c.feature_group_count == c.batch_group_count == 1
    return (no_groups or form == "positions_dots") and (form == "positions_gather" or
                                                         unrolled <= llvm_cpu_conv.MAX_UNROLLED)


FORMS = ("chosen", "im2col", "tap_dots", "positions_dots", "positions_gather", "patches_product")
FORM_CASES = [(case, form) for case in CASES for form in FORMS
              if form in ("chosen", "positions_dots") or "feature_group_count" not in case[-1]]


@pytest.mark.parametrize("case,form", FORM_CASES, ids=[f"{c[0]}-{f}" for c, f in FORM_CASES])
def test_every_form_computes_the_convolution(case, form):
    """Forward, input gradient and weight gradient of each case: the rewritten program, evaluated eagerly, equals
    the convolution's own implementation (float64): the form chosen for AVX-512, each product form (chosen
    without AVX-512) and each weight-gradient form (positions_dots, positions_gather and patches_product, chosen by
    the batch rows, positions and groups) wherever it applies."""
    _, x_shape, w_shape, dn, params = case
    rng = np.random.default_rng(0)
    seen = set()
    for conv in _convs_of_step(x_shape, w_shape, dn, **params):
        lhs, rhs, out, conv_params = conv
        lhs, rhs, out = (a.update(dtype=pf.float64) for a in (lhs, rhs, out))
        if form != "chosen" and not _form_applies(form, lhs, rhs, out, conv_params):
            continue
        found = llvm_cpu_conv.rewrite(lhs, rhs, out, conv_params, target=AVX512,
                                      form=None if form == "chosen" else getattr(llvm_cpu_conv, form))
        if found is None:
            continue
        name, prog, consts = found
        seen.add(name)
        a, b = Tensor(rng.normal(size=lhs.shape)), Tensor(rng.normal(size=rhs.shape))
        want = C.conv_general_dilated_p.bind(a, b, **conv_params).numpy()
        got = eval_program(prog, consts, [a, b])[0].numpy()
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=f"{case[0]}: {name}")
    assert seen, "no convolution of this case was rewritten"


def test_forms_keep_half_precision_sums_in_float32():
    depthwise = _convs_of_step((2, 8, 6, 6), (8, 1, 3, 3), NCHW, window_strides=(1, 1), padding=((1, 1),) * 2,
                               feature_group_count=8)
    strided = _convs_of_step((2, 16, 6, 6), (16, 16, 3, 3), NCHW, window_strides=(2, 2), padding=((1, 1),) * 2)
    igrad = next(c for c in strided if max(c[3]["lhs_dilation"]) > 1)  # per-tap products without AVX-512
    for conv, target in [(c, Target()) for c in depthwise] + [(igrad, AVX2)]:
        lhs, rhs, out, params = conv
        lhs, rhs, out = (a.update(dtype=pf.float16) for a in (lhs, rhs, out))
        name, prog, _ = llvm_cpu_conv.rewrite(lhs, rhs, out, params, target=target)
        assert name.startswith("depthwise") or name == "tap_dots"
        sums = [e for e in prog.eqns if e.prim.name in ("add", "reduce_sum")]
        assert sums and all(e.outputs[0].aval.dtype == pf.float32 for e in sums)
        assert prog.out_vars[0].aval.dtype == pf.float16


def test_the_override_table_names_real_primitives_and_targets():
    primitives = set(all_primitives())
    root = pathlib.Path(__file__).resolve().parent.parent
    for (name, target), override in targets.OVERRIDES.items():
        assert name in primitives and target in TARGETS + (targets.EVERY_TARGET,)
        assert override.iree and override.evidence and override.why
        for path, test in re.findall(r"((?:tests|benchmarks)/[\w/]+\.py)(?:::(\w+))?", override.evidence):
            assert (root / path).is_file(), f"{name} on {target}: the evidence {path} does not exist"
            assert test is None or test == "" or f"def {test}(" in (root / path).read_text(), \
                f"{name} on {target}: the evidence {path}::{test} does not exist"


def test_the_lowering_follows_its_target():
    """The CPU text holds the rewritten forms, chosen by the CPU's features: the direct convolution (its filter
    behind a barrier) with AVX-512, one im2col product without; another target's, and the text without
    overrides, hold the convolution as the primitive's own rule writes it."""
    x, w = pf.ones([2, 16, 8, 8]), pf.ones([16, 16, 3, 3])
    lowered = pf.jit(lambda x, w: F.conv2d(x, w, padding=1)).lower(x, w)
    avx512, avx2 = (lower_program(lowered.program, target=t) for t in (AVX512, AVX2))
    assert "optimization_barrier" in avx512 and "stablehlo.convolution" in avx512
    assert "stablehlo.convolution" not in avx2 and "stablehlo.concatenate" in avx2 and "dot_general" in avx2
    cuda = lowered.as_text("cuda")
    assert "optimization_barrier" not in cuda and "stablehlo.convolution" in cuda
    assert lower_program(lowered.program, target="llvm-cpu", use_overrides=False) == \
        lower_program(lowered.program, target="cuda")


def _resnet_block_params(rng, dtype):
    def conv(cout, cin, k):
        return (rng.normal(size=(cout, cin, k, k)) / np.sqrt(cin * k * k)).astype(dtype)
    return {"stem": conv(8, 3, 3), "c1": conv(16, 8, 3), "c2": conv(16, 16, 3), "ds": conv(16, 8, 1),
            "dw": (rng.normal(size=(16, 1, 3, 3)) / 3).astype(dtype),
            "fc": (rng.normal(size=(16, 4)) / 4).astype(dtype)}


def _resnet_block_loss(p, x, y):
    h = F.relu(F.conv2d(x, p["stem"], padding=1))
    z = F.relu(F.conv2d(h, p["c1"], stride=2, padding=1))
    z = F.conv2d(z, p["c2"], padding=1) + F.conv2d(h, p["ds"], stride=2)
    z = F.relu(F.conv2d(F.relu(z), p["dw"], padding=1, groups=16))
    return F.cross_entropy(z.mean(axis=[2, 3]) @ p["fc"], y)


@pytest.mark.parametrize("cpu", ["host", "x86-64-v3"])
@pytest.mark.parametrize("dtype,tol", [("float32", 2e-4), ("float64", 1e-10)])
def test_compiled_training_step_matches_eager(dtype, tol, cpu, compile_for):
    """A residual block with a strided 3x3, a 1x1 shortcut and a depthwise conv: loss and every gradient of the
    compiled step (every CPU form, and the generic input gradients) agree with the eager step, in code for the
    host and for AVX2 (x86-64-v3, which any x86-64 host of these tests runs)."""
    compile_for(cpu)
    rng = np.random.default_rng(1)
    params = {k: pf.to_tensor(v) for k, v in _resnet_block_params(rng, dtype).items()}
    x = pf.to_tensor(rng.normal(size=(4, 3, 12, 12)).astype(dtype))
    y = pf.to_tensor(rng.integers(0, 4, size=(4,)))
    step = pf.value_and_grad(_resnet_block_loss)
    text = pf.jit(step).lower(params, x, y).as_text()
    if "avx512f" in lowering_target("llvm-cpu").cpu_features:
        # one barrier per forward 3x3 convolution (stem, c1, c2); their input gradients lower generically
        assert text.count("optimization_barrier") == 3 and text.count("stablehlo.convolution") == 5
    else:
        # the forwards of the stem (3 features) and of c1 (8) keep their barrier; the rest are products
        assert text.count("optimization_barrier") == 2 and text.count("stablehlo.convolution") == 2
    (loss, grads), (want_loss, want_grads) = pf.jit(step)(params, x, y), step(params, x, y)
    np.testing.assert_allclose(float(loss), float(want_loss), rtol=tol)
    for k in params:
        np.testing.assert_allclose(grads[k].numpy(), want_grads[k].numpy(), rtol=tol, atol=tol, err_msg=k)


@pytest.mark.parametrize("cpu,features", [("host", 4), ("x86-64-v3", 17)])
@pytest.mark.parametrize("op,n,layout", [("conv1d", 1, "NLC"), ("conv3d", 3, "NCDHW"),
                                         ("conv2d_transpose", 2, "NCHW")])
def test_compiled_convolutions_of_other_ranks_and_kinds_match_eager(op, n, layout, cpu, features, compile_for):
    """Strided 1-D, 3-D and transposed convolutions and their gradients, compiled for the host and, with enough
    features to take the product forms, for AVX2."""
    compile_for(cpu)
    rng = np.random.default_rng(2)
    channels_last = layout.endswith("C")
    spatial = (6,) * n
    x = rng.normal(size=(2,) + ((spatial + (features,)) if channels_last else ((features,) + spatial)))
    x = x.astype(np.float32)
    w = rng.normal(size=(features, features - 1) + (3,) * n).astype(np.float32) if op.endswith("transpose") else \
        rng.normal(size=(features - 1, features) + (3,) * n).astype(np.float32)
    conv = getattr(F, op)

    def loss(x, w):
        return (conv(x, w, stride=2, padding=1, data_format=layout) ** 2).sum()

    x, w = pf.to_tensor(x), pf.to_tensor(w)
    got, want = pf.jit(pf.value_and_grad(loss, argnums=(0, 1)))(x, w), pf.value_and_grad(loss, argnums=(0, 1))(x, w)
    for g, e in zip([got[0], *got[1]], [want[0], *want[1]]):  # float32 rounding of sums of hundreds of terms
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=2e-4, atol=1e-6 * np.abs(e.numpy()).max())


def test_unrolled_forms_stay_bounded():
    """A convolution whose window and output both exceed MAX_UNROLLED positions takes the filter-barrier form, and
    its weight gradient over few rows one gather: no form unrolls more than MAX_UNROLLED slices."""
    convs = _convs_of_step((1, 2, 40, 40), (2, 2, 9, 9), NCHW, window_strides=(1, 1), padding=((0, 0), (0, 0)))
    assert sorted(str(_form(c)) for c in convs) == ["filter_barrier"] * 2 + ["positions_gather"]
    convs = _convs_of_step((1, 8, 40, 40), (2, 8, 9, 9), NCHW, window_strides=(1, 1), padding=((0, 0), (0, 0)))
    assert [_form(c) for c in convs] == ["filter_barrier"] * 3
