"""numpy's float matmul for the eager kernels, on the calling thread when the product is small.

OpenBLAS splits every product across its worker threads. For the products of eager training code (a batch of
128 through a layer of a few hundred units) that hand-off costs more than it saves as soon as the machine has
other work, including IREE's own worker threads: on a loaded 2-core machine a 128x784 @ 784x1024 product took
3.2 ms on one thread and 32 ms on two. OpenBLAS (0.3.27 and later, as bundled with numpy's wheels) has a
per-thread setting, ``openblas_set_num_threads_local``, so only paddle_fn's own products run single-threaded and
the user's numpy calls keep their threads. Where numpy uses another BLAS the products run unchanged.
"""
from __future__ import annotations

import ctypes

import numpy as np

try:  # numpy 2 / numpy 1.26
    from numpy._core import _multiarray_umath
except ImportError:
    from numpy.core import _multiarray_umath

# products of at least this many multiply-adds (~0.1 s on one core) keep OpenBLAS's threads
THREADED_WORK = 2 ** 27


def _find_local_thread_setter():
    try:  # the symbol is looked up through numpy's extension module and the BLAS it links
        setter = ctypes.CDLL(_multiarray_umath.__file__).openblas_set_num_threads_local
    except (OSError, AttributeError):
        return None
    setter.restype, setter.argtypes = ctypes.c_int, [ctypes.c_int]
    return setter


_set_local_threads = _find_local_thread_setter()


def matmul(a: np.ndarray, b: np.ndarray, work: int) -> np.ndarray:
    """``np.matmul(a, b)``; `work` (the number of multiply-adds) below THREADED_WORK runs it on this thread."""
    if _set_local_threads is None or work >= THREADED_WORK:
        return np.matmul(a, b)
    previous = _set_local_threads(1)
    try:
        return np.matmul(a, b)
    finally:
        _set_local_threads(previous)
