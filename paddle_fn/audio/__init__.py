"""`paddle.audio`: `paddle.audio.functional`: windows (`get_window`), the mel scale and filterbank, decibels and the
DCT of MFCCs."""
from paddle_fn.audio import functional  # noqa: F401
