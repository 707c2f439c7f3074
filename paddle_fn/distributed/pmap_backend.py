"""pmap across processes: the ``Collectives`` backend that combines every process's devices over the job's
communicator (MPI under ``mpirun``, TCP under ``launch``/``spawn``).

Each process maps over its local devices; process ``r`` holds global axis indices ``r * local .. r * local +
local - 1`` (every process must use the same number of devices). Reductions combine locally first and then send
one array per process; the other collectives gather every device's value from every process.
"""
import numpy as np

from paddle_fn.distributed import comm as _comm
from paddle_fn.distributed import env
from paddle_fn.transforms.pmap_collectives import Collectives, InProcessCollectives, set_default_backend

_OPS = {"sum": _comm.SUM, "max": _comm.MAX, "min": _comm.MIN}


class ProcessCollectives(Collectives):
    """pmap's collectives over every process of the job (see ``paddle_fn.distributed.initialize``).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.distributed as dist
        >>> f = paddle.pmap(lambda v: paddle.psum(v, 'i'), axis_name='i', backend=dist.ProcessCollectives())
        >>> f(paddle.ones([len(paddle.devices()), 2])).numpy()[0]   # x number of processes on several processes
        array([1., 1.], dtype=float32)
    """

    def __init__(self, communicator=None):
        self._given = communicator
        self._local = InProcessCollectives()
        self._checked = None

    @property
    def comm(self):
        """The communicator used: the one given, else the job's."""
        return self._given or env.communicator()

    def _check(self, local_count):
        if self._checked != local_count:
            counts = self.comm.all_gather_object(local_count)
            if len(set(counts)) > 1:
                raise ValueError(f"pmap across processes: every process must map over the same number of devices, "
                                 f"got {counts} (process rank order)")
            self._checked = local_count

    def first_index(self, local_count):
        self._check(local_count)
        return self.comm.rank * local_count

    def axis_size(self, local_count):
        self._check(local_count)
        return self.comm.size * local_count

    def _everyone(self, arrays):
        """Every device's value of every process, in global axis order."""
        return [a for block in self.comm.all_gather(np.stack(arrays)) for a in block]

    def all_reduce(self, arrays, op):
        total = self._local.all_reduce(arrays, op)[0]
        if total.dtype == np.bool_:  # logical or / and across processes as max / min of 0-1 integers
            op = "max" if op == "sum" else op
            total = self.comm.all_reduce(total.astype(np.uint8), _OPS[op]).astype(np.bool_)
        else:
            total = self.comm.all_reduce(np.ascontiguousarray(total).reshape(total.shape), _OPS[op])
        return [total] * len(arrays)

    def all_gather(self, arrays, axis, tiled):
        out = self._local.all_gather(self._everyone(arrays), axis, tiled)[0]
        return [out] * len(arrays)

    def reduce_scatter(self, arrays, scatter_dimension, tiled):
        total = self.all_reduce(arrays, "sum")[0]
        n, first = self.axis_size(len(arrays)), self.first_index(len(arrays))
        if tiled:
            return np.split(total, n, axis=scatter_dimension)[first:first + len(arrays)]
        return [np.take(total, first + i, axis=scatter_dimension) for i in range(len(arrays))]

    def ppermute(self, arrays, perm):
        first = self.first_index(len(arrays))
        out = self._local.ppermute(self._everyone(arrays), perm)
        return out[first:first + len(arrays)]

    def all_to_all(self, arrays, split_axis, concat_axis):
        first = self.first_index(len(arrays))
        out = self._local.all_to_all(self._everyone(arrays), split_axis, concat_axis)
        return out[first:first + len(arrays)]


_JOB, _LOCAL = ProcessCollectives(), InProcessCollectives()


def _job_backend() -> Collectives:
    """pmap's default backend: across the job's processes once it has several, in-process otherwise."""
    return _JOB if env.is_initialized() and env.communicator().size > 1 else _LOCAL


set_default_backend(_job_backend)
