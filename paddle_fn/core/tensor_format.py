"""How a Tensor's values print: Paddle 3.3's layout (its ``paddle.tensor.to_string``) and its print options
(``paddle.set_printoptions``: precision, threshold, edgeitems, sci_mode, linewidth).

Floats print with `precision` decimals, integral ones (and infinities) as ``1.`` / ``inf.``, or all in scientific
notation under `sci_mode`; every element is padded on the right to the widest, with a leading space for the
non-negative ones when any is negative. A 1-D row holds as many elements as fit in `linewidth` after the
indentation. A Tensor of more than `threshold` elements prints only `edgeitems` entries at each end of every
dimension, with ``...`` between.
"""
from __future__ import annotations

import numpy as np


class _PrintOptions:
    precision = 8
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = False


print_options = _PrintOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None, linewidth=None):
    """Set how Tensors print, as ``paddle.set_printoptions``; an argument left None keeps its setting.

    Args:
        precision (int): decimals of a float (default 8).
        threshold (int): a Tensor with more elements than this prints summarized (default 1000).
        edgeitems (int): elements printed at each end of every dimension when summarized (default 3).
        sci_mode (bool): floats in scientific notation (default False).
        linewidth (int): characters per line (default 80).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.set_printoptions(precision=3, threshold=5, edgeitems=2)
        >>> print(paddle.arange(10, dtype='float32') / 3)
        Tensor(shape=[10], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.   , 0.333, ..., 2.667, 3.   ])
        >>> paddle.set_printoptions(sci_mode=True)
        >>> print(paddle.to_tensor([1234.5, 0.001]))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.234e+03, 1.000e-03])
        >>> paddle.set_printoptions(precision=8, threshold=1000, edgeitems=3, sci_mode=False)
    """
    for name, value, kind in (("precision", precision, int), ("threshold", threshold, int),
                              ("edgeitems", edgeitems, int), ("linewidth", linewidth, int),
                              ("sci_mode", sci_mode, bool)):
        if value is None:
            continue
        if not isinstance(value, kind) or kind is int and isinstance(value, bool):
            raise TypeError(f"set_printoptions: {name} must be {kind.__name__}, got {type(value).__name__} "
                            f"{value!r}")
        setattr(print_options, name, value)


def _summary(v: np.ndarray) -> np.ndarray:
    """The elements that print when summarized (the `edgeitems` at each end of every dimension), for the width."""
    edge = print_options.edgeitems
    if v.size == 0:
        return np.array([])
    if v.ndim == 0:
        return v
    rows = list(v[:edge]) + list(v[-edge:]) if v.shape[0] > 2 * edge else list(v)
    if v.ndim == 1:
        return np.array(rows, dtype=v.dtype)
    return np.stack([_summary(row) for row in rows])


def _item(x) -> str:
    """One element's text (unpadded)."""
    precision, sci = print_options.precision, print_options.sci_mode
    kind = x.dtype.kind
    if kind == "f":
        if sci:
            return f"{x:.{precision}e}"
        return f"{x:.0f}." if np.ceil(x) == x else f"{x:.{precision}f}"
    if kind == "c":
        style = "e" if sci else "f"
        sign = "+" if x.imag >= 0 else ""
        return f"({x.real:.{precision}{style}}{sign}{x.imag:.{precision}{style}}j)"
    return f"{x}"


def _padded(x, width: int, signed: bool) -> str:
    text = _item(x)
    if width <= len(text):
        return text
    if signed and not x < 0:
        return " " + text.ljust(width - 1)
    return text.ljust(width)


def _format(v: np.ndarray, summarize: bool, indent: int, width: int, signed: bool) -> str:
    edge = print_options.edgeitems
    if v.ndim == 0:
        return _padded(v[()], width, signed)
    positions = list(range(v.shape[0]))
    if summarize and v.shape[0] > 2 * edge:
        positions = positions[:edge] + [None] + positions[-edge:]
    if v.ndim == 1:
        items = ["..." if i is None else _padded(v[i], width, signed) for i in positions]
        per_line = max(1, (print_options.linewidth - indent) // (width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = ["..." if i is None else _format(v[i], summarize, indent + 1, width, signed) for i in positions]
    return "[" + ("," + "\n" * (v.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def format_values(v: np.ndarray, prefix: str = "       ") -> str:
    """The values of `v` as Paddle prints them after ``Tensor(...,`` with continuation lines indented by the width
    of `prefix` (what precedes the values on their first line)."""
    v = np.asarray(v)
    if v.dtype.name == "bfloat16" or v.dtype.kind == "f" and v.dtype.itemsize < 4:
        v = v.astype(np.float32)
    summarize = v.ndim > 0 and v.size > print_options.threshold
    shown = _summary(v).reshape(-1)
    with np.errstate(invalid="ignore"):
        signed = v.dtype.kind in "fic" and bool(np.any(shown < 0))
    width = max((len(_item(x)) for x in shown), default=0)
    return _format(v, summarize, len(prefix), width, signed)
