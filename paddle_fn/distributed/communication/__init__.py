"""``paddle.distributed.communication``: the collective functions (Paddle keeps them in this package)."""
from paddle_fn.distributed.collective import (  # noqa: F401
    ReduceOp, all_gather, all_gather_object, all_reduce, barrier, broadcast, broadcast_object_list, irecv, isend,
    recv, reduce, scatter, send, wait)
