"""Program rewrites done before lowering, for the code IREE generates (not for semantics).

`fold_transposes` absorbs a `transpose` that feeds a `dot_general` into its dimension numbers, and a transpose
of a `dot_general` result that only swaps the two operands' free dimensions into the product with the operands
swapped. Reverse mode produces both (the transpose rule of dot_general), and IREE would otherwise run each
transpose as its own dispatch.

`fold_diagonal_products` replaces a `dot_general` with an identity or diagonal matrix by a relayout of the other
operand (times the diagonal). jacfwd, jacrev and hessian push the identity basis (`eye`: iota == iota) through the
program, scaled by an elementwise derivative on the way, so the Jacobian of any linear map of the differentiated
input (``A @ x``, a network's first layer) would otherwise cost an n^3 matrix product that only copies or scales A.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from paddle_fn.core.ir import Eqn, Literal, Program, ShapedArray, Var
from paddle_fn.core.primitive import get_primitive
from paddle_fn.core.staging import dce_program

# Results of at most this many elements computed from constants alone are folded into literals.
FOLD_LIMIT = 4096


def _absorb(perm, contracting, batch):
    """New (contracting, batch) dims on the transpose's input, or None when the free dims would be reordered."""
    free = [i for i in range(len(perm)) if i not in contracting and i not in batch]
    mapped_free = [perm[i] for i in free]
    if mapped_free != sorted(mapped_free):
        return None
    return tuple(perm[i] for i in contracting), tuple(perm[i] for i in batch)


def _swapped_product(t_eqn, dot_eqn):
    """dot_general(rhs, lhs) computing transpose(dot_general(lhs, rhs)), or None if the transpose does more."""
    (lc, rc), (lb, rb) = dot_eqn.params["dimension_numbers"]
    lhs, rhs = dot_eqn.inputs
    nb = len(lb)
    n_lfree = lhs.aval.ndim - len(lc) - nb
    n_rfree = rhs.aval.ndim - len(rc) - nb
    swapped = (tuple(range(nb)) + tuple(range(nb + n_lfree, nb + n_lfree + n_rfree)) +
               tuple(range(nb, nb + n_lfree)))
    if tuple(t_eqn.params["permutation"]) != swapped:
        return None
    params = dict(dot_eqn.params, dimension_numbers=((rc, lc), (rb, lb)))
    return dataclasses.replace(dot_eqn, inputs=(rhs, lhs), params=params, outputs=t_eqn.outputs)


def _uses(prog: Program):
    count = {}
    for eqn in prog.eqns:
        for v in eqn.inputs:
            if isinstance(v, Var):
                count[v] = count.get(v, 0) + 1
    for v in prog.out_vars:
        if isinstance(v, Var):
            count[v] = count.get(v, 0) + 1
    return count


def fold_transposes(prog: Program) -> Program:
    producer = {}
    eqns = []
    changed = False
    uses = _uses(prog)
    for eqn in prog.eqns:
        if eqn.prim.name == "transpose":
            source = producer.get(eqn.inputs[0]) if isinstance(eqn.inputs[0], Var) else None
            if source is not None and source.prim.name == "dot_general" and uses.get(eqn.inputs[0]) == 1:
                folded = _swapped_product(eqn, source)
                if folded is not None:
                    eqn, changed = folded, True
        for v in eqn.outputs:
            producer[v] = eqn
        if eqn.prim.name == "dot_general":
            lhs, rhs = eqn.inputs
            (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
            new_inputs = [lhs, rhs]
            for k, (x, c, b) in enumerate(((lhs, lc, lb), (rhs, rc, rb))):
                t = producer.get(x) if isinstance(x, Var) else None
                if t is None or t.prim.name != "transpose":
                    continue
                absorbed = _absorb(t.params["permutation"], c, b)
                if absorbed is None:
                    continue
                new_inputs[k] = t.inputs[0]
                if k == 0:
                    lc, lb = absorbed
                else:
                    rc, rb = absorbed
            if new_inputs != [lhs, rhs]:
                params = dict(eqn.params, dimension_numbers=((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))))
                eqn = dataclasses.replace(eqn, inputs=tuple(new_inputs), params=params)
                changed = True
        eqns.append(eqn)
    if not changed:
        return prog
    return dce_program(Program(prog.in_vars, tuple(eqns), prog.out_vars))


def fold_constants(prog: Program) -> Program:
    """Evaluate equations whose inputs are all literals (iota, index arithmetic on constants) into literals.

    Besides saving dispatches this avoids an IREE 3.13 crash (BubbleUpExpandShapes on a slice of an iota feeding
    a scatter index), which reverse mode of indexing produces.
    """
    env = {}
    eqns = []
    for eqn in prog.eqns:
        inputs = tuple(env.get(v, v) if isinstance(v, Var) else v for v in eqn.inputs)
        small = all(v.aval.size <= FOLD_LIMIT for v in eqn.outputs)
        plain = not any(hasattr(p, "eqns") or (isinstance(p, tuple) and any(hasattr(q, "eqns") for q in p))
                        for p in eqn.params.values())
        # a collective (it names the mapped axis) has a value per device: never one literal
        collective = "axis_name" in eqn.params
        if small and plain and not collective and eqn.prim.eager_call is None and \
                all(isinstance(v, Literal) for v in inputs):
            outs = eqn.prim.impl(*[v.val for v in inputs], **eqn.params)
            outs = outs if eqn.prim.multiple_results else [outs]
            for v, o in zip(eqn.outputs, outs):
                env[v] = Literal(np.asarray(o, dtype=v.aval.dtype.np).reshape(v.aval.shape), v.aval)
            continue
        eqns.append(eqn if inputs == eqn.inputs else eqn.with_inputs(inputs))
    if not env:
        return prog
    outs = tuple(env.get(v, v) if isinstance(v, Var) else v for v in prog.out_vars)
    return dce_program(Program(prog.in_vars, tuple(eqns), outs))


def _big_axes(shape) -> list:
    return [d for d, n in enumerate(shape) if n > 1]


def _diagonal_matrices(prog: Program) -> dict:
    """{var: (axes, diagonal)} for the vars holding a diagonal matrix along two axes of equal size n > 1, every
    other axis of size 1: the identity (`eq` of two iotas along different axes; diagonal None), converted,
    reshaped (size-1 axes only), transposed, or multiplied by a vector broadcast along one of its axes (the
    diagonal is then that vector, of n elements)."""
    iotas, diagonals, vectors = {}, {}, {}
    for eqn in prog.eqns:
        name, out = eqn.prim.name, eqn.outputs[0]
        x = eqn.inputs[0] if eqn.inputs and isinstance(eqn.inputs[0], Var) else None
        if name == "iota":
            iotas[out] = eqn.params["dimension"]
        elif name == "eq" and all(isinstance(v, Var) and v in iotas for v in eqn.inputs):
            dims = [iotas[v] for v in eqn.inputs]
            big = _big_axes(out.aval.shape)
            if sorted(dims) == big and len(big) == 2 and out.aval.shape[big[0]] == out.aval.shape[big[1]]:
                diagonals[out] = (tuple(dims), None)
        elif name == "broadcast_in_dim" and x is not None and x.aval.ndim == 1:
            vectors[out] = (x, eqn.params["broadcast_dimensions"][0])
        elif name == "mul":
            for d, b in (eqn.inputs, eqn.inputs[::-1]):
                found = _diagonal_of(d, diagonals)
                if found and found[1] is None and isinstance(b, Var) and b in vectors and vectors[b][1] in found[0]:
                    diagonals[out] = (found[0], vectors[b][0])
                    break
        elif x not in diagonals:
            continue
        elif name == "convert_element_type" and diagonals[x][1] is None:
            diagonals[out] = diagonals[x]
        elif name == "transpose":
            perm = eqn.params["permutation"]
            diagonals[out] = (tuple(perm.index(a) for a in diagonals[x][0]), diagonals[x][1])
        elif name == "reshape":
            big_in, big_out = _big_axes(x.aval.shape), _big_axes(out.aval.shape)
            if [x.aval.shape[d] for d in big_in] == [out.aval.shape[d] for d in big_out]:
                diagonals[out] = (tuple(big_out[big_in.index(a)] for a in diagonals[x][0]), diagonals[x][1])
    return diagonals


def _literal_diagonal(v: Literal):
    """(axes, diagonal) when the literal is a diagonal matrix as `_diagonal_matrices` describes (diagonal None for
    the identity), else None: small identities are literals by the time this runs (`fold_constants`)."""
    big = _big_axes(v.aval.shape)
    if len(big) != 2 or v.aval.shape[big[0]] != v.aval.shape[big[1]]:
        return None
    n = v.aval.shape[big[0]]
    matrix = v.val.reshape(n, n)
    diagonal = np.diagonal(matrix)
    if not np.array_equal(matrix, np.diag(diagonal)):
        return None
    return tuple(big), None if np.all(diagonal == 1) else Literal(diagonal.copy(), ShapedArray((n,), v.aval.dtype))


def _diagonal_of(v, diagonals):
    return diagonals.get(v) if isinstance(v, Var) else _literal_diagonal(v)


def _new_eqn(name, inputs, params, aval) -> Eqn:
    return Eqn(get_primitive(name), tuple(inputs), params, (Var(aval),))


def _relayout(x, permutation, out_aval):
    """(eqns, result) bringing x to `out_aval`: transpose by `permutation`, reshape (size-1 axes), convert."""
    eqns = []

    def then(name, params, aval):
        eqns.append(_new_eqn(name, [eqns[-1].outputs[0] if eqns else x], params, aval))

    shape = tuple(x.aval.shape[d] for d in permutation)
    if permutation != tuple(range(len(permutation))):
        then("transpose", {"permutation": permutation}, ShapedArray(shape, x.aval.dtype))
    if shape != out_aval.shape:
        then("reshape", {"new_sizes": out_aval.shape}, ShapedArray(out_aval.shape, x.aval.dtype))
    if x.aval.dtype != out_aval.dtype:
        then("convert_element_type", {"new_dtype": out_aval.dtype}, out_aval)
    return eqns, (eqns[-1].outputs[0] if eqns else x)


def _diagonal_product(eqn, diagonals):
    """Eqns computing dot_general(lhs, rhs) when one operand is a diagonal matrix, else None; the last eqn's output
    is the product's. With D the diagonal (its axes d_c contracted, d_f free) and X the other operand contracted
    over x_c against d_c, the product at (X's free index, D's free index i) is X at x_c = i, times the diagonal's
    i-th entry: X's free axes in order then x_c (D on the right), or x_c first (D on the left), reshaped to the
    result's shape, times the diagonal broadcast along the result's axis of D's free index."""
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    if lb or rb:
        return None
    lhs, rhs = eqn.inputs
    out = eqn.outputs[0]
    for d, x, d_contract, x_contract, d_is_lhs in ((rhs, lhs, rc, lc, False), (lhs, rhs, lc, rc, True)):
        found = _diagonal_of(d, diagonals)
        if found is None or not isinstance(x, Var):
            continue
        axes, diagonal = found
        if diagonal is not None and diagonal.aval.dtype != out.aval.dtype:
            continue
        contracted = [a for a in axes if a in d_contract]
        if len(contracted) != 1:
            continue
        x_c = x_contract[list(d_contract).index(contracted[0])]
        x_free = [a for a in range(x.aval.ndim) if a not in x_contract]
        x_unit = [a for a in x_contract if a != x_c]  # contracted against D's size-1 axes
        order = tuple(x_free + [x_c] + x_unit) if not d_is_lhs else tuple([x_c] + x_unit + x_free)
        eqns, y = _relayout(x, order, out.aval)
        if diagonal is not None:
            d_free = [a for a in range(d.aval.ndim) if a not in d_contract]
            d_free_index = [a for a in axes if a not in d_contract][0]
            position = d_free.index(d_free_index) + (len(x_free) if not d_is_lhs else 0)
            scale = _new_eqn("broadcast_in_dim", [diagonal], {"shape": out.aval.shape,
                                                             "broadcast_dimensions": (position,)}, out.aval)
            eqns += [scale, _new_eqn("mul", [y, scale.outputs[0]], {}, out.aval)]
        if not eqns:  # x already is the product: keep one eqn so that the product's var stays defined
            eqns = [_new_eqn("reshape", [x], {"new_sizes": out.aval.shape}, out.aval)]
        last = eqns[-1]
        eqns[-1] = dataclasses.replace(last, outputs=eqn.outputs)
        return eqns
    return None


def fold_diagonal_products(prog: Program) -> Program:
    diagonals = _diagonal_matrices(prog)
    eqns, changed = [], False
    for eqn in prog.eqns:
        folded = _diagonal_product(eqn, diagonals) if eqn.prim.name == "dot_general" else None
        if folded is None:
            eqns.append(eqn)
        else:
            eqns.extend(dataclasses.replace(e, source=eqn.source) for e in folded)  # the product's user line
            changed = True
    if not changed:
        return prog
    return dce_program(Program(prog.in_vars, tuple(eqns), prog.out_vars))


def simplify(prog: Program) -> Program:
    return fold_transposes(fold_diagonal_products(fold_constants(prog)))
