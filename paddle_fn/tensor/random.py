"""Paddle's random functions as ``paddle.tensor.random`` holds them: the draws from the global seed
(`paddle_fn.random.global_seed`) with Paddle 3.3's keyword-only ``out=``, ``device=``, ``requires_grad=`` and
``pin_memory=`` where Paddle gives each function them."""
from __future__ import annotations

from paddle_fn.random import global_seed
from paddle_fn.tensor._util import accepts_out, accepts_placement

__all__ = ["rand", "randn", "randperm", "standard_normal", "uniform", "normal"]

rand = accepts_out(accepts_placement(global_seed.rand))
randn = accepts_out(accepts_placement(global_seed.randn))
randperm = accepts_out(accepts_placement(global_seed.randperm))
standard_normal = accepts_out(accepts_placement(global_seed.standard_normal, pinnable=False))
uniform = accepts_out(accepts_placement(global_seed.paddle_uniform, pinnable=False))
normal = accepts_out(global_seed.paddle_normal)
