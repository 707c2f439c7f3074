"""`Chi2`: the chi-squared distribution, Gamma(df / 2, 1 / 2)."""
from __future__ import annotations

import paddle_fn as paddle
from paddle_fn.distribution.distribution import as_float_tensors, check
from paddle_fn.distribution.gamma import Gamma


class Chi2(Gamma):
    """The chi-squared distribution with `df` degrees of freedom (a `Gamma` with concentration ``df / 2`` and
    rate ``1 / 2``).

    Args:
        df (float|Tensor): the degrees of freedom, positive.

    Example:
        >>> import paddle_fn as paddle
        >>> c = paddle.distribution.Chi2(paddle.to_tensor([1.0, 4.0]))
        >>> c.mean.numpy(), c.variance.numpy()
        (array([1., 4.], dtype=float32), array([2., 8.], dtype=float32))
    """

    def __init__(self, df):
        (self.df,) = as_float_tensors("Chi2", ("df",), (df,))
        check("Chi2", "df", self.df, lambda d: d > 0, "positive")
        super().__init__(self.df * 0.5, paddle.full_like(self.df, 0.5))
