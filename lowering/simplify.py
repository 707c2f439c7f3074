"""Program rewrites done before lowering, for the code IREE generates (not for semantics).

`fold_transposes` absorbs a `transpose` that feeds a `dot_general` into its dimension numbers, and a transpose
of a `dot_general` result that only swaps the two operands' free dimensions into the product with the operands
swapped. Reverse mode produces both (the transpose rule of dot_general), and IREE would otherwise run each
transpose as its own dispatch.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.ir import Eqn, Literal, Program, Var
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
    return Eqn(dot_eqn.prim, (rhs, lhs), params, t_eqn.outputs)


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
                eqn = Eqn(eqn.prim, tuple(new_inputs), params, eqn.outputs)
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
        eqns.append(eqn if inputs == eqn.inputs else Eqn(eqn.prim, inputs, eqn.params, eqn.outputs))
    if not env:
        return prog
    outs = tuple(env.get(v, v) if isinstance(v, Var) else v for v in prog.out_vars)
    return dce_program(Program(prog.in_vars, tuple(eqns), outs))


def simplify(prog: Program) -> Program:
    return fold_transposes(fold_constants(prog))
