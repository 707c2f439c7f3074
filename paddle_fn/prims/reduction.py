"""Reductions, scans, sorting, index reductions and dot_general. Each block gives every rule of one primitive."""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.autodiff import is_undefined
from paddle_fn.core.batching import batch_size, bdim_at_front
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import LINEAR, NONLINEAR, ZERO_TANGENT, Primitive
from paddle_fn.core.trace import Tracer, get_aval
from paddle_fn.lowering.emitter import COMPLEX_PART, compare_type, tensor_type
from paddle_fn.lowering.precision import lower_product
from paddle_fn.prims import _blas
from paddle_fn.prims._rules import fmt, normalize_axis, require_kind, scalar_like
from paddle_fn.prims.base import (  # noqa: F401 - reduce_sum is re-exported as part of the reduction family
    bind_reduction, broadcast_in_dim, full_like, hlo_binop, reduce_batch_rule, reduce_lower_rule, reduce_shape_rule,
    reduce_sum, reduce_sum_p, reduction_identity, reshape, shift_axes, transpose)
from paddle_fn.prims.bitwise import or_
from paddle_fn.prims.elementwise import add, bilinear_jvp, convert_element_type, div, eq, mul, ne, select
from paddle_fn.prims.slicing import GatherDimensionNumbers, gather
from paddle_fn.prims.structural import iota, pad


def _take_along_axis(x, indices, axis):
    """out[..., i, ...] = x[..., indices[..., i, ...], ...] along `axis` (indices has x's shape)."""
    shape = get_aval(x).shape
    others = tuple(d for d in range(len(shape)) if d != axis)
    dn = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,), start_index_map=(axis,),
                                operand_batching_dims=others, start_indices_batching_dims=others)
    return gather(x, reshape(indices, new_sizes=shape + (1,)), dimension_numbers=dn, slice_sizes=(1,) * len(shape))


def _shift(x, axis, offset, reverse, fill):
    """x moved `offset` places along `axis` (towards the end, or the start if `reverse`), opened with `fill`."""
    move = (-offset, offset, 0) if reverse else (offset, -offset, 0)
    return pad(x, scalar_like(x, fill), padding_config=tuple(move if d == axis else (0, 0, 0)
                                                              for d in range(get_aval(x).ndim)))


class _ScalarRegion:
    """The body of a comparator or reducer region over 0-d tensors (argmax's reducer, sort's less-than)."""

    def __init__(self, ctx):
        self.ctx, self.lines = ctx, []
        self.bool_type = tensor_type(ShapedArray((), dtypes.bool_))

    def emit(self, text):
        name = self.ctx.fresh()
        self.lines.append(f"{name} = {text}")
        return name

    def logic(self, op, *operands):
        return self.emit(f"stablehlo.{op} {', '.join(operands)} : {self.bool_type}")

    def compare(self, direction, a, b, dtype):
        t = tensor_type(ShapedArray((), dtype))
        return self.emit(f"stablehlo.compare {direction}, {a}, {b}, {compare_type(dtype)} : ({t}, {t}) -> "
                         f"{self.bool_type}")

    def parts(self, a, dtype):
        """The real and imaginary parts of the complex scalar `a`, and their dtype."""
        part = COMPLEX_PART[dtype.name]
        t, tp = tensor_type(ShapedArray((), dtype)), tensor_type(ShapedArray((), part))
        return self.emit(f"stablehlo.real {a} : ({t}) -> {tp}"), self.emit(f"stablehlo.imag {a} : ({t}) -> {tp}"), part

    def precedes(self, direction, a, b, dtype, *, nan_first):
        """`a direction b` (LT or GT), with nan ordered before (nan_first) or after every number; complex numbers
        by real part, then imaginary part (numpy's order)."""
        if dtype.kind == "c":
            (ar, ai, part), (br, bi, _) = self.parts(a, dtype), self.parts(b, dtype)
            by_imag = self.logic("and", self.equivalent(ar, br, part),
                                 self.precedes(direction, ai, bi, part, nan_first=nan_first))
            return self.logic("or", self.precedes(direction, ar, br, part, nan_first=nan_first), by_imag)
        out = self.compare(direction, a, b, dtype)
        if dtype.kind != "f":
            return out
        a_nan, b_nan = self.compare("NE", a, a, dtype), self.compare("NE", b, b, dtype)
        nan_vs_number = (self.logic("and", a_nan, self.logic("not", b_nan)) if nan_first else
                         self.logic("and", self.logic("not", a_nan), b_nan))
        return self.logic("or", out, nan_vs_number)

    def equivalent(self, a, b, dtype):
        """a == b, with nan equivalent to nan (complex: part by part)."""
        if dtype.kind == "c":
            (ar, ai, part), (br, bi, _) = self.parts(a, dtype), self.parts(b, dtype)
            return self.logic("and", self.equivalent(ar, br, part), self.equivalent(ai, bi, part))
        out = self.compare("EQ", a, b, dtype)
        if dtype.kind != "f":
            return out
        both_nan = self.logic("and", self.compare("NE", a, a, dtype), self.compare("NE", b, b, dtype))
        return self.logic("or", out, both_nan)

    def text(self, block_args, results, result_types):
        """The region `({ ^bb0(block_args): body; stablehlo.return results })`."""
        indent = self.ctx.indent
        body = [" " * (indent + 4) + line for line in self.lines]
        body.append(" " * (indent + 4) + f"stablehlo.return {', '.join(results)} : {', '.join(result_types)}")
        head = ", ".join(f"{name}: {t}" for name, t in block_args)
        return f"({{\n{' ' * (indent + 2)}^bb0({head}):\n" + "\n".join(body) + f"\n{' ' * indent}}})"


# ---------------------------------------------------------------------------------------------- reduce_max / reduce_min

def _reduce_chooser_impl(np_fn, op):
    def impl(x, *, axes):
        init = reduction_identity(op, dtypes.as_dtype(x.dtype))
        return np_fn(x, axis=axes, initial=init)
    return impl


def _reduce_chooser_jvp(reducer):
    def jvp(primals, tangents, *, axes):
        (x,), (t,) = primals, tangents
        out = reducer(x, axes=axes)
        shape = get_aval(x).shape
        kept = tuple(i for i in range(len(shape)) if i not in axes)
        # every position attaining the extremum shares the tangent equally, so ties give a symmetric derivative
        hits = convert_element_type(eq(x, broadcast_in_dim(out, shape=shape, broadcast_dimensions=kept)),
                                    new_dtype=get_aval(t).dtype)
        return out, div(reduce_sum(mul(t, hits), axes=axes), reduce_sum(hits, axes=axes))
    return jvp


def _reduce_chooser_vjp(reducer):
    """The transpose of the chooser's tangent map at cotangent `ct`: the eager tape's reverse rule (no
    linearization)."""
    def vjp(primals, ct, *, axes):
        (x,) = primals
        shape = get_aval(x).shape
        kept = tuple(i for i in range(len(shape)) if i not in axes)
        hits = convert_element_type(eq(x, broadcast_in_dim(reducer(x, axes=axes), shape=shape,
                                                           broadcast_dimensions=kept)), new_dtype=get_aval(ct).dtype)
        share = div(ct, reduce_sum(hits, axes=axes))
        return [mul(broadcast_in_dim(share, shape=shape, broadcast_dimensions=kept), hits)]
    return vjp


reduce_max_p = Primitive("reduce_max", shape_rule=reduce_shape_rule("reduce_max", "fiub"),
                         impl=_reduce_chooser_impl(np.max, "max"),
                         jvp=_reduce_chooser_jvp(lambda x, axes: reduce_max(x, axes=axes)),
                         vjp=_reduce_chooser_vjp(lambda x, axes: reduce_max(x, axes=axes)), transpose=NONLINEAR,
                         batch=reduce_batch_rule(lambda x, axes: reduce_max(x, axes=axes)),
                         lower=reduce_lower_rule("max"))


def reduce_max(x, *, axes):
    """Maximum over `axes` (nan propagates; over bool it is `any`)."""
    return bind_reduction(reduce_max_p, x, axes)


reduce_min_p = Primitive("reduce_min", shape_rule=reduce_shape_rule("reduce_min", "fiub"),
                         impl=_reduce_chooser_impl(np.min, "min"),
                         jvp=_reduce_chooser_jvp(lambda x, axes: reduce_min(x, axes=axes)),
                         vjp=_reduce_chooser_vjp(lambda x, axes: reduce_min(x, axes=axes)), transpose=NONLINEAR,
                         batch=reduce_batch_rule(lambda x, axes: reduce_min(x, axes=axes)),
                         lower=reduce_lower_rule("min"))


def reduce_min(x, *, axes):
    """Minimum over `axes` (nan propagates; over bool it is `all`)."""
    return bind_reduction(reduce_min_p, x, axes)


# ---------------------------------------------------------------------------------------------- reduce_prod

def _reduce_prod_impl(x, *, axes):
    if x.dtype == np.bool_:
        return np.all(x, axis=axes)
    return np.prod(x, axis=axes, dtype=x.dtype)


def _reduce_prod_jvp(primals, tangents, *, axes):
    (x,), (t,) = primals, tangents
    shape = get_aval(x).shape
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    out = reduce_prod(x, axes=axes)
    n = math.prod(shape[a] for a in axes)
    if n == 0:
        return out, full_like(out, 0)
    flat_shape = (n,) + tuple(shape[i] for i in kept)
    x_flat = reshape(transpose(x, permutation=axes + kept), new_sizes=flat_shape)
    t_flat = reshape(transpose(t, permutation=axes + kept), new_sizes=flat_shape)
    # d prod = sum_i t_i * prod_{j != i} x_j; the product of the others is the exclusive prefix product times the
    # exclusive suffix product: no division, so zeros in x are handled, and it stays differentiable
    before = _shift(cumprod(x_flat, axis=0), 0, 1, False, 1)
    after = _shift(cumprod(x_flat, axis=0, reverse=True), 0, 1, True, 1)
    return out, reduce_sum(mul(t_flat, mul(before, after)), axes=(0,))


reduce_prod_p = Primitive("reduce_prod", shape_rule=reduce_shape_rule("reduce_prod"), impl=_reduce_prod_impl,
                          jvp=_reduce_prod_jvp, transpose=NONLINEAR,
                          batch=reduce_batch_rule(lambda x, axes: reduce_prod(x, axes=axes)),
                          lower=reduce_lower_rule("mul"))


def reduce_prod(x, *, axes):
    """Product over `axes` (over bool it is `all`)."""
    return bind_reduction(reduce_prod_p, x, axes)


# ---------------------------------------------------------------------------------------------- argmax / argmin

def _argreduce_shape_rule(name):
    def rule(x, *, axis, index_dtype):
        require_kind(name, x, "fiub", "a numeric or bool")
        if not 0 <= axis < x.ndim:
            raise ShapeError(f"{name}: axis {axis} is out of range for {fmt(x)}")
        if x.shape[axis] == 0:
            raise ShapeError(f"{name}: axis {axis} of {fmt(x)} is empty, so there is no position to return")
        if index_dtype.kind not in "iu":
            raise DTypeError(f"{name}: index_dtype must be an integer dtype, got {index_dtype.name}")
        return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i != axis), index_dtype)
    return rule


def _arg_reduce_batch(arg_reducer):
    def batch(vals, dims, *, axis, index_dtype):
        (x,), (d,) = vals, dims
        (new_axis,), out_d = shift_axes((axis,), d)
        return arg_reducer(x, axis=new_axis, index_dtype=index_dtype), out_d
    return batch


def _arg_reduce_lower(direction, op):
    """stablehlo.reduce over (value, index) pairs; the reducer keeps the first nan, else the extremum, else the
    smaller index, so it is associative and commutative and matches numpy's first-occurrence rule."""
    def lower(ctx, x, *, axis, index_dtype):
        a_in, a_out = ctx.avals_in[0], ctx.avals_out[0]
        indices = a_in.update(dtype=index_dtype)
        v_t, i_t = tensor_type(ShapedArray((), a_in.dtype)), tensor_type(ShapedArray((), index_dtype))
        positions = ctx.fresh()
        ctx.line(f"{positions} = stablehlo.iota dim = {axis} : {tensor_type(indices)}")
        v0 = ctx.constant(reduction_identity(op, a_in.dtype), ShapedArray((), a_in.dtype))
        i0 = ctx.constant(0, ShapedArray((), index_dtype))
        va, ia, vb, ib = (ctx.fresh() for _ in range(4))
        r = _ScalarRegion(ctx)
        better = r.precedes(direction, va, vb, a_in.dtype, nan_first=True)
        first = r.logic("and", r.equivalent(va, vb, a_in.dtype), r.compare("LT", ia, ib, index_dtype))
        keep_a = r.logic("or", better, first)
        v = r.emit(f"stablehlo.select {keep_a}, {va}, {vb} : {r.bool_type}, {v_t}")
        i = r.emit(f"stablehlo.select {keep_a}, {ia}, {ib} : {r.bool_type}, {i_t}")
        region = r.text([(va, v_t), (ia, i_t), (vb, v_t), (ib, i_t)], [v, i], [v_t, i_t])
        res = ctx.fresh()
        ctx.line(f'{res}:2 = "stablehlo.reduce"({x}, {positions}, {v0}, {i0}) {region} '
                 f"{{dimensions = array<i64: {axis}>}} : ({tensor_type(a_in)}, {tensor_type(indices)}, {v_t}, "
                 f"{i_t}) -> ({tensor_type(a_out.update(dtype=a_in.dtype))}, {tensor_type(a_out)})")
        return f"{res}#1"
    return lower


argmax_p = Primitive("argmax", shape_rule=_argreduce_shape_rule("argmax"),
                     impl=lambda x, *, axis, index_dtype: np.argmax(x, axis=axis).astype(index_dtype.np),
                     jvp=ZERO_TANGENT, transpose=NONLINEAR, batch=_arg_reduce_batch(lambda x, **p: argmax(x, **p)),
                     lower=_arg_reduce_lower("GT", "max"))


def argmax(x, *, axis: int, index_dtype):
    """Index of the maximum along `axis`: the first one on ties, the first nan if there is one (as numpy)."""
    return argmax_p.bind(x, axis=normalize_axis("argmax", int(axis), get_aval(x).ndim),
                         index_dtype=dtypes.as_dtype(index_dtype))


argmin_p = Primitive("argmin", shape_rule=_argreduce_shape_rule("argmin"),
                     impl=lambda x, *, axis, index_dtype: np.argmin(x, axis=axis).astype(index_dtype.np),
                     jvp=ZERO_TANGENT, transpose=NONLINEAR, batch=_arg_reduce_batch(lambda x, **p: argmin(x, **p)),
                     lower=_arg_reduce_lower("LT", "min"))


def argmin(x, *, axis: int, index_dtype):
    """Index of the minimum along `axis`: the first one on ties, the first nan if there is one (as numpy)."""
    return argmin_p.bind(x, axis=normalize_axis("argmin", int(axis), get_aval(x).ndim),
                         index_dtype=dtypes.as_dtype(index_dtype))


# ---------------------------------------------------------------------------------------------- cumulative ops

def _cumulative_shape(name):
    def rule(x, *, axis, reverse):
        require_kind(name, x, "fiuc", "a numeric")
        if not 0 <= axis < x.ndim:
            raise ShapeError(f"{name}: axis {axis} is out of range for {fmt(x)}")
        return x
    return rule


def _cumulative_impl(ufunc):
    def impl(x, *, axis, reverse):
        if reverse:
            return np.flip(ufunc.accumulate(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
        return ufunc.accumulate(x, axis=axis, dtype=x.dtype)
    return impl


def _cumulative_batch(scan):
    def batch(vals, dims, *, axis, reverse):
        (x,), (d,) = vals, dims
        return scan(x, axis=axis + (d <= axis), reverse=reverse), d
    return batch


def _cumulative_lower(op):
    """reduce_window with a window as long as the axis, padded by length-1 identities before (after if reverse)."""
    def lower(ctx, x, *, axis, reverse):
        a = ctx.avals_in[0]
        if a.size == 0:
            return x
        scalar = ShapedArray((), a.dtype)
        init = ctx.constant(reduction_identity(op, a.dtype), scalar)
        n = a.shape[axis]
        window = ", ".join(str(n if d == axis else 1) for d in range(a.ndim))
        pad = ", ".join(("[0, %d]" if reverse else "[%d, 0]") % (n - 1) if d == axis else "[0, 0]"
                        for d in range(a.ndim))
        region = ctx.scalar_region(hlo_binop(op, a.dtype), a.dtype)
        res = ctx.fresh()
        ctx.line(f'{res} = "stablehlo.reduce_window"({x}, {init}) ({region}) {{window_dimensions = array<i64: '
                 f'{window}>, padding = dense<[{pad}]> : tensor<{a.ndim}x2xi64>}} : ({tensor_type(a)}, '
                 f"{tensor_type(scalar)}) -> {tensor_type(a)}")
        return res
    return lower


cumsum_p = Primitive("cumsum", shape_rule=_cumulative_shape("cumsum"), impl=_cumulative_impl(np.add), jvp=LINEAR,
                     transpose=lambda ct, x, *, axis, reverse: [cumsum(ct, axis=axis, reverse=not reverse)],
                     batch=_cumulative_batch(lambda x, **p: cumsum(x, **p)),
                     lower=_cumulative_lower("add"))


def cumsum(x, *, axis: int, reverse: bool = False):
    """Inclusive running sum along `axis` (from the end if `reverse`)."""
    return cumsum_p.bind(x, axis=normalize_axis("cumsum", int(axis), get_aval(x).ndim), reverse=bool(reverse))


def _cumprod_jvp(primals, tangents, *, axis, reverse):
    (x,), (t,) = primals, tangents
    # A doubling (Hillis-Steele) scan carrying the prefix products and their tangents: it only multiplies, so it
    # is exact where x has zeros, and it is itself differentiable to any order.
    prods, tans, step = x, t, 1
    while step < get_aval(x).shape[axis]:
        prev, prev_tan = _shift(prods, axis, step, reverse, 1), _shift(tans, axis, step, reverse, 0)
        prods, tans = mul(prods, prev), add(mul(tans, prev), mul(prods, prev_tan))
        step *= 2
    return cumprod(x, axis=axis, reverse=reverse), tans


cumprod_p = Primitive("cumprod", shape_rule=_cumulative_shape("cumprod"), impl=_cumulative_impl(np.multiply),
                      jvp=_cumprod_jvp, transpose=NONLINEAR, batch=_cumulative_batch(lambda x, **p: cumprod(x, **p)),
                      lower=_cumulative_lower("mul"))


def cumprod(x, *, axis: int, reverse: bool = False):
    """Inclusive running product along `axis` (from the end if `reverse`)."""
    return cumprod_p.bind(x, axis=normalize_axis("cumprod", int(axis), get_aval(x).ndim), reverse=bool(reverse))


def _cum_chooser_jvp(scan):
    def jvp(primals, tangents, *, axis, reverse):
        (x,), (t,) = primals, tangents
        out = scan(x, axis=axis, reverse=reverse)
        shape = get_aval(x).shape
        pos = iota(dtype=dtypes.int32, shape=shape, dimension=axis)
        # The running extremum was last set where x equals it (or is nan, which then sticks): carry that position
        # forward with a running max of positions (min when scanning from the end) and take its tangent.
        setters = or_(eq(x, out), ne(x, x))
        if reverse:
            src = cummin(select(setters, pos, full_like(pos, shape[axis] - 1)), axis=axis, reverse=True)
        else:
            src = cummax(select(setters, pos, full_like(pos, 0)), axis=axis)
        return out, _take_along_axis(t, src, axis)
    return jvp


cummax_p = Primitive("cummax", shape_rule=_cumulative_shape("cummax"), impl=_cumulative_impl(np.maximum),
                     jvp=_cum_chooser_jvp(lambda x, **p: cummax(x, **p)), transpose=NONLINEAR,
                     batch=_cumulative_batch(lambda x, **p: cummax(x, **p)), lower=_cumulative_lower("max"))


def cummax(x, *, axis: int, reverse: bool = False):
    """Running maximum along `axis` (from the end if `reverse`); nan sticks."""
    return cummax_p.bind(x, axis=normalize_axis("cummax", int(axis), get_aval(x).ndim), reverse=bool(reverse))


cummin_p = Primitive("cummin", shape_rule=_cumulative_shape("cummin"), impl=_cumulative_impl(np.minimum),
                     jvp=_cum_chooser_jvp(lambda x, **p: cummin(x, **p)), transpose=NONLINEAR,
                     batch=_cumulative_batch(lambda x, **p: cummin(x, **p)), lower=_cumulative_lower("min"))


def cummin(x, *, axis: int, reverse: bool = False):
    """Running minimum along `axis` (from the end if `reverse`); nan sticks."""
    return cummin_p.bind(x, axis=normalize_axis("cummin", int(axis), get_aval(x).ndim), reverse=bool(reverse))


# ---------------------------------------------------------------------------------------------- dot_general

def _free_dims(ndim, contracting, batch):
    return [d for d in range(ndim) if d not in contracting and d not in batch]


def _dot_general_shape(lhs, rhs, *, dimension_numbers, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    if lhs.dtype != rhs.dtype:
        raise DTypeError(f"dot_general: operand dtypes differ: lhs is {fmt(lhs)}, rhs is {fmt(rhs)} (cast one with "
                         ".astype(); use preferred_element_type to choose the result dtype)")
    require_kind("dot_general", lhs, "fiuc", "a numeric")
    for side, aval, c, b in (("lhs", lhs, lc, lb), ("rhs", rhs, rc, rb)):
        used = tuple(c) + tuple(b)
        if len(set(used)) != len(used) or any(not 0 <= d < aval.ndim for d in used):
            raise ShapeError(f"dot_general: {side} contracting dims {list(c)} and batch dims {list(b)} must be "
                             f"distinct dimensions of {side} {fmt(aval)}")
    for what, ls, rs in (("contracting", lc, rc), ("batch", lb, rb)):
        if len(ls) != len(rs):
            raise ShapeError(f"dot_general: lhs has {len(ls)} {what} dims {list(ls)} but rhs has {len(rs)} "
                             f"{list(rs)}; give them in pairs")
        for l, r in zip(ls, rs):
            if lhs.shape[l] != rhs.shape[r]:
                raise ShapeError(f"dot_general: {what} dimensions differ: lhs {fmt(lhs)} dim {l} has size "
                                 f"{lhs.shape[l]}, rhs {fmt(rhs)} dim {r} has size {rhs.shape[r]}")
    shape = ([lhs.shape[d] for d in lb] + [lhs.shape[d] for d in _free_dims(lhs.ndim, lc, lb)] +
             [rhs.shape[d] for d in _free_dims(rhs.ndim, rc, rb)])
    return ShapedArray(shape, preferred_element_type or lhs.dtype)


def _dot_general_impl(lhs, rhs, *, dimension_numbers, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    if dimension_numbers == _PLAIN_MATMUL and lhs.ndim == rhs.ndim == 2 and preferred_element_type is None and \
            lhs.dtype != dtypes.bfloat16.np:  # the commonest product, without the general case's relayouts
        return _blas.matmul(lhs, rhs, lhs.shape[0] * lhs.shape[1] * rhs.shape[1])
    out_dtype = preferred_element_type.np if preferred_element_type else lhs.dtype
    # numpy has no bfloat16 matmul kernels; accumulate in float32 as an accelerator would
    compute_dtype = np.float32 if out_dtype == dtypes.bfloat16.np else out_dtype
    lf, rf = _free_dims(lhs.ndim, lc, lb), _free_dims(rhs.ndim, rc, rb)
    batch = [lhs.shape[d] for d in lb]
    free_l, free_r = [lhs.shape[d] for d in lf], [rhs.shape[d] for d in rf]
    m, k, n = math.prod(free_l), math.prod(lhs.shape[d] for d in lc), math.prod(free_r)
    # as (batch, m, k) @ (batch, k, n): np.matmul hands float products to BLAS (np.einsum without a path does
    # not), and a transposed 2-D operand stays a view that BLAS reads with its transpose flag
    a = lhs.transpose(tuple(lb) + tuple(lf) + tuple(lc)).astype(compute_dtype, copy=False)
    b = rhs.transpose(tuple(rb) + tuple(rc) + tuple(rf)).astype(compute_dtype, copy=False)
    if batch:
        a, b = a.reshape(-1, m, k), b.reshape(-1, k, n)
    else:
        a, b = a.reshape(m, k), b.reshape(k, n)
    out = _blas.matmul(a, b, math.prod(batch) * m * k * n)
    return out.reshape(batch + free_l + free_r).astype(out_dtype, copy=False)


_PLAIN_MATMUL = (((1,), (0,)), ((), ()))  # (m, k) @ (k, n)


def _dot_operand_cotangent(ct, other, aval, own_dims, other_dims, own_is_lhs):
    """The cotangent of one operand of dot_general: contract ct with the other operand over the other's free
    dims (batching the batch dims), then transpose into the operand's layout. Evaluated eagerly, ct goes on the
    operand's own side of the product, so that for a plain matmul the result already has the operand's layout: a
    C-ordered array instead of a transposed view, which would make every later elementwise pass on it (an
    optimizer update) a strided one. A traced program keeps ct on the left; the lowering folds its transpose
    into the product."""
    (own_c, own_b), (other_c, other_b) = own_dims, other_dims
    other_aval = get_aval(other)
    own_free = _free_dims(aval.ndim, own_c, own_b)
    other_free = _free_dims(other_aval.ndim, other_c, other_b)
    n_batch = len(own_b)
    first = n_batch + (len(own_free) if own_is_lhs else 0)
    ct_other_free = tuple(range(first, first + len(other_free)))
    ct = convert_element_type(ct, new_dtype=other_aval.dtype)
    batch = (tuple(range(n_batch)), tuple(other_b))
    # the other's contracting dims come out in increasing order and stand for their own contracting partners
    partners = [own_c[k] for k in sorted(range(len(other_c)), key=lambda k: other_c[k])]
    if own_is_lhs or isinstance(ct, Tracer):  # laid out as: own batch dims, own free dims, partners
        out = dot_general(ct, other, dimension_numbers=((ct_other_free, tuple(other_free)), batch))
        layout = list(own_b) + own_free + partners
    else:  # laid out as: own batch dims, partners, own free dims
        out = dot_general(other, ct, dimension_numbers=((tuple(other_free), ct_other_free), batch[::-1]))
        layout = list(own_b) + partners + own_free
    if layout == sorted(layout):
        return out
    return transpose(out, permutation=tuple(int(i) for i in np.argsort(layout)))


def _dot_general_transpose(ct, lhs, rhs, *, dimension_numbers, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    if is_undefined(lhs) and is_undefined(rhs):
        raise TypeError("dot_general: both operands are linear; the product of two tangents is not linear")
    if is_undefined(lhs):
        return [_dot_operand_cotangent(ct, rhs, lhs.aval, (lc, lb), (rc, rb), True), None]
    return [None, _dot_operand_cotangent(ct, lhs, rhs.aval, (rc, rb), (lc, lb), False)]


def _dot_general_batch(vals, dims, *, dimension_numbers, preferred_element_type):
    (lhs, rhs), (d_lhs, d_rhs) = vals, dims
    (lc, rc), (lb, rb) = dimension_numbers

    def moved(ds, d):
        return tuple(a + (a >= d) for a in ds)

    if d_lhs is not None and d_rhs is not None:
        # both mapped: the vmapped dimension becomes the leading batch dimension
        dn = ((moved(lc, d_lhs), moved(rc, d_rhs)), ((d_lhs,) + moved(lb, d_lhs), (d_rhs,) + moved(rb, d_rhs)))
        return dot_general(lhs, rhs, dimension_numbers=dn, preferred_element_type=preferred_element_type), 0
    # one side mapped: its vmapped dimension rides along as a free dimension
    if d_lhs is not None:
        lc, lb = moved(lc, d_lhs), moved(lb, d_lhs)
        out_dim = len(lb) + _free_dims(get_aval(lhs).ndim, lc, lb).index(d_lhs)
    else:
        rc, rb = moved(rc, d_rhs), moved(rb, d_rhs)
        lhs_free = len(_free_dims(get_aval(lhs).ndim, lc, lb))
        out_dim = len(lb) + lhs_free + _free_dims(get_aval(rhs).ndim, rc, rb).index(d_rhs)
    out = dot_general(lhs, rhs, dimension_numbers=((lc, rc), (lb, rb)), preferred_element_type=preferred_element_type)
    return out, out_dim


def _dot_general_lower(ctx, lhs, rhs, *, dimension_numbers, preferred_element_type):
    (lc, rc), (lb, rb) = dimension_numbers
    batching = f"batching_dims = {list(lb)} x {list(rb)}, " if lb else ""
    attrs = f"{batching}contracting_dims = {list(lc)} x {list(rc)}"
    return lower_product(ctx, lambda a, b, in_avals: ctx.op("stablehlo.dot_general", [a, b], attrs=attrs, sep=", ",
                                                            in_avals=in_avals), lhs, rhs,
                         contracted=(lc[0], rc[0]) if lc else None)


def _dot_general_cost(avals_in, avals_out, *, dimension_numbers, preferred_element_type):
    """Its multiply-adds: each output element contracts the lhs's contracting dimensions."""
    (contracting, _), _ = dimension_numbers
    return avals_out[0].size * math.prod(avals_in[0].shape[d] for d in contracting)


dot_general_p = Primitive("dot_general", shape_rule=_dot_general_shape, impl=_dot_general_impl,
                          jvp=bilinear_jvp(lambda lhs, rhs, **params: dot_general_p.bind(lhs, rhs, **params)),
                          transpose=_dot_general_transpose, batch=_dot_general_batch, lower=_dot_general_lower,
                          bilinear=True, cost=_dot_general_cost)


def dot_general(lhs, rhs, *, dimension_numbers, preferred_element_type=None):
    """Generalized tensor contraction, as XLA's DotGeneral.

    dimension_numbers = ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)); the result has the batch
    dims, then lhs's remaining dims, then rhs's remaining dims, each in operand order.
    """
    (lc, rc), (lb, rb) = dimension_numbers
    dn = tuple(tuple(tuple(int(d) for d in ds) for ds in pair) for pair in ((lc, rc), (lb, rb)))
    pref = None if preferred_element_type is None else dtypes.as_dtype(preferred_element_type)
    if pref == get_aval(lhs).dtype:
        pref = None
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dn, preferred_element_type=pref)


# ---------------------------------------------------------------------------------------------- sort

def _sort_shape(*operands, dimension, is_stable, num_keys):
    if not operands:
        raise ShapeError("sort: needs at least one operand")
    shape = operands[0].shape
    if any(o.shape != shape for o in operands):
        raise ShapeError("sort: operands must have one shape, got " + ", ".join(fmt(o) for o in operands))
    if not 0 <= dimension < len(shape):
        raise ShapeError(f"sort: dimension {dimension} is out of range for {fmt(operands[0])}")
    if not 1 <= num_keys <= len(operands):
        raise ShapeError(f"sort: num_keys={num_keys} must be between 1 and the number of operands ({len(operands)})")
    return list(operands)


def _sort_impl(*operands, dimension, is_stable, num_keys):
    # lexsort is stable, takes its primary key last, and puts nans last (as the lowering's comparator)
    order = np.lexsort(operands[:num_keys][::-1], axis=dimension)
    return [np.take_along_axis(o, order, axis=dimension) for o in operands]


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    shape = get_aval(primals[0]).shape
    # sorting the original positions along gives the permutation that the tangents follow
    positions = iota(dtype=dtypes.int32, shape=shape, dimension=dimension)
    *outs, order = sort_p.bind(*primals, positions, dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    return outs, [_take_along_axis(t, order, dimension) if get_aval(p).dtype.kind == "f" else None
                  for p, t in zip(primals, tangents)]


def _sort_batch(vals, dims, *, dimension, is_stable, num_keys):
    size = batch_size(vals, dims)
    vals = [bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    return sort_p.bind(*vals, dimension=dimension + 1, is_stable=is_stable, num_keys=num_keys), [0] * len(vals)


def _sort_lower(ctx, *operands, dimension, is_stable, num_keys):
    """stablehlo.sort of every operand, ordered lexicographically by the first `num_keys`, with nan after every
    number and equivalent to nan (numpy's order)."""
    avals = ctx.avals_in
    args = [(ctx.fresh(), ctx.fresh()) for _ in operands]
    r = _ScalarRegion(ctx)
    (a, b), dtype = args[num_keys - 1], avals[num_keys - 1].dtype
    less = r.precedes("LT", a, b, dtype, nan_first=False)
    for (a, b), aval in zip(reversed(args[:num_keys - 1]), reversed(avals[:num_keys - 1])):
        tie = r.logic("and", r.equivalent(a, b, aval.dtype), less)
        less = r.logic("or", r.precedes("LT", a, b, aval.dtype, nan_first=False), tie)
    scalar_types = [tensor_type(ShapedArray((), aval.dtype)) for aval in avals]
    region = r.text([(name, t) for pair, t in zip(args, scalar_types) for name in pair], [less], [r.bool_type])
    res = ctx.fresh()
    n = len(operands)
    types = ", ".join(tensor_type(aval) for aval in avals)
    ctx.line(f'{res}{f":{n}" if n > 1 else ""} = "stablehlo.sort"({", ".join(operands)}) {region} '
             f"{{dimension = {dimension} : i64, is_stable = {str(is_stable).lower()}}} : ({types}) -> ({types})")
    return [f"{res}#{i}" for i in range(n)] if n > 1 else [res]


sort_p = Primitive("sort", shape_rule=_sort_shape, impl=_sort_impl, jvp=_sort_jvp, transpose=NONLINEAR,
                   batch=_sort_batch, lower=_sort_lower, multiple_results=True)


def sort(*operands, dimension: int, is_stable: bool = True, num_keys: int = 1):
    """Sort every operand along `dimension` by the first `num_keys` operands (lexicographically), ascending,
    nans last. Returns a list with one sorted array per operand."""
    if not operands:
        raise ShapeError("sort: needs at least one operand")
    return sort_p.bind(*operands, dimension=normalize_axis("sort", int(dimension), get_aval(operands[0]).ndim),
                       is_stable=bool(is_stable), num_keys=int(num_keys))
