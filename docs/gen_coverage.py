"""Generate docs/coverage.md: which of Paddle's API (2.3's Tensor API and `paddle.nn.functional`, the names
Paddle 3.3 has beyond them, Paddle 3's random functions and `paddle.distribution`) paddle_fn provides.

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
    "paddle.fft": ("paddle.fft", """
        fft ifft rfft irfft hfft ihfft fft2 ifft2 rfft2 irfft2 hfft2 ihfft2 fftn ifftn rfftn irfftn hfftn ihfftn
        fftfreq rfftfreq fftshift ifftshift"""),
    "paddle.signal": ("paddle.signal", "stft istft"),
    "paddle.audio.functional": ("paddle.audio.functional", "get_window"),
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
    "Random (Paddle 3)": ("paddle", """
        standard_gamma binomial get_rng_state set_rng_state get_cuda_rng_state set_cuda_rng_state"""),
    "paddle.distribution": ("paddle.distribution", """
        Distribution ExponentialFamily Bernoulli Beta Binomial Categorical Cauchy Chi2 ContinuousBernoulli Dirichlet
        Exponential Gamma Geometric Gumbel Independent Laplace LKJCholesky LogNormal Multinomial MultivariateNormal
        Normal Poisson StudentT TransformedDistribution Uniform Transform AbsTransform AffineTransform ChainTransform
        ExpTransform IndependentTransform PowerTransform ReshapeTransform SigmoidTransform SoftmaxTransform
        StackTransform StickBreakingTransform TanhTransform kl_divergence register_kl"""),
    "nn.functional: losses": ("paddle.nn.functional", """
        cross_entropy softmax_with_cross_entropy nll_loss binary_cross_entropy binary_cross_entropy_with_logits
        mse_loss l1_loss smooth_l1_loss kl_div square_error_cost margin_ranking_loss sigmoid_focal_loss
        hinge_embedding_loss ctc_loss dice_loss log_loss hsigmoid_loss margin_cross_entropy npair_loss"""),
    "Paddle 3.3: more of `paddle`": ("paddle", """
        abs_ acos_ adaptive_avg_pool1d addmm_ argwhere as_strided as_tensor asarray atan_ atleast_1d atleast_2d
        atleast_3d autocast baddbmm baddbmm_ batch bernoulli_ binomial bitwise_and_ bitwise_invert bitwise_invert_
        bitwise_left_shift bitwise_left_shift_ bitwise_not_ bitwise_or_ bitwise_right_shift bitwise_right_shift_
        bitwise_xor_ block_diag broadcast_shapes cartesian_prod cast_ cat cauchy_ cdist check_shape clamp
        column_stack combinations concatenate conv1d conv2d conv3d copysign copysign_ cos_ cummax cummin cumprod_
        cumsum_ cumulative_trapezoid diagonal_scatter digamma_ disable_compat disable_signal_handler disable_static
        div div_ divide_ dsplit dstack e enable_compat enable_grad enable_static eq equal_ erf_ expm1_ finfo
        flatten_ floor_divide_ floor_mod_ flops frac_ frexp from_dlpack from_numpy gammainc gammainc_ gammaincc
        gammaincc_ gammaln gammaln_ gcd_ ge geometric_ ger get_autocast_cpu_dtype get_autocast_dtype
        get_autocast_gpu_dtype get_cuda_rng_state get_rng_state greater greater_equal_ greater_than_ group_norm gt
        heaviside histogram_bin_edges histogramdd hsplit hstack hypot hypot_ i0 i0_ i0e i1 i1e iinfo index_add
        index_add_ index_fill index_fill_ index_put index_put_ inf is_autocast_enabled is_grad_enabled isin isneginf
        isposinf isreal layer_norm lcm_ ldexp ldexp_ le less less_ less_equal_ less_than_ lgamma_ load log10_ log2_
        log_ log_normal log_normal_ logaddexp logical_and_ logical_not_ logical_or_ logit_ lt manual_seed
        masked_fill masked_fill_ masked_scatter masked_scatter_ matrix_transpose mod_ msort mul multigammaln
        multigammaln_ multiply_ mv nan nan_to_num_ nanmedian nanquantile narrow ne neg_ negative newaxis nextafter
        normal_ pdist permute pi polar polygamma polygamma_ positive pow_ rand_like randn_like range ravel reduce_as
        remainder_ renorm renorm_ reshape_ reverse row_stack save scatter_ scatter_add scatter_add_ scatter_reduce
        select_scatter set_cuda_rng_state set_grad_enabled set_printoptions set_rng_state sgn signbit sin_ sinc
        sinc_ sinh_ slice_scatter softmax square_ squeeze_ standard_gamma sub sub_ subtract_ summary swapaxes
        swapdims t_ take take_along_dim tan_ tanh_ tensor_split tensordot to_dlpack transpose_ trapezoid tril_
        tril_indices triu_ triu_indices true_divide trunc_ unflatten unfold unsqueeze_ vander vecdot view view_as
        view_as_complex view_as_real vsplit vstack where_"""),
    "Paddle 3.3: classes and types of `paddle`": ("paddle", """
        dtype LazyGuard Size Model MmapStorage Tensor FloatTensor DoubleTensor HalfTensor BFloat16Tensor ByteTensor
        CharTensor ShortTensor IntTensor LongTensor BoolTensor ParamAttr CUDAPlace CPUPlace DataParallel
        CUDAPinnedPlace XPUPinnedPlace Generator"""),
    "Paddle 3.3: Tensor methods": ("paddle.Tensor", """
        acosh_ apply apply_ asin_ asinh_ atanh_ block byte ceil_ char cholesky cholesky_inverse cholesky_solve
        clamp_ clear_gradient coalesce cols cond contiguous copy_ corrcoef cosh_ cov create_tensor crows data
        data_ptr dense_dim detach_ device dim eig eigvals eigvalsh element_size erfinv_ exp_ fill_diagonal_
        fill_diagonal_tensor fill_diagonal_tensor_ floor_ get_device get_map_tensor get_selected_rows get_strides
        get_tensor grad_ grad_fn gradient householder_product indices inplace_version int inverse is_coalesced
        is_contiguous is_cuda is_dense is_dist is_leaf is_same_shape is_selected_rows is_sparse is_sparse_coo
        is_sparse_csr istft itemsize layout lerp_ log1p_ logical_xor_ long lstsq lu lu_unpack mT matrix_power mul_
        multi_dot name ndimension new_empty new_full new_ones new_zeros nnz norm not_equal_ num_shard offset ormqr
        pca_lowrank persistable pinv placements process_mesh put_along_axis_ qr random_ reciprocal_
        reconstruct_from_ repeat requires_grad requires_grad_ resize_ retain_grads round_ rows rsqrt_ set_
        set_string_list set_tensor set_vocab short sigmoid sigmoid_ slogdet solve sparse_dim split_with_sizes sqrt_
        stft stride strides svd_lowrank to to_dense to_sparse_coo to_sparse_csr top_p_sampling type type_as value
        values"""),
    "Paddle 3.3: paddle.nn layers": ("paddle.nn", """
        BatchNorm CELU GroupNorm LayerNorm SpectralNorm BatchNorm1D BatchNorm2D BatchNorm3D InstanceNorm1D
        InstanceNorm2D InstanceNorm3D SyncBatchNorm LocalResponseNorm Embedding Linear Upsample UpsamplingNearest2D
        UpsamplingBilinear2D Pad1D Pad2D Pad3D ConstantPad1D ConstantPad2D ConstantPad3D CircularPad1D CircularPad2D
        CircularPad3D ReplicationPad1D ReplicationPad2D ReplicationPad3D ReflectionPad1D ReflectionPad2D
        ReflectionPad3D CircularPad1d CircularPad2d CircularPad3d ConstantPad1d ConstantPad2d ConstantPad3d
        ReplicationPad1d ReplicationPad2d ReplicationPad3d ReflectionPad1d ReflectionPad2d ReflectionPad3d
        CosineSimilarity Dropout Dropout2D Dropout3D Bilinear AlphaDropout FeatureAlphaDropout Unfold Fold
        RNNCellBase SimpleRNNCell LSTMCell GRUCell RNN BiRNN SimpleRNN LSTM GRU dynamic_decode MultiHeadAttention
        Maxout Softsign Transformer MSELoss LogSigmoid BeamSearchDecoder ClipGradByNorm ReLU PairwiseDistance
        BCEWithLogitsLoss SmoothL1Loss MaxPool3D AdaptiveMaxPool2D Hardshrink Softplus KLDivLoss AvgPool2D L1Loss
        LeakyReLU AvgPool1D AdaptiveAvgPool3D AdaptiveMaxPool3D NLLLoss PoissonNLLLoss Conv1D Conv1d Sequential
        Hardswish Conv1DTranspose AdaptiveMaxPool1D TransformerEncoder Softmax Softmax2D ParameterDict ParameterList
        Conv2D Conv2d Softshrink Hardtanh TransformerDecoderLayer CrossEntropyLoss GELU GLU SELU Silu SiLU
        Conv2DTranspose CTCLoss RNNTLoss ThresholdedReLU AdaptiveAvgPool2D MaxPool1D Layer TransformerDecoder Conv3D
        Conv3d Tanh Conv3DTranspose Flatten AdaptiveAvgPool1D Tanhshrink HSigmoidLoss PReLU TransformerEncoderLayer
        AvgPool3D MaxPool2D MarginRankingLoss LayerList ClipGradByValue BCELoss Hardsigmoid ClipGradByGlobalNorm
        LogSoftmax Sigmoid Swish Mish PixelShuffle PixelUnshuffle ChannelShuffle ELU ReLU6 LayerDict ZeroPad2D
        MaxUnPool1D MaxUnPool2D MaxUnPool3D MultiLabelSoftMarginLoss HingeEmbeddingLoss Identity CosineEmbeddingLoss
        RReLU MultiMarginLoss MultiLabelMarginLoss TripletMarginWithDistanceLoss TripletMarginLoss SoftMarginLoss
        GaussianNLLLoss AdaptiveLogSoftmaxWithLoss Unflatten FractionalMaxPool2D FractionalMaxPool3D LPPool1D
        LPPool2D ZeroPad1D ZeroPad3D Parameter AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d LPPool2d
        LPPool1d Module ModuleDict ModuleList"""),
    "Paddle 3.3: more of paddle.nn.functional": ("paddle.nn.functional", """
        hardtanh_ leaky_relu_ logsigmoid swiglu tanh_ thresholded_relu_ sequence_mask dropout1d
        feature_alpha_dropout lp_pool1d lp_pool2d moe_permute moe_unpermute fractional_max_pool2d
        fractional_max_pool3d multi_label_soft_margin_loss poisson_nll_loss rnnt_loss pixel_unshuffle
        channel_shuffle gather_tree rms_norm cosine_embedding_loss triplet_margin_with_distance_loss
        triplet_margin_loss adaptive_log_softmax_with_loss multi_margin_loss multi_label_margin_loss
        soft_margin_loss gaussian_nll_loss scaled_dot_product_attention flashmask_attention flash_attn_qkvpacked
        flash_attention_v3_varlen flash_attn_varlen_qkvpacked"""),
    "Paddle 3.3: more of paddle.linalg": ("paddle.linalg", """
        cholesky_inverse matrix_norm vecdot vector_norm corrcoef cross matrix_transpose matmul svdvals
        householder_product pca_lowrank svd_lowrank lu_solve matrix_exp ormqr fp8_fp8_half_gemm_fused diagonal"""),
    "Paddle 3.3: paddle.optimizer": ("paddle.optimizer", """
        Optimizer Adagrad Adam AdamW Adamax ASGD RAdam RMSProp Adadelta SGD Rprop Momentum NAdam Lamb LBFGS"""),
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
    "paddle.Tensor.cuda": "placement is chosen by jit/device_put on IREE devices, not per Tensor",
    "paddle.Tensor.pin_memory": "host memory pinning is a CUDA-runtime detail that IREE manages",
    "paddle.Tensor.register_hook": "gradients are values returned by grad/vjp; use custom_vjp to change them",
    "paddle.nn.functional.class_center_sample": "a distributed (model-parallel) sampling op",
    "paddle.nn.functional.sparse_attention": "a CUDA-only kernel of Paddle",
    "paddle.sparse.nn.functional.attention": "a CUDA-only kernel of Paddle",
    "paddle.sparse.nn.SyncBatchNorm": "a multi-GPU layer of Paddle (NCCL); paddle.sparse.nn.BatchNorm on one device",
    "paddle.nn.functional.temporal_shift": "a video-model kernel outside the Tensor API's scope",
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
    **{f"paddle.fft.{name}": "fft" for name in (
        "fft ifft rfft irfft hfft ihfft fft2 ifft2 rfft2 irfft2 hfft2 ihfft2 fftn ifftn rfftn irfftn hfftn "
        "ihfftn").split()},
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
