"""The process-level communicator: what every multi-process path (MPI, the TCP hub of spawn/launch) provides.

A communicator moves numpy arrays between the processes of one job. Every collective is identified by its
running number and a signature (operation, dtype, shape), so a program that calls different collectives on
different ranks is reported as a mismatch, and one that waits too long names the ranks that never arrived
instead of hanging. After such an error the communicator is unusable (the job is out of step).
"""
import numpy as np

# Paddle's ReduceOp codes (paddle.distributed.ReduceOp.SUM == 0, ...).
SUM, MAX, MIN, PROD, AVG = 0, 1, 2, 3, 4
OP_NAMES = {SUM: "SUM", MAX: "MAX", MIN: "MIN", PROD: "PROD", AVG: "AVG"}
DEFAULT_TIMEOUT = 300.0


class DistributedError(RuntimeError):
    """A collective could not complete: a rank is missing, crashed, or called a different collective."""


class CollectiveTimeout(DistributedError):
    """A collective waited longer than the timeout for some ranks (named in the message)."""


def reduce_arrays(arrays, op):
    """Reduce a list of same-shaped arrays with a ReduceOp code, in rank order (so every rank gets the same bits)."""
    stacked = np.stack(arrays)
    if op == SUM:
        return np.add.reduce(stacked, axis=0)
    if op == MAX:
        return np.maximum.reduce(stacked, axis=0)
    if op == MIN:
        return np.minimum.reduce(stacked, axis=0)
    if op == PROD:
        return np.multiply.reduce(stacked, axis=0)
    if op == AVG:
        return (np.add.reduce(stacked, axis=0) / len(arrays)).astype(stacked.dtype)
    raise ValueError(f"unknown reduce op {op!r}; use paddle.distributed.ReduceOp.SUM/MAX/MIN/PROD/AVG")


def check_op(op, dtype):
    """Validate a ReduceOp code for an array dtype (AVG of integers has no exact answer)."""
    if op not in OP_NAMES:
        raise ValueError(f"unknown reduce op {op!r}; use paddle.distributed.ReduceOp.SUM/MAX/MIN/PROD/AVG")
    if op == AVG and not np.issubdtype(dtype, np.inexact):
        raise TypeError(f"ReduceOp.AVG needs a floating point tensor, got {dtype}; use ReduceOp.SUM and divide")


def signature(kind, array=None, **params):
    """The text two ranks must agree on for one collective, e.g. ``all_reduce(float32[2, 3], op=SUM)``."""
    parts = [] if array is None else [f"{array.dtype}{list(array.shape)}"]
    parts += [f"{k}={v}" for k, v in sorted(params.items())]
    return f"{kind}({', '.join(parts)})"


class Communicator:
    """The interface: rank/size plus collectives on numpy arrays. `timeout` is in seconds.

    Implementations: `SingleProcess` (world size 1, identities), `paddle_fn.distributed.mpi.MPICommunicator`,
    `paddle_fn.distributed.tcp.TCPCommunicator`.
    """
    rank = 0
    size = 1
    backend = "none"
    timeout = DEFAULT_TIMEOUT

    def all_reduce(self, array, op=SUM):
        raise NotImplementedError

    def all_gather(self, array):
        """A list with every rank's array (same shape on every rank)."""
        raise NotImplementedError

    def broadcast(self, array, src):
        raise NotImplementedError

    def reduce(self, array, dst, op=SUM):
        """The reduction on `dst`; other ranks get their input back."""
        raise NotImplementedError

    def scatter(self, arrays, src, like):
        """Rank i gets arrays[i] from `src`; `like` (this rank's output array) gives shape and dtype."""
        raise NotImplementedError

    def all_gather_object(self, obj):
        raise NotImplementedError

    def barrier(self):
        raise NotImplementedError

    def send(self, array, dst):
        raise NotImplementedError

    def recv(self, like, src):
        """The next array `src` sent to this rank (shape and dtype of `like`)."""
        raise NotImplementedError

    def close(self):
        """Leave the job cleanly (called at exit)."""


class SingleProcess(Communicator):
    """World size 1: every collective is the identity, as in Paddle without a launcher."""
    backend = "single"

    def all_reduce(self, array, op=SUM):
        check_op(op, array.dtype)
        return array

    def all_gather(self, array):
        return [array]

    def broadcast(self, array, src):
        return array

    def reduce(self, array, dst, op=SUM):
        check_op(op, array.dtype)
        return array

    def scatter(self, arrays, src, like):
        return arrays[0]

    def all_gather_object(self, obj):
        return [obj]

    def barrier(self):
        pass

    def send(self, array, dst):
        raise ValueError(f"send to rank {dst}: this job has a single process (world size 1); start several with "
                         "paddle_fn.distributed.launch, spawn or mpirun")

    def recv(self, like, src):
        raise ValueError(f"recv from rank {src}: this job has a single process (world size 1); start several with "
                         "paddle_fn.distributed.launch, spawn or mpirun")
