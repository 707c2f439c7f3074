"""Extensions (`paddle.nn.functional.extension`): diag_embed."""
from __future__ import annotations

from paddle_fn.tensor.creation import diag_embed as _diag_embed

__all__ = ["diag_embed"]

diag_embed = _diag_embed
