"""`paddle.audio.functional`: `get_window`, the windows that `paddle.signal.stft` multiplies its frames by.

Paddle's windows are scipy.signal's (the same definitions and parameters, checked against Paddle 3.3.1 for every
window, both symmetries and lengths 1 to 16), so they are computed by scipy.signal.windows and returned as
Tensors: a window is a constant, with no derivative to carry.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.trace import Tensor

__all__ = ["get_window"]

WINDOWS = ("hamming", "hann", "gaussian", "general_gaussian", "exponential", "triang", "bohman", "blackman",
           "cosine", "tukey", "taylor", "bartlett", "kaiser", "nuttall")
_NEED_PARAMETERS = ("gaussian", "general_gaussian", "kaiser")


def get_window(window, win_length, fftbins=True, dtype="float64"):
    """The window `window` of `win_length` samples: a name, or a tuple of a name and its parameters (('gaussian',
    std), ('general_gaussian', p, sig), ('exponential', center, tau), ('tukey', alpha), ('taylor', nbar, sll, norm),
    ('kaiser', beta)). `fftbins` (the default) gives the periodic window for spectral analysis, False the
    symmetric one for filter design.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.audio.functional.get_window('hamming', 8).numpy().round(4)
        array([0.08  , 0.2147, 0.54  , 0.8653, 1.    , 0.8653, 0.54  , 0.2147])
        >>> paddle.audio.functional.get_window(('kaiser', 5.0), 5, fftbins=False, dtype='float32').numpy()
        array([0.03671089, 0.5528518 , 1.        , 0.5528518 , 0.03671089],
              dtype=float32)
    """
    if isinstance(window, tuple):
        name, parameters = window[0], tuple(window[1:])
    elif isinstance(window, str):
        name, parameters = window, ()
        if name in _NEED_PARAMETERS:
            raise ValueError(f"paddle.audio.functional.get_window: The '{name}' window needs one or more parameters "
                             f"-- pass a tuple, e.g. ('{name}', ...)")
    else:
        raise ValueError(f"paddle.audio.functional.get_window: {type(window)} as window type is not supported "
                         "(pass a name or a tuple of a name and its parameters)")
    if name not in WINDOWS:
        raise ValueError(f"paddle.audio.functional.get_window: Unknown window type {name!r}; the windows are "
                         f"{', '.join(WINDOWS)}")
    import scipy.signal.windows  # deliberate lazy import: scipy.signal takes 0.3 s to import, paid on first use

    values = getattr(scipy.signal.windows, name)(int(win_length), *parameters, sym=not fftbins)
    return Tensor(np.asarray(values, dtype=dtypes.as_dtype(dtype).np))
