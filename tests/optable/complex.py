"""Op-table rows in complex128: the complex-parts primitives, and the elementwise, reduction, product,
structural, slicing and linear-algebra primitives that take complex numbers (finite differences along random complex directions, the
transpose identity under Re(sum(a * b)), vmap, the eager tape in Paddle's convention, and IREE in complex64 too)."""
import numpy as np
import scipy.linalg

from paddle_fn.prims import complex_parts as C
from paddle_fn.prims import elementwise as E
from paddle_fn.prims import linalg as LA
from paddle_fn.prims import reduction as R
from paddle_fn.prims import slicing as Sl
from paddle_fn.prims import structural as St

from optable import Arg, OpRow
from optable.linalg import _lu_ref

S = (2, 3)
Z = "complex128"


def _z(shape=S, domain="real"):
    return Arg(shape, Z, domain)


def _unary(name, fn, ref, domain="real", **kw):
    """A complex unary row of a transcendental function. Not run through IREE by the row test: IREE 3.13 compiles
    complex128 transcendentals to libm calls (cos, sin, exp, ...) that its embedded linker cannot resolve, which
    only jit's system-linker fallback rescues (docs/architecture.md); tests/test_complex.py runs them jitted."""
    kw.setdefault("lower", False)
    return OpRow(f"{name}_complex", getattr(E, f"{name}_p"), fn, (_z(domain=domain),), ref, **kw)


def _binary(name, fn, ref, domain="real", **kw):
    kw.setdefault("lower_dtypes", ("complex64",))
    return OpRow(f"{name}_complex", getattr(E, f"{name}_p"), fn, (_z(), _z(domain=domain)), ref, **kw)


ROWS = [
    OpRow("real", C.real_p, C.real, (_z(),), np.real, lower_dtypes=("complex64",)),
    OpRow("imag", C.imag_p, C.imag, (_z(),), np.imag, lower_dtypes=("complex64",)),
    OpRow("conj", C.conj_p, C.conj, (_z(),), np.conj, lower_dtypes=("complex64",)),
    OpRow("complex", C.complex_p, C.complex_, (Arg(S), Arg(S)), lambda x, y: x + 1j * y, lower_dtypes=("float32",)),
    _unary("neg", E.neg, np.negative, lower=True, lower_dtypes=("complex64",)),
    _unary("exp", E.exp, np.exp),
    _unary("log", E.log, np.log, "nonzero"),
    _unary("expm1", E.expm1, np.expm1),
    _unary("log1p", E.log1p, np.log1p, "positive"),
    _unary("sin", E.sin, np.sin),
    _unary("cos", E.cos, np.cos),
    _unary("tan", E.tan, np.tan, "unit"),
    _unary("asin", E.asin, np.arcsin, "unit"),
    _unary("acos", E.acos, np.arccos, "unit"),
    _unary("atan", E.atan, np.arctan, "unit"),
    _unary("sinh", E.sinh, np.sinh),
    _unary("cosh", E.cosh, np.cosh),
    _unary("tanh", E.tanh, np.tanh, "unit"),
    _unary("logistic", E.logistic, lambda x: 1 / (1 + np.exp(-x)), "unit"),
    _unary("sqrt", E.sqrt, np.sqrt, "positive"),
    _unary("rsqrt", E.rsqrt, lambda x: 1 / np.sqrt(x), "positive"),
    _unary("abs", E.abs, np.abs, "nonzero", lower=True, lower_dtypes=("complex64",)),
    _unary("sign", E.sign, np.sign, "nonzero", diff=(), lower=True, lower_dtypes=("complex64",)),
    OpRow("integer_pow_complex", E.integer_pow_p, lambda x: E.integer_pow(x, y=3), (_z(),), lambda x: x ** 3,
          lower_dtypes=("complex64",)),
    OpRow("integer_pow_negative_complex", E.integer_pow_p, lambda x: E.integer_pow(x, y=-2),
          (_z(domain="nonzero"),), lambda x: x ** -2, lower_dtypes=("complex64",)),
    _binary("add", E.add, np.add),
    _binary("sub", E.sub, np.subtract),
    _binary("mul", E.mul, np.multiply),
    _binary("div", E.div, np.divide, "nonzero"),
    OpRow("pow_complex", E.pow_p, E.pow, (_z(domain="positive"), _z()), np.power, lower=False),  # libm, as _unary
    OpRow("eq_complex", E.eq_p, E.eq, (_z(), _z()), np.equal),
    OpRow("select_complex", E.select_p, E.select, (Arg(S, "bool", "bool"), _z(), _z()), np.where),
    OpRow("convert_complex_to_real", E.convert_element_type_p,
          lambda x: E.convert_element_type(x, new_dtype="float64"), (_z(),), np.real),
    OpRow("convert_real_to_complex", E.convert_element_type_p,
          lambda x: E.convert_element_type(x, new_dtype=Z), (Arg(S),), lambda x: x.astype(np.complex128)),
    OpRow("reduce_sum_complex", R.reduce_sum_p, lambda x: R.reduce_sum(x, axes=(1,)), (_z(),),
          lambda x: x.sum(axis=1)),
    OpRow("reduce_prod_complex", R.reduce_prod_p, lambda x: R.reduce_prod(x, axes=(1,)), (_z(),),
          lambda x: x.prod(axis=1)),
    OpRow("cumsum_complex", R.cumsum_p, lambda x: R.cumsum(x, axis=1), (_z(),), lambda x: np.cumsum(x, axis=1)),
    OpRow("cumprod_complex", R.cumprod_p, lambda x: R.cumprod(x, axis=1), (_z(),), lambda x: np.cumprod(x, axis=1)),
    OpRow("dot_general_complex", R.dot_general_p,
          lambda x, y: R.dot_general(x, y, dimension_numbers=(((1,), (0,)), ((), ()))), (_z((2, 3)), _z((3, 4))),
          np.matmul, lower_dtypes=("complex64",)),
    OpRow("transpose_complex", St.transpose_p, lambda x: St.transpose(x, permutation=(1, 0)), (_z(),), np.transpose),
    OpRow("reshape_complex", St.reshape_p, lambda x: St.reshape(x, new_sizes=(3, 2)), (_z(),),
          lambda x: x.reshape(3, 2)),
    OpRow("broadcast_in_dim_complex", St.broadcast_in_dim_p,
          lambda x: St.broadcast_in_dim(x, shape=(4, 2, 3), broadcast_dimensions=(1, 2)), (_z(),),
          lambda x: np.broadcast_to(x, (4, 2, 3))),
    OpRow("concatenate_complex", St.concatenate_p, lambda a, b: St.concatenate(a, b, dimension=1), (_z(), _z()),
          lambda a, b: np.concatenate([a, b], axis=1)),
    OpRow("slice_complex", St.slice_p, lambda x: St.slice(x, start_indices=(1, 0), limit_indices=(2, 2)), (_z(),),
          lambda x: x[1:2, 0:2]),
    OpRow("squeeze_complex", St.squeeze_p, lambda x: St.squeeze(x, dimensions=(0,)), (_z((1, 3)),),
          lambda x: x.reshape(3)),
    OpRow("gather_complex", Sl.gather_p,
          lambda x, i: Sl.gather(x, St.expand_dims(i, dimensions=(1,)), slice_sizes=(1, 3),
                                 dimension_numbers=Sl.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                                                             start_index_map=(0,))),
          (_z((4, 3)), Arg((5,), "int32", "index", high=4)), lambda x, i: x[i], diff=(0,)),
    OpRow("scatter_add_complex", Sl.scatter_add_p,
          lambda x, i, u: Sl.scatter_add(x, i, u, dimension_numbers=Sl.ScatterDimensionNumbers(
              update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))),
          (_z((4, 3)), Arg((5, 1), "int32", domain=lambda rng: np.array([[0], [2], [0], [3], [2]])), _z((5, 3))),
          lambda x, i, u: _scatter_added(x, i[:, 0], u), diff=(0, 2)),
    OpRow("rev_complex", St.rev_p, lambda x: St.rev(x, dimensions=(1,)), (_z(),), lambda x: x[:, ::-1]),
    # IREE 3.13 cannot compile a complex pad itself; llvm-cpu pads the parts (lowering/llvm_cpu_pad.py)
    OpRow("pad_complex", St.pad_p, lambda x, v: St.pad(x, v, padding_config=((1, 0, 0), (0, 2, 0))), (_z(), _z(())),
          lambda x, v: np.pad(x, ((1, 0), (0, 2)), constant_values=v), lower_dtypes=("complex64",)),
    OpRow("dynamic_update_slice_complex", Sl.dynamic_update_slice_p,
          lambda x, u, i: Sl.dynamic_update_slice(x, u, i, i), (_z(), _z((1, 2)), Arg((), "int32", lambda r: 1)),
          lambda x, u, i: _updated(x, u), diff=(0, 1)),
]


def _complex_normal(rng, shape):
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


def _well_conditioned(shape):
    return lambda rng: _complex_normal(rng, shape) + 4 * np.eye(shape[-1])


def _adjoint(m):
    return np.conj(np.swapaxes(m, -1, -2))


def _hermitian(shape):
    def draw(rng):
        m = _complex_normal(rng, shape)
        return (m + _adjoint(m)) / 2
    return draw


def _positive_definite(shape):
    def draw(rng):
        m = _complex_normal(rng, shape)
        return m @ _adjoint(m) + shape[-1] * np.eye(shape[-1])
    return draw


# The decompositions of complex matrices lower through real arithmetic (prims/linalg_complex.py); eigh and svd rows
# check gauge-free values (eigenvalues, singular values, u @ vh), since their jit phases follow the expansions'
# convention rather than LAPACK's
ROWS += [
    OpRow("triangular_solve_complex", LA.triangular_solve_p,
          lambda a, b: LA.triangular_solve(a, b, lower=True, transpose_a=True),
          (Arg((3, 3), Z, _well_conditioned((3, 3))), _z((3, 2))),
          lambda a, b: scipy.linalg.solve_triangular(a, b, lower=True, trans=1), lower_dtypes=("complex64",)),
    OpRow("lu_complex", LA.lu_p, LA.lu, (Arg((3, 3), Z, _well_conditioned((3, 3))),), _lu_ref),
    OpRow("cholesky_complex", LA.cholesky_p, LA.cholesky, (Arg((3, 3), Z, _positive_definite((3, 3))),),
          np.linalg.cholesky),
    OpRow("qr_complex", LA.qr_p, LA.qr, (Arg((4, 3), Z, lambda rng: _complex_normal(rng, (4, 3))),),
          lambda a: list(np.linalg.qr(a)), lower_dtypes=("complex64",)),
    OpRow("qr_complex_wide_complete", LA.qr_p, lambda a: LA.qr(a, full_matrices=True),
          (Arg((2, 3), Z, lambda rng: _complex_normal(rng, (2, 3))),), lambda a: list(np.linalg.qr(a, "complete")),
          diff=()),
    OpRow("eigh_complex_eigenvalues", LA.eigh_p, lambda a: LA.eigh(a)[0], (Arg((3, 3), Z, _hermitian((3, 3))),),
          np.linalg.eigvalsh, lower_dtypes=("complex64",)),
    OpRow("eigh_complex_projectors", LA.eigh_p, lambda a: _projectors(LA.eigh(a)[1]),
          (Arg((3, 3), Z, _hermitian((3, 3))),), lambda a: _projectors_np(np.linalg.eigh(a)[1])),
    OpRow("svd_complex_singular_values", LA.svd_p, lambda a: LA.svd(a)[1],
          (Arg((4, 3), Z, lambda rng: _complex_normal(rng, (4, 3))),),
          lambda a: np.linalg.svd(a, compute_uv=False), lower_dtypes=("complex64",)),
    OpRow("svd_complex_wide_u_vh", LA.svd_p, lambda a: LA.matmul(LA.svd(a)[0], LA.svd(a)[2]),
          (Arg((2, 3), Z, lambda rng: _complex_normal(rng, (2, 3))),),
          lambda a: np.linalg.svd(a, full_matrices=False)[0] @ np.linalg.svd(a, full_matrices=False)[2]),
]


def _projectors(v):
    """v[:, j] v[:, j]^H for each column j of v [n, k], stacked [k, n, n]: free of the eigenvectors' phases."""
    n, k = v.shape
    columns = St.transpose(v, permutation=(1, 0))
    return E.mul(St.broadcast_in_dim(columns, shape=(k, n, n), broadcast_dimensions=(0, 1)),
                 St.broadcast_in_dim(C.conj(columns), shape=(k, n, n), broadcast_dimensions=(0, 2)))


def _projectors_np(v):
    return np.einsum("aj,bj->jab", v, v.conj())


def _scatter_added(x, rows, u):
    y = x.copy()
    np.add.at(y, rows, u)
    return y


def _updated(x, u):
    y = x.copy()
    y[1:2, 1:3] = u
    return y
