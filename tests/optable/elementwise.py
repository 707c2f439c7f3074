"""Op-table rows for paddle_fn.prims.elementwise."""
import numpy as np
import scipy.special as sps

from paddle_fn.prims import bitwise as B
from paddle_fn.prims import elementwise as E

from optable import Arg, OpRow

S = (2, 3)


def _unary(name, fn, ref, domain="real", **kw):
    """A float unary row, checked through IREE in float32 as well."""
    kw.setdefault("lower_dtypes", ("float32",))
    return OpRow(name, getattr(E, f"{name}_p"), fn, (Arg(S, domain=domain),), ref, **kw)


ROWS = [
    _unary("neg", E.neg, np.negative),
    _unary("exp", E.exp, np.exp),
    _unary("log", E.log, np.log, "positive"),
    _unary("expm1", E.expm1, np.expm1),
    _unary("log1p", E.log1p, np.log1p, "positive"),
    _unary("sin", E.sin, np.sin),
    _unary("cos", E.cos, np.cos),
    _unary("tan", E.tan, np.tan, "unit"),
    _unary("asin", E.asin, np.arcsin, "unit"),
    _unary("acos", E.acos, np.arccos, "unit"),
    _unary("atan", E.atan, np.arctan),
    _unary("sinh", E.sinh, np.sinh),
    _unary("cosh", E.cosh, np.cosh),
    _unary("tanh", E.tanh, np.tanh),
    _unary("logistic", E.logistic, lambda x: 1 / (1 + np.exp(-x))),
    _unary("sqrt", E.sqrt, np.sqrt, "positive"),
    _unary("rsqrt", E.rsqrt, lambda x: 1 / np.sqrt(x), "positive"),
    _unary("erf", E.erf, sps.erf),
    _unary("erf_inv", E.erf_inv, sps.erfinv, "unit", fd_rtol=1e-5, second_order_rtol=1e-3),
    _unary("lgamma", E.lgamma, sps.gammaln, "positive"),
    _unary("digamma", E.digamma, sps.digamma, "positive"),
    OpRow("polygamma", E.polygamma_p, lambda x: E.polygamma(x, m=1), (Arg(S, domain="positive"),),
          lambda x: sps.polygamma(1, x)),
    _unary("abs", E.abs, np.abs, "nonzero"),
    OpRow("abs_int", E.abs_p, E.abs, (Arg(S, "int32", "int"),), np.abs),
    _unary("sign", E.sign, np.sign, "nonzero"),
    _unary("floor", E.floor, np.floor),
    _unary("ceil", E.ceil, np.ceil),
    OpRow("round", E.round_p, E.round_, (Arg((7,), domain=lambda r: np.array([-2.5, -1.5, -0.5, 0.4, 0.5, 1.5, 2.6])),),
          np.rint, diff=()),  # halves to even, as Paddle 3.3
    OpRow("is_finite", E.is_finite_p, E.is_finite,
          (Arg((4,), domain=lambda r: np.array([1.0, np.inf, -np.inf, np.nan])),), np.isfinite),
    OpRow("add", E.add_p, E.add, (Arg(S), Arg(S)), np.add),
    OpRow("add_int", E.add_p, E.add, (Arg(S, "int64", "int"), Arg(S, "int64", "int")), np.add),
    OpRow("sub", E.sub_p, E.sub, (Arg(S), Arg(S)), np.subtract),
    OpRow("mul", E.mul_p, E.mul, (Arg(S), Arg(S)), np.multiply),
    OpRow("div", E.div_p, E.div, (Arg(S), Arg(S, domain="nonzero")), np.divide),
    OpRow("div_int", E.div_p, E.div, (Arg(S, "int32", "int"), Arg(S, "int32", lambda r: np.array([[1, -2, 3], [-4, 5, 7]]))),
          lambda x, y: np.trunc(x / y).astype(np.int32)),
    OpRow("rem", E.rem_p, E.rem, (Arg(S), Arg(S, domain="nonzero")), np.fmod, second_order=False),
    OpRow("rem_int", E.rem_p, E.rem, (Arg(S, "int32", "int"), Arg(S, "int32", lambda r: np.array([[1, -2, 3], [-4, 5, 7]]))),
          np.fmod),
    OpRow("max", E.max_p, E.max, (Arg(S), Arg(S)), np.maximum),
    OpRow("min", E.min_p, E.min, (Arg(S), Arg(S)), np.minimum),
    OpRow("pow", E.pow_p, E.pow, (Arg(S, domain="positive"), Arg(S)), np.power),
    OpRow("integer_pow3", E.integer_pow_p, lambda x: E.integer_pow(x, y=3), (Arg(S),), lambda x: x ** 3),
    OpRow("integer_pow_neg2", E.integer_pow_p, lambda x: E.integer_pow(x, y=-2), (Arg(S, domain="nonzero"),),
          lambda x: x ** -2.0),
    OpRow("integer_pow_int", E.integer_pow_p, lambda x: E.integer_pow(x, y=2), (Arg(S, "int64", "int"),),
          lambda x: x ** 2),
    OpRow("atan2", E.atan2_p, E.atan2, (Arg(S), Arg(S, domain="nonzero")), np.arctan2),
    OpRow("eq", E.eq_p, E.eq, (Arg(S, "int32", "int"), Arg(S, "int32", "int")), np.equal),
    OpRow("ne", E.ne_p, E.ne, (Arg(S), Arg(S)), np.not_equal),
    OpRow("lt", E.lt_p, E.lt, (Arg(S), Arg(S)), np.less),
    OpRow("le", E.le_p, E.le, (Arg(S, "int64", "int"), Arg(S, "int64", "int")), np.less_equal),
    OpRow("gt", E.gt_p, E.gt, (Arg(S, "float32"), Arg(S, "float32")), np.greater),
    OpRow("ge", E.ge_p, E.ge, (Arg(S, "uint8", "index", high=5), Arg(S, "uint8", "index", high=5)), np.greater_equal),
    OpRow("and", B.and_p, B.and_, (Arg(S, "bool", "bool"), Arg(S, "bool", "bool")), np.logical_and),
    OpRow("and_int", B.and_p, B.and_, (Arg(S, "int32", "int"), Arg(S, "int32", "int")), np.bitwise_and),
    OpRow("or", B.or_p, B.or_, (Arg(S, "bool", "bool"), Arg(S, "bool", "bool")), np.logical_or),
    OpRow("xor", B.xor_p, B.xor, (Arg(S, "int8", "int"), Arg(S, "int8", "int")), np.bitwise_xor),
    OpRow("not", B.not_p, B.not_, (Arg(S, "bool", "bool"),), np.logical_not),
    OpRow("shift_left", B.shift_left_p, B.shift_left,
          (Arg(S, "uint32", "uint"), Arg(S, "uint32", "index", high=32)), lambda x, y: (x << y).astype(np.uint32)),
    OpRow("shift_right_logical", B.shift_right_logical_p, B.shift_right_logical,
          (Arg(S, "uint32", "uint"), Arg(S, "uint32", "index", high=32)), lambda x, y: (x >> y).astype(np.uint32)),
    OpRow("shift_right_arithmetic", B.shift_right_arithmetic_p, B.shift_right_arithmetic,
          (Arg(S, "int32", "int"), Arg(S, "int32", "index", high=4)), lambda x, y: (x >> y)),
    OpRow("select", E.select_p, E.select, (Arg(S, "bool", "bool"), Arg(S), Arg(S)), np.where),
    OpRow("clamp", E.clamp_p, E.clamp, (Arg((), domain=lambda r: np.array(-0.5)), Arg(S), Arg((), domain=lambda r: np.array(0.7))),
          lambda lo, x, hi: np.clip(x, lo, hi)),
    OpRow("clamp_full", E.clamp_p, E.clamp, (Arg(S, domain="unit"), Arg(S), Arg(S, domain="positive")),
          lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi)),
    OpRow("convert_f64_f32", E.convert_element_type_p, lambda x: E.convert_element_type(x, new_dtype="float32"),
          (Arg(S),), lambda x: x.astype(np.float32), rtol=1e-6, diff=()),
    OpRow("convert_f64_i32", E.convert_element_type_p, lambda x: E.convert_element_type(x, new_dtype="int32"),
          (Arg(S, domain=lambda r: np.array([[-2.7, -0.5, 0.0], [0.5, 1.9, 3.2]])),), lambda x: np.trunc(x).astype(np.int32)),
    OpRow("convert_i32_f64", E.convert_element_type_p, lambda x: E.convert_element_type(x, new_dtype="float64"),
          (Arg(S, "int32", "int"),), lambda x: x.astype(np.float64)),
    OpRow("convert_f32_f64", E.convert_element_type_p, lambda x: E.convert_element_type(x, new_dtype="float64"),
          (Arg(S, "float32"),), lambda x: x.astype(np.float64), diff=()),
    # half precision: values and lowering (derivative checks need float64)
    OpRow("add_f16", E.add_p, E.add, (Arg(S, "float16"), Arg(S, "float16")), np.add, rtol=1e-3, atol=1e-3, diff=()),
    OpRow("exp_bf16", E.exp_p, E.exp, (Arg(S, "bfloat16"),), lambda x: np.exp(x.astype(np.float32)),
          rtol=1e-2, atol=1e-2, diff=()),
    OpRow("mul_bf16", E.mul_p, E.mul, (Arg(S, "bfloat16"), Arg(S, "bfloat16")),
          lambda x, y: x.astype(np.float32) * y.astype(np.float32), rtol=1e-2, atol=1e-2, diff=()),
    OpRow("tanh_f16", E.tanh_p, E.tanh, (Arg(S, "float16"),), lambda x: np.tanh(x.astype(np.float32)),
          rtol=2e-3, atol=2e-3, diff=()),
    # stop_gradient deliberately differs from the derivative of its value, so finite differences do not apply;
    # its zero derivative is checked in test_transforms.py::test_stop_gradient
    OpRow("stop_gradient", E.stop_gradient_p, lambda x: E.mul(E.stop_gradient(x), x), (Arg(S),),
          lambda x: x * x, diff=()),
    OpRow("bitcast_f32_u32", E.bitcast_convert_type_p, lambda x: E.bitcast_convert_type(x, new_dtype="uint32"),
          (Arg(S, "float32"),), lambda x: x.view(np.uint32), diff=()),
    # to a narrower type a trailing dimension of the width ratio appears; to a wider one it goes
    OpRow("bitcast_f32_u8", E.bitcast_convert_type_p, lambda x: E.bitcast_convert_type(x, new_dtype="uint8"),
          (Arg(S, "float32"),), lambda x: x.reshape(x.shape + (1,)).view(np.uint8), diff=()),
    OpRow("bitcast_i16_f64", E.bitcast_convert_type_p, lambda x: E.bitcast_convert_type(x, new_dtype="float64"),
          (Arg((3, 4), "int16"),), lambda x: x.view(np.float64).reshape(x.shape[:-1]), diff=()),
]
