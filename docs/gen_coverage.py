"""Generate docs/coverage.md: which of Paddle 2.3's Tensor API and `paddle.nn.functional` paddle_fn provides.

Run ``python docs/gen_coverage.py`` after adding or removing a function; tests/test_coverage_table.py fails while
docs/coverage.md differs from what this script renders. Every row is looked up in the code:

* implemented -- the function exists and lowers to a primitive of its own (`PRIMITIVE_OF`, checked against the
  primitive registry);
* composite -- the function exists and is composed from other primitives;
* not applicable -- listed in `NOT_APPLICABLE` with the reason;
* not yet -- listed in the catalogue but not found in paddle_fn.

The notes are the first sentence of each function's docstring.
"""
from __future__ import annotations

import importlib
import pathlib
import re
import sys

OUT = pathlib.Path(__file__).resolve().parent / "coverage.md"

CATALOGUE = {
    "Creation": ("paddle", """
        to_tensor zeros ones full empty zeros_like ones_like full_like empty_like arange linspace logspace eye clone
        assign diag diag_embed diagflat tril triu meshgrid complex create_parameter rand randn randint randint_like
        uniform normal standard_normal randperm bernoulli multinomial poisson"""),
    "Elementwise math": ("paddle", """
        add subtract multiply divide floor_divide mod remainder floor_mod pow maximum minimum fmax fmin scale neg exp
        expm1 log log1p log2 log10 sqrt rsqrt square reciprocal sin cos tan asin acos atan atan2 sinh cosh tanh asinh
        acosh atanh sigmoid erf erfinv lgamma digamma abs sign floor ceil round trunc frac clip stanh logit rad2deg
        deg2rad gcd lcm lerp increment add_n nan_to_num angle conj real imag"""),
    "Reductions and scans": ("paddle", """
        sum mean max min amax amin prod all any logsumexp nansum nanmean count_nonzero std var median quantile
        cumsum cumprod logcumsumexp diff"""),
    "Comparison and logic": ("paddle", """
        equal not_equal less_than less_equal greater_than greater_equal equal_all allclose isclose isfinite isnan
        isinf logical_and logical_or logical_xor logical_not bitwise_and bitwise_or bitwise_xor bitwise_not is_tensor
        is_empty is_floating_point is_integer is_complex numel shape rank"""),
    "Manipulation": ("paddle", """
        reshape squeeze unsqueeze flatten transpose moveaxis concat stack split chunk unstack unbind tile expand
        expand_as broadcast_to broadcast_tensors broadcast_shape flip roll rot90 repeat_interleave crop cast gather
        gather_nd scatter scatter_nd scatter_nd_add index_select index_sample take_along_axis put_along_axis
        masked_select where nonzero slice strided_slice unique unique_consecutive shard_index multiplex tolist
        as_complex as_real"""),
    "Search and histograms": ("paddle", """
        argmax argmin argsort sort topk kthvalue mode searchsorted bucketize histogram bincount"""),
    "Linear algebra": ("paddle", """
        matmul mm bmm dot t inner outer addmm kron cross norm dist trace diagonal einsum cholesky inverse det
        slogdet"""),
    "paddle.linalg": ("paddle.linalg", """
        norm det slogdet inv solve triangular_solve cholesky cholesky_solve qr svd eigh eigvalsh eig eigvals lstsq lu
        lu_unpack pinv matrix_power matrix_rank multi_dot cov cond"""),
    "Tensor methods": ("paddle.Tensor", """
        numpy item tolist astype T shape dtype ndim size place stop_gradient backward grad clear_grad detach
        register_hook cpu cuda pin_memory at reshape_ squeeze_ unsqueeze_ add_ scale_ clip_ zero_ fill_ set_value
        uniform_ exponential_ to_sparse_coo to_sparse_csr is_sparse is_sparse_coo is_sparse_csr"""),
    "Framework": ("paddle", """
        set_default_dtype get_default_dtype set_flags get_flags seed is_compiled_with_cuda is_compiled_with_rocm
        is_compiled_with_xpu set_device get_device grad no_grad in_dynamic_mode"""),
    "nn.functional: activations": ("paddle.nn.functional", """
        relu relu6 elu selu celu gelu silu swish mish hardswish hardsigmoid hardtanh hardshrink softshrink
        thresholded_relu leaky_relu prelu rrelu softplus softsign tanhshrink log_sigmoid sigmoid tanh softmax
        log_softmax maxout glu gumbel_softmax relu_ elu_ softmax_"""),
    "nn.functional: layers": ("paddle.nn.functional", """
        linear bilinear embedding one_hot dropout dropout2d dropout3d alpha_dropout conv1d conv2d conv3d
        conv1d_transpose conv2d_transpose conv3d_transpose max_pool1d max_pool2d max_pool3d avg_pool1d avg_pool2d
        avg_pool3d adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d adaptive_max_pool2d
        adaptive_max_pool3d max_unpool1d max_unpool2d max_unpool3d layer_norm batch_norm instance_norm group_norm
        local_response_norm normalize pad zeropad2d interpolate upsample pixel_shuffle unfold fold grid_sample
        affine_grid cosine_similarity pairwise_distance label_smooth class_center_sample temporal_shift
        sparse_attention diag_embed"""),
    "nn.functional: losses": ("paddle.nn.functional", """
        cross_entropy softmax_with_cross_entropy nll_loss binary_cross_entropy binary_cross_entropy_with_logits
        mse_loss l1_loss smooth_l1_loss kl_div square_error_cost margin_ranking_loss sigmoid_focal_loss
        hinge_embedding_loss ctc_loss dice_loss log_loss hsigmoid_loss margin_cross_entropy npair_loss"""),
    "paddle.sparse": ("paddle.sparse", """
        sparse_coo_tensor sparse_csr_tensor sin tan asin atan sinh tanh asinh atanh sqrt square log1p abs pow
        pca_lowrank cast neg deg2rad rad2deg expm1 mv matmul mask_as masked_matmul addmm add subtract transpose sum
        multiply divide coalesce is_same_shape reshape isnan slice"""),
    "paddle.sparse.nn": ("paddle.sparse.nn", """
        ReLU ReLU6 LeakyReLU Softmax BatchNorm SyncBatchNorm Conv2D Conv3D SubmConv2D SubmConv3D MaxPool3D"""),
    "paddle.sparse.nn.functional": ("paddle.sparse.nn.functional", """
        conv2d conv3d subm_conv2d subm_conv2d_igemm subm_conv3d subm_conv3d_igemm max_pool3d relu relu6 leaky_relu
        softmax attention"""),
}

NOT_APPLICABLE = {
    "paddle.create_parameter": "static-graph parameter creation; use Tensors, or the Layer shim's parameters",
    "paddle.shard_index": "a parameter-server sharding helper of static-graph training",
    "paddle.Tensor.cuda": "placement is chosen by jit/device_put on IREE devices, not per Tensor",
    "paddle.Tensor.pin_memory": "host memory pinning is a CUDA-runtime detail that IREE manages",
    "paddle.Tensor.register_hook": "gradients are values returned by grad/vjp; use custom_vjp to change them",
    "paddle.nn.functional.class_center_sample": "a distributed (model-parallel) sampling op",
    "paddle.nn.functional.sparse_attention": "a CUDA-only kernel of Paddle",
    "paddle.sparse.nn.functional.attention": "a CUDA-only kernel of Paddle",
    "paddle.sparse.nn.SyncBatchNorm": "a multi-GPU layer of Paddle (NCCL); paddle.sparse.nn.BatchNorm on one device",
    "paddle.nn.functional.temporal_shift": "a video-model kernel outside the Tensor API's scope",
    "paddle.complex": "paddle_fn has no complex dtypes",
    "paddle.angle": "paddle_fn has no complex dtypes",
    "paddle.conj": "paddle_fn has no complex dtypes",
    "paddle.real": "paddle_fn has no complex dtypes",
    "paddle.imag": "paddle_fn has no complex dtypes",
    "paddle.as_complex": "paddle_fn has no complex dtypes",
    "paddle.as_real": "paddle_fn has no complex dtypes",
    "paddle.is_complex": "paddle_fn has no complex dtypes",
    "paddle.linalg.eig": "its results are complex; paddle_fn has no complex dtypes",
    "paddle.linalg.eigvals": "its results are complex; paddle_fn has no complex dtypes",
}

# functions that lower to a primitive of their own (the rest are composites)
PRIMITIVE_OF = {
    "paddle.matmul": "dot_general", "paddle.mm": "dot_general", "paddle.bmm": "dot_general",
    "paddle.sort": "sort", "paddle.argsort": "sort", "paddle.topk": "sort", "paddle.argmax": "argmax",
    "paddle.argmin": "argmin", "paddle.cumsum": "cumsum", "paddle.cumprod": "cumprod", "paddle.exp": "exp",
    "paddle.log": "log", "paddle.sin": "sin", "paddle.cos": "cos", "paddle.tanh": "tanh", "paddle.sqrt": "sqrt",
    "paddle.rsqrt": "rsqrt", "paddle.erf": "erf", "paddle.erfinv": "erf_inv", "paddle.lgamma": "lgamma",
    "paddle.digamma": "digamma", "paddle.sigmoid": "logistic", "paddle.abs": "abs", "paddle.sign": "sign",
    "paddle.floor": "floor", "paddle.ceil": "ceil", "paddle.round": "round", "paddle.add": "add",
    "paddle.subtract": "sub", "paddle.multiply": "mul", "paddle.maximum": "max", "paddle.minimum": "min",
    "paddle.atan2": "atan2", "paddle.transpose": "transpose", "paddle.concat": "concatenate", "paddle.flip": "rev",
    "paddle.reshape": "reshape", "paddle.cast": "convert_element_type", "paddle.clip": "clamp",
    "paddle.nn.functional.conv1d": "conv_general_dilated", "paddle.nn.functional.conv2d": "conv_general_dilated",
    "paddle.nn.functional.conv3d": "conv_general_dilated",
    "paddle.nn.functional.conv1d_transpose": "conv_general_dilated",
    "paddle.nn.functional.conv2d_transpose": "conv_general_dilated",
    "paddle.nn.functional.sigmoid": "logistic", "paddle.nn.functional.tanh": "tanh",
    "paddle.sparse.matmul": "sparse_dense_dot", "paddle.sparse.mv": "sparse_dense_dot",
    "paddle.sparse.addmm": "sparse_dense_dot",
}


def _resolve(namespace, name):
    import paddle_fn
    if namespace == "paddle":
        return getattr(paddle_fn, name, None)
    if namespace == "paddle.Tensor":
        return getattr(paddle_fn.Tensor, name, None)
    try:
        module = importlib.import_module(namespace.replace("paddle", "paddle_fn", 1))
    except ModuleNotFoundError:
        return None
    return getattr(module, name, None)


def _first_sentence(obj):
    doc = (getattr(obj, "__doc__", None) or "").strip()
    if not doc or isinstance(obj, property) and not obj.__doc__:
        return ""
    text = " ".join(doc.split("\n\n")[0].split())
    match = re.match(r"(.+?\.)(\s|$)", text)
    sentence = match.group(1) if match else text
    return sentence.replace("|", "\\|")


def rows():
    from paddle_fn.core.primitive import all_primitives
    registry = all_primitives()
    out = []
    for section, (namespace, names) in CATALOGUE.items():
        for name in names.split():
            full = f"{namespace}.{name}"
            obj = _resolve(namespace, name)
            if full in NOT_APPLICABLE:
                status, note = "not applicable", NOT_APPLICABLE[full]
            elif obj is None:
                status, note = "not yet", ""
            elif full in PRIMITIVE_OF:
                prim = PRIMITIVE_OF[full]
                if prim not in registry:
                    raise KeyError(f"gen_coverage: {full} is listed as the primitive {prim!r}, which is not registered")
                status, note = "implemented", f"primitive `{prim}`. {_first_sentence(obj)}".strip()
            else:
                status, note = "composite", _first_sentence(obj)
            out.append((section, full, status, note))
    return out


def render():
    table = rows()
    counts = {}
    for _, _, status, _ in table:
        counts[status] = counts.get(status, 0) + 1
    lines = ["# Paddle API coverage", "",
             "Generated by `docs/gen_coverage.py` from the code; do not edit by hand (tests/test_coverage_table.py "
             "checks it is current).", "",
             "*implemented*: lowers to a primitive of its own; *composite*: composed from other primitives (so it "
             "works under grad, vmap and jit with no code of its own); *not applicable*: no meaning in paddle_fn "
             "(reason given); *not yet*: missing.", "",
             "Totals: " + ", ".join(f"{k} {counts.get(k, 0)}" for k in ("implemented", "composite", "not applicable",
                                                                         "not yet")) + ".", ""]
    current = None
    for section, name, status, note in table:
        if section != current:
            lines += ["", f"## {section}", "", "| Paddle name | status | notes |", "|---|---|---|"]
            current = section
        lines.append(f"| `{name}` | {status} | {note} |")
    return "\n".join(lines) + "\n"


def main(argv):
    text = render()
    if "--check" in argv:
        return 0 if OUT.exists() and OUT.read_text() == text else 1
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
