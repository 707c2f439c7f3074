"""jacfwd / jacrev / jacobian / hessian: vmap of jvp (or vjp) over the standard basis, never a loop over rows."""
from __future__ import annotations

import functools

from paddle_fn.core.autodiff import instantiate, jvp_flat, linearize_flat, Zero
from paddle_fn.core.batching import vmap_flat
from paddle_fn.core.errors import TransformError
from paddle_fn.core.pytree import tree_flatten, tree_unflatten
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import structural as st
from paddle_fn.transforms._args import (as_leaf, check_input_dtype, check_output_dtype, flatten_fun, fun_name,
                                        normalize_argnums, split_aux)


def _std_basis(avals):
    """An identity matrix split into one (N, *shape) block per leaf, N the total size of the leaves. It is built
    from iotas (`eye`), not as a constant, so that under jit the lowering sees an identity and folds the products with it
    (lowering/simplify.py): a Jacobian of ``A @ x`` then costs no n^3 product."""
    sizes = [a.size for a in avals]
    n = sum(sizes)
    eye = st.eye(n, n, dtype=avals[0].dtype)
    blocks, start = [], 0
    for a, s in zip(avals, sizes):
        block = eye if s == n else st.slice(eye, start_indices=(0, start), limit_indices=(n, start + s))
        blocks.append(st.reshape(block, new_sizes=(n,) + a.shape))
        start += s
    return n, blocks


def _prepare(func, args, argnums, transform, holomorphic):
    single, nums = normalize_argnums(argnums, len(args), transform)
    diff = tuple(args[i] for i in nums)
    leaves, p_tree = tree_flatten(diff)
    p_flat = [as_leaf(x, transform) for x in leaves]
    # as JAX: jacrev takes complex inputs of a real function; jacfwd needs holomorphic=True for them
    allowed = "c" if holomorphic else ("f" if transform == "jacfwd" else "fc")
    for i, p in enumerate(p_flat):
        check_input_dtype(f"{transform}({fun_name(func)})", i, get_aval(p), allowed)
    dtypes_ = {get_aval(p).dtype for p in p_flat}
    if len(dtypes_) > 1:
        raise TransformError(f"{transform}: the differentiated inputs mix dtypes {sorted(d.name for d in dtypes_)}; "
                             "cast them to one floating-point dtype")
    return single, nums, p_flat, p_tree


def _full_fun(func, args, nums, p_tree, kwargs, has_aux, transform):
    """`flatten_fun` of func over the differentiated arguments (at positions `nums`), the others fixed."""
    def unflatten_args(leaves):
        full = list(args)
        for i, v in zip(nums, tree_unflatten(p_tree, leaves)):
            full[i] = v
        return full, kwargs
    return flatten_fun(func, unflatten_args, what=f"{transform}({fun_name(func)})", has_aux=has_aux)


def _assemble(out_avals, in_avals, out_tree, p_tree, single, blocks):
    """blocks[i][j]: Jacobian of output i w.r.t. input j, shaped out_shape + in_shape. Nest as JAX does."""
    per_out = []
    for i in range(len(out_avals)):
        inner = tree_unflatten(p_tree, blocks[i])
        per_out.append(inner[0] if single else tuple(inner))
    return tree_unflatten(out_tree, per_out)


def jacfwd(func, argnums=0, has_aux=False, holomorphic=False):
    """Jacobian by forward mode: vmap of jvp over the standard basis of the inputs.

    The result has the output's pytree structure, with the inputs' structure inside (as JAX); each block has
    shape ``out.shape + in.shape``. Inputs must be real unless ``holomorphic=True``, which takes complex inputs
    and outputs and gives the complex derivative f'(z) (see the complex-numbers page).

    Example:
        >>> import paddle_fn as paddle
        >>> J = paddle.jacfwd(lambda x: x ** 2)(paddle.to_tensor([1.0, 2.0]))
        >>> J.numpy()
        array([[2., 0.],
               [0., 4.]], dtype=float32)
    """
    @functools.wraps(func)
    def jac(*args, **kwargs):
        single, nums, p_flat, p_tree = _prepare(func, args, argnums, "jacfwd", holomorphic)
        flat_fun, out = _full_fun(func, args, nums, p_tree, kwargs, has_aux, "jacfwd")
        in_avals = [get_aval(p) for p in p_flat]
        n, basis = _std_basis(in_avals)
        counts = {}

        def pushforward(*tangents):
            outs, t_out = jvp_flat(flat_fun, p_flat, list(tangents), transform="jacfwd")
            counts["n_all"] = len(outs)
            return outs + t_out

        res = vmap_flat(pushforward, basis, [0] * len(basis), n, _PrimalsUnbatched(counts), transform="jacfwd")
        n_out = out.n_out
        n_all = len(res) // 2
        outs, tans = res[:n_all], res[n_all:]
        out_avals = [get_aval(o) for o in outs[:n_out]]
        if holomorphic:
            for a in out_avals:
                check_output_dtype(f"jacfwd({fun_name(func)})", a, "c")
        blocks = []
        for i, a in enumerate(out_avals):
            t = tans[i]  # (n, *out_shape)
            row, start = [], 0
            for ia in in_avals:
                # columns of input j: basis entries start..start+size
                sl = st.slice(t, start_indices=(start,) + (0,) * a.ndim,
                            limit_indices=(start + ia.size,) + a.shape)
                sl = st.reshape(sl, new_sizes=ia.shape + a.shape)
                perm = tuple(range(len(ia.shape), len(ia.shape) + a.ndim)) + tuple(range(len(ia.shape)))
                row.append(st.transpose(sl, permutation=perm))
                start += ia.size
            blocks.append(row)
        jacobian = _assemble(out_avals, in_avals, out.tree, p_tree, single, blocks)
        if has_aux:
            return jacobian, tree_unflatten(out.aux_tree, outs[n_out:])
        return jacobian

    return jac


class _PrimalsUnbatched:
    """Out dims for jacfwd's vmap: primal outputs (the first half) do not vary over the basis; tangents at 0."""

    def __init__(self, counts):
        self.counts = counts

    def resolve(self, i, ndim):
        return None if i < self.counts["n_all"] else 0


def jacrev(func, argnums=0, has_aux=False, holomorphic=False):
    """Jacobian by reverse mode: vmap of the VJP over the standard basis of the outputs.

    Outputs must be real unless ``holomorphic=True``, which takes complex inputs and outputs and gives f'(z). A
    real function of complex inputs gets JAX's convention: the conjugate of the steepest-ascent direction.

    Example:
        >>> import paddle_fn as paddle
        >>> J = paddle.jacrev(lambda x: x.sum() * x)(paddle.to_tensor([1.0, 2.0]))
        >>> J.numpy()
        array([[4., 1.],
               [2., 5.]], dtype=float32)
    """
    @functools.wraps(func)
    def jac(*args, **kwargs):
        single, nums, p_flat, p_tree = _prepare(func, args, argnums, "jacrev", holomorphic)
        flat_fun, out = _full_fun(func, args, nums, p_tree, kwargs, has_aux, "jacrev")
        outs, lin = linearize_flat(flat_fun, p_flat, transform="jacrev")
        n_out = out.n_out
        out_avals = [get_aval(o) for o in outs[:n_out]]
        in_avals = [get_aval(p) for p in p_flat]
        for a in out_avals:
            check_output_dtype(f"jacrev({fun_name(func)})", a, "c" if holomorphic else "f")
        m, basis = _std_basis(out_avals) if out_avals else (0, [])

        def pullback(*cts):
            full = list(cts) + [Zero(a) for a in lin.out_avals[n_out:]]
            return [instantiate(c) for c in lin.transpose(full)]

        cts = vmap_flat(pullback, basis, [0] * len(basis), m, [0] * len(in_avals), transform="jacrev")
        blocks = []
        start = 0
        for a in out_avals:
            row = []
            for ia, c in zip(in_avals, cts):
                sl = st.slice(c, start_indices=(start,) + (0,) * ia.ndim, limit_indices=(start + a.size,) + ia.shape)
                row.append(st.reshape(sl, new_sizes=a.shape + ia.shape))
            blocks.append(row)
            start += a.size
        jacobian = _assemble(out_avals, in_avals, out.tree, p_tree, single, blocks)
        if has_aux:
            return jacobian, tree_unflatten(out.aux_tree, outs[n_out:])
        return jacobian

    return jac


jacobian = jacrev


def hessian(func, argnums=0, has_aux=False, holomorphic=False):
    """Hessian of a scalar function: jacfwd(jacrev(func)).

    A one-element output of shape [1] (what Paddle 2.3's full reductions returned) counts as a scalar, so the
    Hessian of ``paddle.sum(...)`` has shape ``x.shape + x.shape``.

    Example:
        >>> import paddle_fn as paddle
        >>> H = paddle.hessian(lambda x: paddle.sum(x ** 3))(paddle.to_tensor([1.0, 2.0]))
        >>> H.numpy()
        array([[ 6.,  0.],
               [ 0., 12.]], dtype=float32)
    """
    @functools.wraps(func)
    def scalar_func(*args, **kwargs):
        out, aux = split_aux(func(*args, **kwargs), has_aux, f"hessian({fun_name(func)})")
        leaves, _ = tree_flatten(out)
        if len(leaves) == 1 and get_aval(as_leaf(leaves[0], "hessian")).shape == (1,):
            out = st.reshape(as_leaf(leaves[0], "hessian"), new_sizes=())
        return (out, aux) if has_aux else out

    return jacfwd(jacrev(scalar_func, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)
