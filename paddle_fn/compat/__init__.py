"""``paddle.compat``: Paddle 3.3's PyTorch-flavoured corner. `enable_compat` makes ``import torch`` give a proxy of
paddle_fn (``torch.sin is paddle.sin``) until `disable_compat`; `compat.nn.functional` holds functions with
PyTorch's signatures (``softmax(input, dim, dtype)``)."""
from paddle_fn.compat import nn  # noqa: F401
from paddle_fn.compat.proxy import disable_compat, enable_compat  # noqa: F401

__all__ = ["enable_compat", "disable_compat", "nn"]
