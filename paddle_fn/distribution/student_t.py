"""`StudentT`: Student's t distribution with location and scale."""
from __future__ import annotations

import math

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.distribution import Distribution, as_float_tensors, check, draw_key, sample_shape


class StudentT(Distribution):
    """Student's t distribution with `df` degrees of freedom, location `loc` and scale `scale`.

    Samples are ``loc + scale * z / sqrt(chi2 / df)`` with z standard normal and chi2 a ``Gamma(df/2, 1/2)``
    draw, so `rsample` is differentiable in all three parameters.

    Args:
        df (float|Tensor): the degrees of freedom, positive.
        loc (float|Tensor): the location.
        scale (float|Tensor): the scale, positive.
        name (str, optional): accepted for Paddle compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> t = paddle.distribution.StudentT(df=paddle.to_tensor([10.0, 5.0]), loc=paddle.to_tensor([0.0, 0.0]),
        ...                                  scale=paddle.to_tensor([1.0, 2.0]))
        >>> t.log_prob(paddle.to_tensor([0.8])).numpy()
        array([-1.2850921, -1.7562625], dtype=float32)
    """

    def __init__(self, df, loc, scale, name=None):
        self.name = name or "StudentT"
        self.df, self.loc, self.scale = as_float_tensors("StudentT", ("df", "loc", "scale"), (df, loc, scale))
        check("StudentT", "df", self.df, lambda d: d > 0, "positive")
        check("StudentT", "scale", self.scale, lambda s: s > 0, "positive")
        self.dtype = self.df.dtype
        super().__init__(self.df.shape)

    @property
    def mean(self):
        """`loc` where df > 1, NaN elsewhere."""
        return paddle.where(self.df > 1.0, self.loc, paddle.full_like(self.loc, float("nan")))

    @property
    def variance(self):
        """``scale**2 df / (df - 2)`` where df > 2, inf where 1 < df <= 2, NaN elsewhere."""
        finite = paddle.where(self.df > 2.0, self.scale.pow(2) * self.df / (self.df - 2),
                              paddle.full_like(self.df, float("nan")))
        return paddle.where((self.df <= 2.0) & (self.df > 1.0), paddle.full_like(self.df, float("inf")), finite)

    def sample(self, shape=(), *, key=None):
        """Samples of shape ``shape + batch_shape`` (no gradient)."""
        return self.rsample(shape, key=key).detach()

    def rsample(self, shape=(), *, key=None):
        """Reparameterized samples (a normal over the root of a scaled chi-squared draw)."""
        out = self._extend_shape(sample_shape("StudentT.rsample", shape))
        normal_key, gamma_key = random.split(draw_key(key))
        z = random.normal(normal_key, out, self.dtype)
        chi2 = random.gamma(gamma_key, paddle.broadcast_to(0.5 * self.df, list(out))) * 2.0
        return self.loc + self.scale * z * paddle.rsqrt(chi2 / self.df)

    def log_prob(self, value):
        """The log density at `value`."""
        value = self._value(value, self.df)
        y = (value - self.loc) / self.scale
        log_z = (paddle.log(self.scale) + 0.5 * paddle.log(self.df) + 0.5 * math.log(math.pi)
                 + paddle.lgamma(0.5 * self.df) - paddle.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * paddle.log1p(y ** 2.0 / self.df) - log_z

    def entropy(self):
        """The entropy in closed form."""
        half_df, half_df1 = 0.5 * self.df, 0.5 * (self.df + 1)
        log_beta = paddle.lgamma(half_df) + math.lgamma(0.5) - paddle.lgamma(half_df1)
        return (paddle.log(self.scale) + half_df1 * (paddle.digamma(half_df1) - paddle.digamma(half_df))
                + 0.5 * paddle.log(self.df) + log_beta)
