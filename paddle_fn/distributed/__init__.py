"""``paddle.distributed``: several processes training together (MPI, ``launch``, ``spawn``, ``DataParallel``).

    python -m paddle_fn.distributed.launch --nproc_per_node 2 train.py     # or: mpirun -n 2 python train.py
"""
from paddle_fn.distributed.comm import CollectiveTimeout, DistributedError  # noqa: F401
from paddle_fn.distributed.env import initialize, is_initialized  # noqa: F401
from paddle_fn.distributed.collective import (  # noqa: F401
    Group, ReduceOp, Task, all_gather, all_gather_object, all_reduce, alltoall, alltoall_single, barrier, broadcast,
    broadcast_object_list, destroy_process_group, gather, get_backend, get_group, irecv, is_available, isend,
    new_group, recv, reduce, reduce_scatter, scatter, scatter_object_list, send, wait)
from paddle_fn.distributed.parallel import (  # noqa: F401
    DataParallel, ParallelEnv, get_rank, get_world_size, init_parallel_env)
from paddle_fn.distributed.spawn import spawn  # noqa: F401
from paddle_fn.distributed import communication, fleet  # noqa: F401
from paddle_fn.distributed.pmap_backend import ProcessCollectives  # noqa: F401

__all__ = [
    "initialize", "is_initialized", "init_parallel_env", "get_rank", "get_world_size", "ParallelEnv", "DataParallel",
    "ReduceOp", "Group", "Task", "new_group", "get_group", "all_reduce", "all_gather", "all_gather_object",
    "broadcast", "broadcast_object_list", "reduce", "scatter", "barrier", "send", "recv", "isend", "irecv", "wait",
    "gather", "reduce_scatter", "alltoall", "alltoall_single", "scatter_object_list", "is_available", "get_backend",
    "destroy_process_group",
    "spawn", "ProcessCollectives", "DistributedError", "CollectiveTimeout"]
