"""`einsum`: Einstein summation as a composite of diagonals, sums, `dot_general` and one final transpose.

Operands are contracted left to right. Before each contraction, labels that no later operand and not the
output use are summed away, so every `dot_general` contracts as much as it can and keeps only what is needed.
"""
from __future__ import annotations

from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import shape_of
from paddle_fn.tensor.linalg import diagonal
from paddle_fn.tensor.promotion import as_tensor, cast

__all__ = ["einsum"]

_ELLIPSIS_BASE = 0x2460  # private labels for the dimensions that '...' stands for


def _parse(equation, ranks):
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise ShapeError(f"einsum: equation {equation!r} has {len(terms)} operand terms but {len(ranks)} operands "
                         "were given")
    for t in terms + ([out] if arrow else []):
        bad = [c for c in t.replace("...", "") if not c.isalpha()]
        if bad or t.count("...") > 1:
            raise ShapeError(f"einsum: term {t!r} of {equation!r} may hold letters and one '...' only")
    n_ellipsis = 0
    for t, r in zip(terms, ranks):
        letters = len(t.replace("...", ""))
        if "..." in t:
            n_ellipsis = max(n_ellipsis, r - letters)
        elif letters != r:
            raise ShapeError(f"einsum: term {t!r} names {letters} dimensions but its operand has rank {r}")
        if letters > r:
            raise ShapeError(f"einsum: term {t!r} names {letters} dimensions but its operand has rank {r}")
    ellipsis_labels = [chr(_ELLIPSIS_BASE + i) for i in range(n_ellipsis)]

    def expand(t, rank):
        if "..." not in t:
            return list(t)
        head, tail = t.split("...")
        count = rank - len(head) - len(tail)
        return list(head) + ellipsis_labels[n_ellipsis - count:] + list(tail)

    inputs = [expand(t, r) for t, r in zip(terms, ranks)]
    if arrow:
        output = expand(out, len(out.replace("...", "")) + n_ellipsis)
        if len(set(output)) != len(output):
            raise ShapeError(f"einsum: output term {out!r} names a dimension twice")
        missing = [c for c in output if not any(c in term for term in inputs)]
        if missing:
            raise ShapeError(f"einsum: output labels {missing} of {equation!r} appear in no operand")
    else:  # implicit output: the ellipsis dims, then the labels used once, in alphabetical order
        counts = {}
        for term in inputs:
            for c in term:
                counts[c] = counts.get(c, 0) + 1
        output = ellipsis_labels + sorted(c for c, k in counts.items() if k == 1 and c not in ellipsis_labels)
    return inputs, output


def _take_diagonals(x, labels):
    """Collapse a label repeated within one operand to its diagonal."""
    while len(set(labels)) != len(labels):
        c = next(c for c in labels if labels.count(c) > 1)
        i = labels.index(c)
        j = labels.index(c, i + 1)
        x = diagonal(x, 0, i, j)
        labels = [lab for k, lab in enumerate(labels) if k not in (i, j)] + [c]
    return x, labels


def _sum_labels(x, labels, drop):
    axes = tuple(i for i, c in enumerate(labels) if c in drop)
    if not axes:
        return x, labels
    return red.reduce_sum(x, axes=axes), [c for c in labels if c not in drop]


def _broadcast_label(x, labels, sizes):
    """Broadcast size-1 dimensions up to the size the label has elsewhere (ellipsis broadcasting)."""
    shape = shape_of(x)
    target = tuple(sizes[c] for c in labels)
    if target == shape:
        return x
    squeezed = st.reshape(x, new_sizes=tuple(s for s, t in zip(shape, target) if s == t))
    return st.broadcast_in_dim(squeezed, shape=target,
                               broadcast_dimensions=tuple(i for i, (s, t) in enumerate(zip(shape, target)) if s == t))


def einsum(equation, *operands):
    """Einstein summation over the operands as described by `equation` (e.g. ``'bij,bjk->bik'``).

    Supports '...' (broadcast like numpy), repeated labels in one operand (diagonals) and the implicit output
    (no '->': the labels used once, alphabetically, after the '...' dimensions).

    Example:
        >>> import paddle_fn as paddle
        >>> a, b = paddle.ones([2, 3]), paddle.ones([3, 4])
        >>> paddle.einsum('ij,jk->ik', a, b).shape, paddle.einsum('ij,jk', a, b).shape
        (paddle.Size([2, 4]), paddle.Size([2, 4]))
        >>> paddle.einsum('ii', paddle.to_tensor([[1., 2.], [3., 4.]])).numpy()
        array(5., dtype=float32)
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise TypeError("einsum: needs at least one operand")
    xs = [as_tensor(x) for x in operands]
    dt = get_aval(xs[0]).dtype
    xs = [cast(x, dt) if get_aval(x).dtype != dt else x for x in xs]
    inputs, output = _parse(equation, [get_aval(x).ndim for x in xs])
    sizes = {}
    for x, labels in zip(xs, inputs):
        for c, n in zip(labels, shape_of(x)):
            if sizes.get(c, 1) not in (1, n) and n != 1:
                raise ShapeError(f"einsum: label {c!r} of {equation!r} has sizes {sizes[c]} and {n} "
                                 f"(operand shapes {[list(shape_of(v)) for v in xs]})")
            sizes[c] = max(sizes.get(c, 1), n)
    terms = []
    for x, labels in zip(xs, inputs):
        x, labels = _take_diagonals(x, labels)
        terms.append((_broadcast_label(x, labels, sizes), labels))

    def needed_after(k):
        keep = set(output)
        for _, labels in terms[k + 1:]:
            keep.update(labels)
        return keep

    x, labels = _sum_labels(*terms[0], set(terms[0][1]) - needed_after(0))
    for k in range(1, len(terms)):
        y, y_labels = terms[k]
        keep = needed_after(k)
        y, y_labels = _sum_labels(y, y_labels, set(y_labels) - keep - set(labels))
        x, labels = _sum_labels(x, labels, set(labels) - keep - set(y_labels))
        shared = [c for c in labels if c in y_labels]
        batch = [c for c in shared if c in keep]
        contract = [c for c in shared if c not in keep]
        dn = (([labels.index(c) for c in contract], [y_labels.index(c) for c in contract]),
              ([labels.index(c) for c in batch], [y_labels.index(c) for c in batch]))
        x = red.dot_general(x, y, dimension_numbers=dn)
        labels = batch + [c for c in labels if c not in shared] + [c for c in y_labels if c not in shared]
    x, labels = _sum_labels(x, labels, set(labels) - set(output))
    perm = tuple(labels.index(c) for c in output)
    if perm != tuple(range(len(perm))):
        x = st.transpose(x, permutation=perm)
    return x
