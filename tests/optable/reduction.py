"""Op-table rows for paddle_fn.prims.reduction."""
import numpy as np

from paddle_fn.prims import reduction as R

from optable import Arg, OpRow


def _with_zero(shape, flat_index):
    """Normal values with one exact zero (the case a division-based product derivative gets wrong)."""
    def draw(rng):
        v = rng.normal(size=shape)
        v.reshape(-1)[flat_index] = 0.0
        return v
    return draw


def _ties(rng):
    """Rows whose maximum is attained twice."""
    v = rng.normal(size=(3, 4))
    v[:, 3] = v.max(axis=1)
    return v


def _with_nan(rng):
    v = rng.normal(size=(3, 4))
    v[1, 2] = v[2, 0] = v[2, 3] = np.nan
    return v


def _small_ints(shape):
    """Integers in -2..2: many ties, for argmax/argmin's first-occurrence rule and for sort's stability."""
    return lambda rng: rng.integers(-2, 3, size=shape)


def _numpy_sort(*operands, axis, num_keys=1):
    order = np.lexsort(operands[:num_keys][::-1], axis=axis)
    return [np.take_along_axis(o, order, axis=axis) for o in operands]


def _dot(spec):
    return lambda x, y: np.einsum(spec, x, y)


def _numpy_cum(ufunc, axis, reverse=False):
    def ref(x):
        if reverse:
            return np.flip(ufunc.accumulate(np.flip(x, axis), axis=axis), axis)
        return ufunc.accumulate(x, axis=axis)
    return ref


ROWS = [
    OpRow("reduce_sum", R.reduce_sum_p, lambda x: R.reduce_sum(x, axes=(0, 2)), (Arg((2, 3, 4)),),
          lambda x: x.sum(axis=(0, 2))),

    OpRow("reduce_max", R.reduce_max_p, lambda x: R.reduce_max(x, axes=(0, 2)), (Arg((2, 3, 4)),),
          lambda x: x.max(axis=(0, 2))),
    OpRow("reduce_max_f32", R.reduce_max_p, lambda x: R.reduce_max(x, axes=(1,)), (Arg((3, 4), "float32"),),
          lambda x: x.max(axis=1), diff=()),
    # A central difference at a tie averages the two one-sided slopes, which is the even split the JVP gives.
    # second_order is off: the check differentiates the VJP at points x +- eps*t, where the tie is broken, so
    # its finite difference jumps between the two tied positions.
    OpRow("reduce_max_ties", R.reduce_max_p, lambda x: R.reduce_max(x, axes=(1,)), (Arg((3, 4), domain=_ties),),
          lambda x: x.max(axis=1), diff=(0,), second_order=False),
    OpRow("reduce_max_int", R.reduce_max_p, lambda x: R.reduce_max(x, axes=(0,)), (Arg((3, 5), "int32", "int"),),
          lambda x: x.max(axis=0)),
    OpRow("reduce_max_bool", R.reduce_max_p, lambda x: R.reduce_max(x, axes=(1,)), (Arg((3, 5), "bool", "bool"),),
          lambda x: x.any(axis=1)),
    OpRow("reduce_min", R.reduce_min_p, lambda x: R.reduce_min(x, axes=(1, 2)), (Arg((2, 3, 4)),),
          lambda x: x.min(axis=(1, 2))),
    OpRow("reduce_min_bool", R.reduce_min_p, lambda x: R.reduce_min(x, axes=(0,)), (Arg((3, 5), "bool", "bool"),),
          lambda x: x.all(axis=0)),
    OpRow("reduce_min_int64", R.reduce_min_p, lambda x: R.reduce_min(x, axes=(0, 1)), (Arg((3, 5), "int64", "int"),),
          lambda x: x.min(axis=(0, 1))),

    OpRow("reduce_prod", R.reduce_prod_p, lambda x: R.reduce_prod(x, axes=(0, 2)), (Arg((2, 3, 4)),),
          lambda x: x.prod(axis=(0, 2))),
    OpRow("reduce_prod_zero", R.reduce_prod_p, lambda x: R.reduce_prod(x, axes=(1,)),
          (Arg((3, 4), domain=_with_zero((3, 4), 5)),), lambda x: x.prod(axis=1), diff=(0,)),
    OpRow("reduce_prod_f32", R.reduce_prod_p, lambda x: R.reduce_prod(x, axes=(0,)), (Arg((4, 3), "float32"),),
          lambda x: x.prod(axis=0), rtol=1e-6, atol=1e-6, diff=()),
    OpRow("reduce_prod_int", R.reduce_prod_p, lambda x: R.reduce_prod(x, axes=(1,)), (Arg((3, 4), "int32", "int"),),
          lambda x: x.prod(axis=1)),

    OpRow("argmax", R.argmax_p, lambda x: R.argmax(x, axis=1, index_dtype="int32"), (Arg((3, 4, 2)),),
          lambda x: np.argmax(x, axis=1).astype(np.int32)),
    OpRow("argmax_ties", R.argmax_p, lambda x: R.argmax(x, axis=1, index_dtype="int64"),
          (Arg((3, 5), "int32", _small_ints((3, 5))),), lambda x: np.argmax(x, axis=1)),
    OpRow("argmax_nan", R.argmax_p, lambda x: R.argmax(x, axis=1, index_dtype="int32"),
          (Arg((3, 4), domain=_with_nan),), lambda x: np.argmax(x, axis=1).astype(np.int32)),
    OpRow("argmin", R.argmin_p, lambda x: R.argmin(x, axis=0, index_dtype="int32"), (Arg((3, 4), "float32"),),
          lambda x: np.argmin(x, axis=0).astype(np.int32)),
    OpRow("argmin_ties", R.argmin_p, lambda x: R.argmin(x, axis=0, index_dtype="int32"),
          (Arg((5, 3), "int64", _small_ints((5, 3))),), lambda x: np.argmin(x, axis=0).astype(np.int32)),
    OpRow("argmin_nan", R.argmin_p, lambda x: R.argmin(x, axis=-1, index_dtype="int64"),
          (Arg((3, 4), domain=_with_nan),), lambda x: np.argmin(x, axis=-1)),

    OpRow("cumsum", R.cumsum_p, lambda x: R.cumsum(x, axis=1), (Arg((3, 4, 2)),), lambda x: np.cumsum(x, axis=1)),
    OpRow("cumsum_reverse", R.cumsum_p, lambda x: R.cumsum(x, axis=0, reverse=True), (Arg((5, 2)),),
          _numpy_cum(np.add, 0, reverse=True)),
    OpRow("cumsum_int", R.cumsum_p, lambda x: R.cumsum(x, axis=-1), (Arg((3, 4), "int32", "int"),),
          lambda x: np.cumsum(x, axis=-1, dtype=np.int32)),
    OpRow("cumprod", R.cumprod_p, lambda x: R.cumprod(x, axis=1), (Arg((2, 5)),), lambda x: np.cumprod(x, axis=1)),
    OpRow("cumprod_zero", R.cumprod_p, lambda x: R.cumprod(x, axis=1), (Arg((2, 6), domain=_with_zero((2, 6), 2)),),
          lambda x: np.cumprod(x, axis=1), diff=(0,)),
    OpRow("cumprod_reverse", R.cumprod_p, lambda x: R.cumprod(x, axis=0, reverse=True),
          (Arg((5, 2), domain=_with_zero((5, 2), 6)),), _numpy_cum(np.multiply, 0, reverse=True), diff=(0,)),
    OpRow("cummax", R.cummax_p, lambda x: R.cummax(x, axis=1), (Arg((3, 6)),), _numpy_cum(np.maximum, 1)),
    OpRow("cummax_reverse_f32", R.cummax_p, lambda x: R.cummax(x, axis=0, reverse=True), (Arg((6, 2), "float32"),),
          _numpy_cum(np.maximum, 0, reverse=True), rtol=1e-6, atol=1e-6, diff=()),
    OpRow("cummin", R.cummin_p, lambda x: R.cummin(x, axis=0), (Arg((6, 3)),), _numpy_cum(np.minimum, 0)),
    OpRow("cummin_reverse_int", R.cummin_p, lambda x: R.cummin(x, axis=1, reverse=True), (Arg((3, 6), "int32", "int"),),
          _numpy_cum(np.minimum, 1, reverse=True)),

    OpRow("dot_general_matvec", R.dot_general_p,
          lambda x, y: R.dot_general(x, y, dimension_numbers=(((1,), (0,)), ((), ()))),
          (Arg((3, 4)), Arg((4,))), _dot("ij,j->i")),
    OpRow("dot_general_matmul", R.dot_general_p,
          lambda x, y: R.dot_general(x, y, dimension_numbers=(((1,), (0,)), ((), ()))),
          (Arg((3, 4)), Arg((4, 5))), _dot("ij,jk->ik")),
    OpRow("dot_general_matmul_f32", R.dot_general_p,
          lambda x, y: R.dot_general(x, y, dimension_numbers=(((1,), (0,)), ((), ()))),
          (Arg((3, 4), "float32"), Arg((4, 5), "float32")), _dot("ij,jk->ik"), rtol=1e-5, atol=1e-6, diff=()),
    OpRow("dot_general_batched", R.dot_general_p,
          lambda x, y: R.dot_general(x, y, dimension_numbers=(((2,), (1,)), ((0,), (0,)))),
          (Arg((2, 3, 4)), Arg((2, 4, 5))), _dot("bij,bjk->bik")),
    # the rhs batch dim is not leading and the contraction is over two dims given out of order
    OpRow("dot_general_two_contractions", R.dot_general_p,
          lambda x, y: R.dot_general(x, y, dimension_numbers=(((3, 1), (0, 2)), ((0,), (3,)))),
          (Arg((2, 3, 5, 4)), Arg((4, 6, 3, 2))), _dot("bjxi,iyjb->bxy")),
    OpRow("dot_general_outer", R.dot_general_p,
          lambda x, y: R.dot_general(x, y, dimension_numbers=(((), ()), ((), ()))),
          (Arg((3,)), Arg((2,))), _dot("i,j->ij")),
    OpRow("dot_general_int", R.dot_general_p,
          lambda x, y: R.dot_general(x, y, dimension_numbers=(((0,), (1,)), ((), ()))),
          (Arg((4, 3), "int32", "int"), Arg((2, 4), "int32", "int")), _dot("ji,kj->ik")),
    OpRow("dot_general_preferred_f64", R.dot_general_p,
          lambda x, y: R.dot_general(x, y, dimension_numbers=(((1,), (0,)), ((), ())),
                                     preferred_element_type="float64"),
          (Arg((3, 4), "float32"), Arg((4, 2), "float32")),
          lambda x, y: x.astype(np.float64) @ y.astype(np.float64), diff=()),

    OpRow("sort", R.sort_p, lambda x: R.sort(x, dimension=1), (Arg((3, 5)),), lambda x: np.sort(x, axis=1)),
    OpRow("sort_nan_f32", R.sort_p, lambda x: R.sort(x, dimension=1), (Arg((3, 4), "float32", _with_nan),),
          lambda x: np.sort(x, axis=1), diff=()),
    OpRow("sort_int", R.sort_p, lambda x: R.sort(x, dimension=0), (Arg((5, 3), "int32", _small_ints((5, 3))),),
          lambda x: np.sort(x, axis=0)),
    OpRow("sort_two_operands", R.sort_p, lambda k, v: R.sort(k, v, dimension=0), (Arg((5, 3)), Arg((5, 3))),
          lambda k, v: _numpy_sort(k, v, axis=0)),
    # integer keys with ties: the stable order of the float payload is what the derivative must follow
    OpRow("sort_int_keys_payload", R.sort_p, lambda k, v: R.sort(k, v, dimension=1),
          (Arg((3, 5), "int32", _small_ints((3, 5))), Arg((3, 5))), lambda k, v: _numpy_sort(k, v, axis=1)),
    OpRow("sort_two_keys", R.sort_p, lambda k1, k2, v: R.sort(k1, k2, v, dimension=1, num_keys=2),
          (Arg((3, 6), "int32", _small_ints((3, 6))), Arg((3, 6)), Arg((3, 6))),
          lambda k1, k2, v: _numpy_sort(k1, k2, v, axis=1, num_keys=2)),
]
