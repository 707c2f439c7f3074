"""What every loss layer shares: the check of its `reduction` and `_Loss`, a layer that calls a functional loss
with the options given at construction."""
from __future__ import annotations

from paddle_fn.nn_compat.layer.layers import Layer

_REDUCTIONS = ("none", "mean", "sum")


def _check_reduction(op, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{op}: reduction must be one of {_REDUCTIONS}, got {reduction!r}")
    return reduction


class _Loss(Layer):
    """A loss layer: the functional loss with the options given at construction."""
    _fn = None

    def __init__(self, reduction, **options):
        super().__init__()
        self.reduction = _check_reduction(type(self).__name__, reduction)
        self._options = options

    def forward(self, *args):
        return type(self)._fn(*args, reduction=self.reduction, **self._options)
