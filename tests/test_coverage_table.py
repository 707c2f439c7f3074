"""docs/coverage.md is generated from the code by docs/gen_coverage.py and must be current."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _generator():
    spec = importlib.util.spec_from_file_location("gen_coverage", ROOT / "docs" / "gen_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_coverage_page_is_current():
    gen = _generator()
    assert (ROOT / "docs" / "coverage.md").read_text() == gen.render(), \
        "docs/coverage.md is stale: run `.venv/bin/python docs/gen_coverage.py` and commit the result"


REQUIRED = """
    paddle.add_n paddle.addmm paddle.cumprod paddle.logcumsumexp paddle.diff paddle.kron paddle.cross paddle.lerp
    paddle.logit paddle.rad2deg paddle.deg2rad paddle.gcd paddle.lcm paddle.erfinv paddle.lgamma paddle.digamma
    paddle.trunc paddle.frac paddle.fmax paddle.fmin paddle.nan_to_num paddle.nansum paddle.nanmean paddle.amax
    paddle.amin paddle.count_nonzero paddle.logsumexp paddle.mode paddle.kthvalue paddle.std paddle.var
    paddle.median paddle.quantile paddle.gather_nd paddle.scatter paddle.scatter_nd paddle.scatter_nd_add
    paddle.index_select paddle.index_sample paddle.take_along_axis paddle.put_along_axis paddle.slice
    paddle.strided_slice paddle.tril paddle.triu paddle.meshgrid paddle.repeat_interleave paddle.tile paddle.expand
    paddle.flip paddle.roll paddle.rot90 paddle.unbind paddle.unstack paddle.moveaxis paddle.chunk paddle.crop
    paddle.unique paddle.nonzero paddle.masked_select paddle.searchsorted paddle.bucketize paddle.histogram
    paddle.bincount paddle.einsum
    paddle.nn.functional.relu paddle.nn.functional.relu6 paddle.nn.functional.elu paddle.nn.functional.selu
    paddle.nn.functional.celu paddle.nn.functional.gelu paddle.nn.functional.silu paddle.nn.functional.swish
    paddle.nn.functional.mish paddle.nn.functional.hardswish paddle.nn.functional.hardsigmoid
    paddle.nn.functional.hardtanh paddle.nn.functional.leaky_relu paddle.nn.functional.prelu
    paddle.nn.functional.softplus paddle.nn.functional.softsign paddle.nn.functional.tanhshrink
    paddle.nn.functional.log_sigmoid paddle.nn.functional.sigmoid paddle.nn.functional.tanh
    paddle.nn.functional.softmax paddle.nn.functional.log_softmax paddle.nn.functional.cross_entropy
    paddle.nn.functional.nll_loss paddle.nn.functional.binary_cross_entropy
    paddle.nn.functional.binary_cross_entropy_with_logits paddle.nn.functional.mse_loss paddle.nn.functional.l1_loss
    paddle.nn.functional.smooth_l1_loss paddle.nn.functional.kl_div paddle.nn.functional.dropout
    paddle.nn.functional.conv1d paddle.nn.functional.conv2d paddle.nn.functional.conv2d_transpose
    paddle.nn.functional.max_pool1d paddle.nn.functional.max_pool2d paddle.nn.functional.avg_pool1d
    paddle.nn.functional.avg_pool2d paddle.nn.functional.adaptive_avg_pool2d paddle.nn.functional.layer_norm
    paddle.nn.functional.batch_norm paddle.nn.functional.pad paddle.nn.functional.interpolate
    paddle.nn.functional.normalize paddle.nn.functional.linear paddle.nn.functional.embedding
    paddle.nn.functional.one_hot paddle.nn.functional.cosine_similarity paddle.nn.functional.pairwise_distance
    paddle.nn.functional.label_smooth
""".split()


def test_the_required_api_is_covered():
    status = {name: st for _, name, st, _ in _generator().rows()}
    missing = [n for n in REQUIRED if n not in status]
    assert not missing, f"not in the coverage catalogue: {missing}"
    not_done = [n for n in REQUIRED if status[n] not in ("implemented", "composite")]
    assert not not_done, f"required but {[(n, status[n]) for n in not_done]}"
