"""``paddle.distributed.communication``: the collective functions (Paddle keeps them in this package)."""
from paddle_fn.distributed.collective import (  # noqa: F401
    ReduceOp, all_gather, all_gather_object, all_reduce, alltoall, alltoall_single, barrier, broadcast,
    broadcast_object_list, gather, irecv, isend, recv, reduce, reduce_scatter, scatter, scatter_object_list, send,
    wait)
