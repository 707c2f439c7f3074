"""`paddle.nn`: the stateless `functional` module (``import paddle_fn.nn.functional as F``)."""
from paddle_fn.nn import functional  # noqa: F401
