"""Late-bound ops the core transforms need from the primitive layer (core may not import prims).

The primitive layer registers: add(a, b), zeros(shape, dtype), moveaxis(x, src, dst),
broadcast_batch(x, size, axis) (insert a new axis of length `size`), stop_gradient(x), conj(x) (of a complex x).
The transforms register wait_for_background_compiles(), which ``Tensor.block_until_ready`` calls once they are
loaded.
"""
from typing import Callable

OPS: dict[str, Callable] = {}


def register(**ops):
    OPS.update(ops)
