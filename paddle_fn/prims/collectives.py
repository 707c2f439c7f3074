"""Collectives over a named mapped axis: psum, pmax, pmin, all_gather, ppermute, axis_index, psum_scatter,
all_to_all (and pmean, a composite).

A collective names the axis it works over (`axis_name`); the name is bound by `vmap(..., axis_name=...)` or
`pmap(..., axis_name=...)`. The values are per-example (per-device) values; the collective combines them over
the axis.

- Inside a named vmap the collective is computed by its batching rule, with ordinary array operations over the
  batch axis: that is the reference meaning. The lax-level wrapper raises the operand into the vmap's batch trace
  first (materializing a batch axis for a value that does not vary over it), so that the batch rule of that
  trace always sees it; the batch rule run by any other vmap applies the collective per example of that vmap,
  through the wrapper again.
- Inside pmap the collective is staged as an equation; pmap splits the program there and performs it between the
  compiled segments through a `Collectives` backend (transforms/pmap_collectives.py).

Each public collective takes a pytree (a dict, list, tuple or NamedTuple of Tensors, as JAX's do) and applies
itself to every leaf: `pmean(grads, 'batch')` is the data-parallel step.

Outside both, or with a name nothing binds, the wrapper raises NameError at trace time. IREE's CPU drivers have no
collectives, so a collective cannot be compiled into one single-device program: its lowering rule says so.
"""
from __future__ import annotations

import functools

import numpy as np

from paddle_fn.core.batching import BatchTrace, BatchTracer, bdim_at_front, not_mapped, running_rules
from paddle_fn.core.errors import ShapeError, UnsupportedError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import NONLINEAR, ZERO_TANGENT, Primitive
from paddle_fn.core.pytree import tree_map
from paddle_fn.core.trace import Tensor, Tracer, get_aval, live_mains
from paddle_fn.lowering import multi_device
from paddle_fn.prims._rules import fmt, normalize_axis
from paddle_fn.prims.base import broadcast_in_dim, reduce_sum, reshape, transpose
from paddle_fn.prims.elementwise import convert_element_type, div, eq, select
from paddle_fn.prims.reduction import reduce_max, reduce_min
from paddle_fn.prims.structural import concatenate, iota, slice


def _on_pytrees(collective):
    """The collective applied to every leaf of a pytree (one Tensor is a pytree of one leaf)."""
    @functools.wraps(collective)
    def on_leaves(x, *args, **kwargs):
        if isinstance(x, Tensor):
            return collective(x, *args, **kwargs)
        return tree_map(lambda leaf: collective(leaf, *args, **kwargs), x)
    return on_leaves


def _check_name(axis_name, op):
    if isinstance(axis_name, (tuple, list)):
        raise UnsupportedError(f"{op}: reducing over several axis names at once ({axis_name!r}) is not supported; "
                               f"apply {op} once per axis name")
    try:
        hash(axis_name)
    except TypeError:
        raise TypeError(f"{op}: axis_name must be hashable (a string), got {axis_name!r}") from None
    return axis_name


class UnnamedAxis:
    """The axis name `vmap` gives a batch axis the user did not name: it tells the user's vmaps apart from the
    vmaps that batching rules of control flow and jit run over sub-programs (axis name None), which carry the
    axis of the trace whose rule created them.

    Example:
        >>> from paddle_fn.prims.collectives import UnnamedAxis
        >>> UnnamedAxis() == UnnamedAxis()   # each vmap's is its own
        False
    """
    __slots__ = ()

    def __repr__(self):
        return "<unnamed>"


def axis_frame(axis_name, op: str):
    """The innermost live transform (named vmap or pmap) binding `axis_name`; NameError if there is none."""
    bound = []
    for main in reversed(live_mains()):
        data = main.global_data
        if main.live and isinstance(data, dict) and data.get("axis_name") is not None:
            if data["axis_name"] == axis_name:
                return main
            if not isinstance(data["axis_name"], UnnamedAxis):
                bound.append(data["axis_name"])
    where = f"the axis names bound here are {bound}" if bound else "no axis name is bound here"
    raise NameError(f"{op}: unbound axis name {axis_name!r}: call it inside vmap(f, axis_name={axis_name!r}) or "
                    f"pmap(f, axis_name={axis_name!r}); {where}")


def axis_size(axis_name, op: str = "axis_size") -> int:
    """The size of the mapped axis `axis_name` (the number of devices under pmap, the batch size under vmap).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.prims.collectives import axis_size
        >>> _ = paddle.vmap(lambda v: print(axis_size('i')) or v, axis_name='i')(paddle.ones([5, 2]))
        5
    """
    return axis_frame(_check_name(axis_name, op), op).global_data["axis_size"]


def _raise_to_frame(x, main):
    """`x` as seen by the named vmap `main`: a tracer of that trace with a batch axis (materialized if `x` does
    not vary over it). Values of transforms above `main` are left to those transforms."""
    if not isinstance(x, Tensor):
        x = Tensor(np.asarray(x))
    if main.trace_type is not BatchTrace or (isinstance(x, Tracer) and x._trace.main.level > main.level):
        return x
    trace = BatchTrace(main)
    t = trace.full_raise(x)
    if t.batch_dim is not_mapped:
        t = BatchTracer(trace, bdim_at_front(t.val, not_mapped, main.global_data["axis_size"]), 0)
    return t


def _is_internal(main) -> bool:
    data = main.global_data
    return main.transform == "vmap" and isinstance(data, dict) and data.get("axis_name", 0) is None


def _named_here(axis_name, op):
    """True when the batch rule runs for the vmap that binds `axis_name`: in that vmap's trace, or in a vmap that
    a batching rule of that trace runs over a sub-program (jit, cond, scan: it carries the same axis). False in
    any other vmap (an inner one, jacrev's), where the collective applies per example of that vmap.

    The operands cannot tell (a cotangent basis inside jacrev holds no tracer of the named vmap), so the rule asks
    which batch traces are running rules (`running_rules`): the innermost is the one running this rule; a
    sub-program's internal vmap was created by a rule of the enclosing one."""
    main = axis_frame(axis_name, op)
    if main.trace_type is not BatchTrace:
        return False
    running = running_rules.traces
    k = len(running) - 1
    if k < 0:
        return False
    caller = running[k]
    while _is_internal(caller.main):
        while k >= 0 and running[k] is caller:
            k -= 1
        if k < 0:
            return False
        caller = running[k]
    return caller.main is main


def _unbound_impl(name):
    def impl(*args, axis_name, **params):
        raise NameError(f"{name}: unbound axis name {axis_name!r}: a collective runs only inside "
                        f"vmap(f, axis_name={axis_name!r}) or pmap(f, axis_name={axis_name!r})")
    return impl


def _no_lowering(name):
    def lower(ctx, *args, axis_name, **params):
        raise UnsupportedError(
            f"{name} over axis {axis_name!r} cannot be compiled into a single-device program (IREE's CPU drivers "
            "have no collectives); call it in a function given to pmap, or in a vmap with that axis_name outside "
            "the jit")
    return lower


def _all_reduce_on_host(op):
    def run_on_host(backend, values, first, *, axis_name):
        return backend.all_reduce(values, op)
    return run_on_host


def _bind(prim, x, op, **params):
    """The common wrapper body: find the frame, raise the operand to it, bind."""
    _check_name(params["axis_name"], op)
    main = axis_frame(params["axis_name"], op)
    return prim.bind(_raise_to_frame(x, main), **params)


def _front(x, d):
    return bdim_at_front(x, d, None)


# ----------------------------------------------------------------------------------------------- psum / pmax / pmin

def _same_shape(x, *, axis_name):
    return x


def _reduction_batch(name, reduce, wrapper):
    def batch(vals, dims, *, axis_name):
        (x,), (d,) = vals, dims
        if _named_here(axis_name, name):
            return reduce(x, axes=(d,)), not_mapped
        # per example of this vmap; through the wrapper, which raises the operand to the named trace
        return wrapper()(x, axis_name), d
    return batch


def _psum_jvp(primals, tangents, *, axis_name):
    return psum(primals[0], axis_name), psum(tangents[0], axis_name)


def _psum_transpose(ct, x, *, axis_name):
    # every device's result depends on every device's operand: the cotangents of all devices are summed
    return [psum(ct, axis_name)]


psum_p = Primitive("psum", shape_rule=_same_shape, impl=_unbound_impl("psum"), jvp=_psum_jvp, transpose=_psum_transpose,
                   batch=_reduction_batch("psum", reduce_sum, lambda: psum), lower=_no_lowering("psum"),
                   lower_on_mesh=multi_device.lower_psum, run_on_host=_all_reduce_on_host("sum"))


@_on_pytrees
def psum(x, axis_name):
    """Sum `x` over the mapped axis `axis_name`; every member gets the total.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([1.0, 2.0, 3.0])
        >>> paddle.vmap(lambda v: paddle.psum(v, 'i'), axis_name='i')(x).numpy()
        array([6., 6., 6.], dtype=float32)
    """
    return _bind(psum_p, x, "psum", axis_name=axis_name)


def _pextreme_jvp(which):
    def jvp(primals, tangents, *, axis_name):
        x, t = primals[0], tangents[0]
        out = which(x, axis_name)
        # the tangent of the winner; ties share it equally (the mean of the tied tangents), as reduce_max does
        hit = eq(x, out)
        count = psum(convert_element_type(hit, new_dtype=get_aval(x).dtype), axis_name)
        zero = broadcast_in_dim(Tensor(np.zeros((), get_aval(t).dtype.np)), shape=get_aval(t).shape,
                                broadcast_dimensions=())
        return out, div(psum(select(hit, t, zero), axis_name), count)
    return jvp


pmax_p = Primitive("pmax", shape_rule=_same_shape, impl=_unbound_impl("pmax"),
                   jvp=_pextreme_jvp(lambda x, n: pmax(x, n)), transpose=NONLINEAR,
                   batch=_reduction_batch("pmax", reduce_max, lambda: pmax), lower=_no_lowering("pmax"),
                   lower_on_mesh=multi_device.lower_pmax, run_on_host=_all_reduce_on_host("max"))


@_on_pytrees
def pmax(x, axis_name):
    """The elementwise maximum of `x` over the mapped axis `axis_name`.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1.0, 5.0], [4.0, 2.0]])
        >>> paddle.vmap(lambda v: paddle.pmax(v, 'i'), axis_name='i')(x).numpy()
        array([[4., 5.],
               [4., 5.]], dtype=float32)
    """
    return _bind(pmax_p, x, "pmax", axis_name=axis_name)


pmin_p = Primitive("pmin", shape_rule=_same_shape, impl=_unbound_impl("pmin"),
                   jvp=_pextreme_jvp(lambda x, n: pmin(x, n)), transpose=NONLINEAR,
                   batch=_reduction_batch("pmin", reduce_min, lambda: pmin), lower=_no_lowering("pmin"),
                   lower_on_mesh=multi_device.lower_pmin, run_on_host=_all_reduce_on_host("min"))


@_on_pytrees
def pmin(x, axis_name):
    """The elementwise minimum of `x` over the mapped axis `axis_name`.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1.0, 5.0], [4.0, 2.0]])
        >>> paddle.vmap(lambda v: paddle.pmin(v, 'i'), axis_name='i')(x).numpy()
        array([[1., 2.],
               [1., 2.]], dtype=float32)
    """
    return _bind(pmin_p, x, "pmin", axis_name=axis_name)


@_on_pytrees
def pmean(x, axis_name):
    """The mean of `x` over the mapped axis `axis_name` (`psum` divided by the axis size); integer inputs give
    float32.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([1.0, 2.0, 6.0])
        >>> paddle.vmap(lambda v: paddle.pmean(v, 'i'), axis_name='i')(x).numpy()
        array([3., 3., 3.], dtype=float32)
    """
    n = axis_size(axis_name, "pmean")
    if not isinstance(x, Tensor):
        x = Tensor(np.asarray(x))
    if get_aval(x).dtype.kind != "f":
        x = convert_element_type(x, new_dtype=np.dtype(np.float32))
    total = psum(x, axis_name)
    a = get_aval(total)
    return div(total, broadcast_in_dim(Tensor(np.asarray(n, a.dtype.np)), shape=a.shape, broadcast_dimensions=()))


# ----------------------------------------------------------------------------------------------- all_gather

def _gathered_shape(x, size, axis, tiled):
    shape = list(x.shape)
    if tiled:
        shape[axis] *= size
    else:
        shape.insert(axis, size)
    return shape


def _all_gather_shape(x, *, axis_name, axis, tiled, size):
    return ShapedArray(_gathered_shape(x, size, axis, tiled), x.dtype)


def _all_gather_jvp(primals, tangents, *, axis_name, axis, tiled, size):
    return (all_gather(primals[0], axis_name, axis=axis, tiled=tiled),
            all_gather(tangents[0], axis_name, axis=axis, tiled=tiled))


def _all_gather_transpose(ct, x, *, axis_name, axis, tiled, size):
    # device i's operand appears in every device's result at block i: sum the cotangents, keep block i
    return [psum_scatter(ct, axis_name, scatter_dimension=axis, tiled=tiled)]


def _all_gather_batch(vals, dims, *, axis_name, axis, tiled, size):
    (x,), (d,) = vals, dims
    if _named_here(axis_name, "all_gather"):
        stacked = _front(x, d)  # (size, *x): exactly every member's result, the same for all
        nd = get_aval(stacked).ndim
        perm = list(range(1, nd))
        perm.insert(axis, 0)
        out = transpose(stacked, permutation=tuple(perm))
        if tiled:
            shape = get_aval(out).shape
            out = reshape(out, new_sizes=shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:])
        return out, not_mapped
    return all_gather(_front(x, d), axis_name, axis=axis + 1, tiled=tiled), 0


all_gather_p = Primitive("all_gather", shape_rule=_all_gather_shape, impl=_unbound_impl("all_gather"),
                         jvp=_all_gather_jvp, transpose=_all_gather_transpose, batch=_all_gather_batch,
                         lower=_no_lowering("all_gather"),
                         lower_on_mesh=multi_device.lower_all_gather,
                         run_on_host=lambda backend, values, first, *, axis_name, axis, tiled, size:
                         backend.all_gather(values, axis, tiled))


@_on_pytrees
def all_gather(x, axis_name, axis=0, tiled=False):
    """Every member's `x`, stacked along a new axis `axis` (or concatenated along `axis` when `tiled=True`).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> out = paddle.vmap(lambda v: paddle.all_gather(v, 'i'), axis_name='i')(x)
        >>> out.shape, out[1].numpy()
        (paddle.Size([2, 2, 2]), array([[1., 2.],
               [3., 4.]], dtype=float32))
    """
    _check_name(axis_name, "all_gather")
    main = axis_frame(axis_name, "all_gather")
    x = x if isinstance(x, Tensor) else Tensor(np.asarray(x))
    a = get_aval(x)
    if tiled and a.ndim == 0:
        raise ShapeError("all_gather: tiled=True concatenates along an existing axis, but the operand is 0-D; "
                         "use tiled=False to stack the values")
    axis = normalize_axis("all_gather", axis, a.ndim + (0 if tiled else 1))
    return all_gather_p.bind(_raise_to_frame(x, main), axis_name=axis_name, axis=axis, tiled=bool(tiled),
                             size=main.global_data["axis_size"])


# ----------------------------------------------------------------------------------------------- psum_scatter

def _psum_scatter_shape(x, *, axis_name, scatter_dimension, tiled, size):
    shape = list(x.shape)
    s = scatter_dimension
    if tiled:
        if shape[s] % size:
            raise ShapeError(f"psum_scatter: dimension {s} of the operand {fmt(x)} has size {shape[s]}, not a "
                             f"multiple of the axis size {size}; pad it or use another scatter_dimension")
        shape[s] //= size
    else:
        if shape[s] != size:
            raise ShapeError(f"psum_scatter: dimension {s} of the operand {fmt(x)} must equal the axis size {size} "
                             f"(tiled=False gives each member one slice); use tiled=True to give each a block")
        del shape[s]
    return ShapedArray(shape, x.dtype)


def _psum_scatter_jvp(primals, tangents, *, axis_name, scatter_dimension, tiled, size):
    return (psum_scatter(primals[0], axis_name, scatter_dimension=scatter_dimension, tiled=tiled),
            psum_scatter(tangents[0], axis_name, scatter_dimension=scatter_dimension, tiled=tiled))


def _psum_scatter_transpose(ct, x, *, axis_name, scatter_dimension, tiled, size):
    return [all_gather(ct, axis_name, axis=scatter_dimension, tiled=tiled)]


def _psum_scatter_batch(vals, dims, *, axis_name, scatter_dimension, tiled, size):
    (x,), (d,) = vals, dims
    s = scatter_dimension
    if _named_here(axis_name, "psum_scatter"):
        total = reduce_sum(x, axes=(d,))  # the sum, the same for every member; member i keeps slice/block i
        if tiled:
            shape = get_aval(total).shape
            total = reshape(total, new_sizes=shape[:s] + (size, shape[s] // size) + shape[s + 1:])
        return total, s
    return psum_scatter(_front(x, d), axis_name, scatter_dimension=s + 1, tiled=tiled), 0


psum_scatter_p = Primitive("psum_scatter", shape_rule=_psum_scatter_shape, impl=_unbound_impl("psum_scatter"),
                           jvp=_psum_scatter_jvp, transpose=_psum_scatter_transpose, batch=_psum_scatter_batch,
                           lower=_no_lowering("psum_scatter"),
                           lower_on_mesh=multi_device.lower_psum_scatter,
                           run_on_host=lambda backend, values, first, *, axis_name, scatter_dimension, tiled, size:
                           backend.reduce_scatter(values, scatter_dimension, tiled))


@_on_pytrees
def psum_scatter(x, axis_name, scatter_dimension=0, tiled=False):
    """Sum `x` over the mapped axis and give member i the i-th slice of dimension `scatter_dimension` of the
    total (that dimension must equal the axis size), or the i-th block of it when `tiled=True`.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1.0, 2.0], [10.0, 20.0]])
        >>> paddle.vmap(lambda v: paddle.psum_scatter(v, 'i'), axis_name='i')(x).numpy()
        array([11., 22.], dtype=float32)
    """
    _check_name(axis_name, "psum_scatter")
    main = axis_frame(axis_name, "psum_scatter")
    x = x if isinstance(x, Tensor) else Tensor(np.asarray(x))
    if get_aval(x).ndim == 0:
        raise ShapeError("psum_scatter: the operand is 0-D; it needs a dimension to scatter (use psum instead)")
    s = normalize_axis("psum_scatter", scatter_dimension, get_aval(x).ndim)
    _psum_scatter_shape(get_aval(x), axis_name=axis_name, scatter_dimension=s, tiled=bool(tiled),
                        size=main.global_data["axis_size"])  # the batch rule of a named vmap does not check
    return psum_scatter_p.bind(_raise_to_frame(x, main), axis_name=axis_name, scatter_dimension=s,
                               tiled=bool(tiled), size=main.global_data["axis_size"])


# ----------------------------------------------------------------------------------------------- ppermute

def _ppermute_jvp(primals, tangents, *, axis_name, perm):
    return ppermute(primals[0], axis_name, perm), ppermute(tangents[0], axis_name, perm)


def _ppermute_transpose(ct, x, *, axis_name, perm):
    return [ppermute(ct, axis_name, tuple((d, s) for s, d in perm))]


def _ppermute_batch(vals, dims, *, axis_name, perm):
    (x,), (d,) = vals, dims
    if _named_here(axis_name, "ppermute"):
        xs = _front(x, d)
        size = get_aval(xs).shape[0]
        source = dict((dst, src) for src, dst in perm)
        rows = []
        for i in range(size):  # the permutation is static: member i's new value is one static slice (or zeros)
            if i in source:
                s = source[i]
                lim = list(get_aval(xs).shape)
                lim[0] = s + 1
                rows.append(slice(xs, start_indices=(s,) + (0,) * (len(lim) - 1), limit_indices=tuple(lim)))
            else:
                shape = (1,) + get_aval(xs).shape[1:]
                rows.append(broadcast_in_dim(Tensor(np.zeros((), get_aval(xs).dtype.np)), shape=shape,
                                             broadcast_dimensions=()))
        return concatenate(*rows, dimension=0), 0
    return ppermute(x, axis_name, perm), d


ppermute_p = Primitive("ppermute", shape_rule=lambda x, *, axis_name, perm: x, impl=_unbound_impl("ppermute"),
                       jvp=_ppermute_jvp, transpose=_ppermute_transpose, batch=_ppermute_batch,
                       lower=_no_lowering("ppermute"),
                       lower_on_mesh=multi_device.lower_ppermute,
                       run_on_host=lambda backend, values, first, *, axis_name, perm: backend.ppermute(values, perm))


@_on_pytrees
def ppermute(x, axis_name, perm):
    """Send each member's `x` to another: `perm` is a list of (source, destination) index pairs; a member that
    no pair sends to gets zeros.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([1.0, 2.0, 3.0])
        >>> shift = lambda v: paddle.ppermute(v, 'i', perm=[(0, 1), (1, 2), (2, 0)])
        >>> paddle.vmap(shift, axis_name='i')(x).numpy()
        array([3., 1., 2.], dtype=float32)
    """
    _check_name(axis_name, "ppermute")
    main = axis_frame(axis_name, "ppermute")
    n = main.global_data["axis_size"]
    try:
        pairs = tuple((int(s), int(d)) for s, d in perm)
    except (TypeError, ValueError):
        raise TypeError(f"ppermute: perm must be a list of (source, destination) index pairs, got {perm!r}") from None
    for s, d in pairs:
        if not (0 <= s < n and 0 <= d < n):
            raise ValueError(f"ppermute: the pair ({s}, {d}) of perm is out of range for axis {axis_name!r} of "
                             f"size {n} (indices 0..{n - 1})")
    for what, idx in (("source", [s for s, _ in pairs]), ("destination", [d for _, d in pairs])):
        if len(set(idx)) != len(idx):
            raise ValueError(f"ppermute: perm {list(pairs)} repeats a {what} index; each member may send once and "
                             "receive once")
    return ppermute_p.bind(_raise_to_frame(x, main), axis_name=axis_name, perm=pairs)


# ----------------------------------------------------------------------------------------------- all_to_all

def _all_to_all_shape(x, *, axis_name, split_axis, concat_axis, size):
    shape = list(x.shape)
    if shape[split_axis] % size:
        raise ShapeError(f"all_to_all: split_axis {split_axis} of the operand {fmt(x)} has size "
                         f"{shape[split_axis]}, not a multiple of the axis size {size}")
    shape[split_axis] //= size
    shape[concat_axis] *= size
    return ShapedArray(shape, x.dtype)


def _all_to_all_jvp(primals, tangents, *, axis_name, split_axis, concat_axis, size):
    return (all_to_all(primals[0], axis_name, split_axis, concat_axis),
            all_to_all(tangents[0], axis_name, split_axis, concat_axis))


def _all_to_all_transpose(ct, x, *, axis_name, split_axis, concat_axis, size):
    return [all_to_all(ct, axis_name, concat_axis, split_axis)]


def _all_to_all_batch(vals, dims, *, axis_name, split_axis, concat_axis, size):
    (x,), (d,) = vals, dims
    if _named_here(axis_name, "all_to_all"):
        v = _front(x, d)                                   # (j, *x): member j's operand
        xs = get_aval(v).shape[1:]
        s, c = split_axis, concat_axis
        v = reshape(v, new_sizes=(size,) + xs[:s] + (size, xs[s] // size) + xs[s + 1:])  # (j, .., i, chunk, ..)
        nd = get_aval(v).ndim
        perm = [s + 1] + [a for a in range(nd) if a != s + 1]  # (i, j, ...rest) with chunk i of each j
        v = transpose(v, permutation=tuple(perm))
        # result of member i: concatenate its chunks j along concat_axis (j-major): put j just before concat_axis
        rest = list(get_aval(v).shape[2:])
        perm2 = [0] + list(range(2, 2 + c)) + [1] + list(range(2 + c, nd))
        v = transpose(v, permutation=tuple(perm2))
        merged = rest[:c] + [size * rest[c]] + rest[c + 1:]
        return reshape(v, new_sizes=(size,) + tuple(merged)), 0
    return all_to_all(_front(x, d), axis_name, split_axis + 1, concat_axis + 1), 0


all_to_all_p = Primitive("all_to_all", shape_rule=_all_to_all_shape, impl=_unbound_impl("all_to_all"),
                         jvp=_all_to_all_jvp, transpose=_all_to_all_transpose, batch=_all_to_all_batch,
                         lower=_no_lowering("all_to_all"),
                         lower_on_mesh=multi_device.lower_all_to_all,
                         run_on_host=lambda backend, values, first, *, axis_name, split_axis, concat_axis, size:
                         backend.all_to_all(values, split_axis, concat_axis))


@_on_pytrees
def all_to_all(x, axis_name, split_axis, concat_axis):
    """Split `x` along `split_axis` into one chunk per member, send chunk j to member j, and concatenate the
    chunks received along `concat_axis` (in member order).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])   # member i holds row i
        >>> paddle.vmap(lambda v: paddle.all_to_all(v, 'i', 0, 0), axis_name='i')(x).numpy()
        array([[1., 3.],
               [2., 4.]], dtype=float32)
    """
    _check_name(axis_name, "all_to_all")
    main = axis_frame(axis_name, "all_to_all")
    x = x if isinstance(x, Tensor) else Tensor(np.asarray(x))
    nd = get_aval(x).ndim
    if nd == 0:
        raise ShapeError("all_to_all: the operand is 0-D; it needs an axis to split")
    s = normalize_axis("all_to_all", split_axis, nd)
    c = normalize_axis("all_to_all", concat_axis, nd)
    _all_to_all_shape(get_aval(x), axis_name=axis_name, split_axis=s, concat_axis=c,
                      size=main.global_data["axis_size"])  # the batch rule of a named vmap does not check
    return all_to_all_p.bind(_raise_to_frame(x, main), axis_name=axis_name, split_axis=s, concat_axis=c,
                             size=main.global_data["axis_size"])


# ----------------------------------------------------------------------------------------------- axis_index

def _axis_index_shape(*, axis_name):
    return ShapedArray((), np.dtype(np.int32))


axis_index_p = Primitive("axis_index", shape_rule=_axis_index_shape, impl=_unbound_impl("axis_index"), jvp=ZERO_TANGENT,
                         transpose=NONLINEAR,
                         batch=lambda vals, dims, *, axis_name: (axis_index_p.bind(axis_name=axis_name), not_mapped),
                         lower=_no_lowering("axis_index"),
                         lower_on_mesh=multi_device.lower_axis_index,
                         run_on_host=lambda backend, values, first, *, axis_name:
                         [np.asarray(first + i, np.int32) for i in range(len(values))])


def axis_index(axis_name):
    """The position (int32, 0-D) of this member along the mapped axis `axis_name`: the device index under pmap,
    the example index under vmap.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([5.0, 6.0, 7.0])
        >>> paddle.vmap(lambda v: paddle.axis_index('i'), axis_name='i')(x).numpy()
        array([0, 1, 2], dtype=int32)
    """
    _check_name(axis_name, "axis_index")
    main = axis_frame(axis_name, "axis_index")
    if main.trace_type is BatchTrace:
        n = main.global_data["axis_size"]
        return BatchTracer(BatchTrace(main), iota(dtype=np.dtype(np.int32), shape=(n,), dimension=0), 0)
    return axis_index_p.bind(axis_name=axis_name)
