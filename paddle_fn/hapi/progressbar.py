"""The progress line of ``paddle.Model``'s logs, in Paddle's exact format:

``step  4/10 [===========>..................] - loss: 0.5213 - acc: 0.8400 - ETA: 0s - 5ms/step`` (verbose=1,
redrawn in place with backspaces and a carriage return) or ``step  4/10 - loss: 0.5213 - acc: 0.8400 - 5ms/step``
(verbose=2, one line per update). Values above 1e-3 in magnitude print with 4 decimals, smaller ones in
scientific notation.
"""
import shutil
import sys
import time

import numpy as np


def _format_value(v):
    """One logged value as Paddle prints it."""
    if isinstance(v, np.ndarray) and v.size == 1 and v.dtype in (np.float32, np.float64):
        v = v.item()
    if isinstance(v, (float, np.floating)):
        return f" {v:.4f}" if abs(v) > 1e-3 else f" {v:.4e}"
    return f" {v}"


def _format_time(seconds_per_unit, name):
    if seconds_per_unit >= 1 or seconds_per_unit == 0:
        return f" - {seconds_per_unit:.0f}s/{name}"
    if seconds_per_unit >= 1e-3:
        return f" - {seconds_per_unit * 1e3:.0f}ms/{name}"
    return f" - {seconds_per_unit * 1e6:.0f}us/{name}"


def _format_eta(eta):
    if eta > 3600:
        return f"{eta // 3600}:{(eta % 3600) // 60:02}:{eta % 60:02}"
    if eta > 60:
        return f"{eta // 60}:{eta % 60:02}"
    return f"{eta}s"


class ProgressBar:
    """A progress line for ``num`` steps (None: unknown length), printed to ``file``.

    Args:
        num (int, optional): the number of steps, or None when unknown. Default: None.
        width (int, optional): the bar's width in characters (at most 60% of the terminal). Default: 30.
        verbose (int, optional): 1 draws a bar redrawn in place, 2 (or 3) prints one line per update.
        start (bool, optional): start the clock now. Default: True.
        file (file, optional): where to write. Default: None, the ``sys.stdout`` of the moment of each update.
        name (str, optional): the unit in the line. Default: ``'step'``.

    Example:
        >>> from paddle_fn.hapi.progressbar import ProgressBar
        >>> bar = ProgressBar(num=4, verbose=2)
        >>> bar.update(2, [("loss", 0.25), ("acc", [0.00012])])  # doctest: +ELLIPSIS
        step 2/4 - loss: 0.2500 - acc: 1.2000e-04 - ...s/step
    """

    def __init__(self, num=None, width=30, verbose=1, start=True, file=None, name="step"):
        if num is not None and (not isinstance(num, int) or num <= 0):
            raise TypeError(f"ProgressBar: num should be None or an integer > 0, got {num!r}")
        columns = shutil.get_terminal_size().columns or 80
        self._num = num
        self._width = min(width, min(int(columns * 0.6), columns - 50))
        self._total_width = 0
        self._verbose = verbose
        self.file = file
        self.name = name
        self._start = time.time() if start else None

    def start(self):
        """Restart the clock."""
        self._out().flush()
        self._start = time.time()

    def _out(self):
        return self.file if self.file is not None else sys.stdout

    def _counter(self, current):
        if self._num is None:
            return f"{self.name} {current:3}"
        digits = int(np.log10(self._num)) + 1
        return f"{self.name} {current:{digits}d}/{self._num}"

    def _bar(self, current):
        filled = int(self._width * current / self._num)
        bar = ""
        if filled > 0:
            bar = "=" * (filled - 1) + (">" if current < self._num else "=")
        return f"{self._counter(current)} [{bar}{'.' * (self._width - filled)}]"

    def update(self, current_num, values=()):
        """Show step ``current_num`` with ``values``, a list of ``(name, value or list of values)`` pairs."""
        elapsed = time.time() - (self._start if self._start is not None else time.time())
        per_unit = elapsed / current_num if current_num else 0
        info = ""
        for key, val in values:
            info += f" - {key}:" + "".join(_format_value(v) for v in (val if isinstance(val, list) else [val]))
        if self._verbose == 1:
            previous = self._total_width
            # redraw in place: back over the previous line, then to its start
            out = "\b" * previous + "\r"
            head = self._bar(current_num) if self._num is not None else self._counter(current_num)
            if self._num is not None and current_num < self._num:
                info += f" - ETA: {_format_eta(int(per_unit * (self._num - current_num)))}"
            info += _format_time(per_unit, self.name)
            self._total_width = len(head) + len(info)
            if previous > self._total_width:
                info += " " * (previous - self._total_width)
            if self._num is None or current_num >= self._num:
                info += "\n"
            self._out().write(out + head + info)
        else:
            self._out().write(self._counter(current_num) + info + _format_time(per_unit, self.name) + "\n")
        self._out().flush()
