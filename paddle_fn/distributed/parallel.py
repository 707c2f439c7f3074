"""Data parallelism across processes: ``init_parallel_env``, ``get_rank``, ``get_world_size``, ``ParallelEnv``,
``DataParallel``.

``DataParallel`` averages gradients across processes while ``loss.backward()`` runs: each trainable parameter
has a gradient hook on the eager tape. Parameters are grouped into buckets (about `comm_buffer_size` MB, the
first one `last_comm_buffer_size` MB, as Paddle's reducer: gradients become ready roughly in reverse order of the
parameters); when every parameter of a bucket that the forward pass used has its gradient, the bucket is
flattened and all-reduced in one call. Buckets are reduced in a fixed order on every rank, and all of them within
the backward pass, before the gradients are accumulated into ``.grad``.
"""
import contextlib
import os

import numpy as np

from paddle_fn.core import tape
from paddle_fn.core.pytree import tree_flatten
from paddle_fn.core.trace import Tensor, Tracer
from paddle_fn.distributed import comm as _comm
from paddle_fn.distributed import env
from paddle_fn.distributed.collective import _comm_for, get_group
from paddle_fn.nn_compat.layer.layers import Layer
from paddle_fn.tensor.creation import assign, to_tensor

_MB = 1024 * 1024


def init_parallel_env():
    """Join the job started by ``paddle_fn.distributed.launch``, ``spawn``, ``mpirun`` or Slurm.

    A single process without a launcher forms a job of one (no communication). Returns the group of all ranks.

    Example:
        >>> import paddle_fn.distributed as dist
        >>> group = dist.init_parallel_env()
        >>> dist.get_rank(), dist.get_world_size()
        (0, 1)
    """
    env.initialize()
    return get_group(0)


def get_rank(group=None):
    """This process's rank: from the job once initialized, else from the launcher's environment
    (``PADDLE_TRAINER_ID``, or mpirun's / Slurm's rank; 0 without a launcher).

    Example:
        >>> import paddle_fn.distributed as dist
        >>> dist.get_rank()
        0
    """
    if env.is_initialized():
        return env.communicator().rank
    return _from_env(("PADDLE_TRAINER_ID", "PMI_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"), 0)


def get_world_size(group=None):
    """The number of processes: from the job once initialized, else from the launcher's environment
    (``PADDLE_TRAINERS_NUM``, or mpirun's / Slurm's size; 1 without a launcher).

    Example:
        >>> import paddle_fn.distributed as dist
        >>> dist.get_world_size()
        1
    """
    if env.is_initialized():
        return env.communicator().size
    return _from_env(("PADDLE_TRAINERS_NUM", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"), 1)


def _from_env(names, default):
    """The first of the launchers' variables that is set (Paddle's, then MPI's, then Slurm's)."""
    for name in names:
        if name in os.environ:
            return int(os.environ[name])
    return default


class ParallelEnv:
    """The launcher's description of this process (Paddle's ``paddle.distributed.ParallelEnv``).

    Example:
        >>> import paddle_fn.distributed as dist
        >>> e = dist.ParallelEnv()
        >>> e.rank, e.world_size, e.local_rank, e.nranks
        (0, 1, 0, 1)
    """

    def __init__(self):
        self._rank = get_rank()
        self._world_size = get_world_size()
        self._device_id = int(os.environ.get("FLAGS_selected_gpus", "0").split(",")[0] or 0)
        self._trainer_endpoints = os.environ.get("PADDLE_TRAINER_ENDPOINTS", "").split(",")
        self._current_endpoint = os.environ.get("PADDLE_CURRENT_ENDPOINT", "")
        self._nrings = int(os.environ.get("FLAGS_nccl_nrings", "1"))
        self._pg_timeout = int(os.environ.get("PADDLE_PG_TIMEOUT", "1800000"))

    @property
    def rank(self):
        """This process's rank."""
        return self._rank

    @property
    def world_size(self):
        """The number of processes."""
        return self._world_size

    @property
    def device_id(self):
        """The device index the launcher gave this process (``FLAGS_selected_gpus``, 0 by default)."""
        return self._device_id

    @property
    def current_endpoint(self):
        """This process's ``ip:port`` from the launcher ('' without one)."""
        return self._current_endpoint

    @property
    def trainer_endpoints(self):
        """Every process's ``ip:port`` from the launcher (``['']`` without one, as Paddle)."""
        return self._trainer_endpoints

    @property
    def device_type(self):
        """The custom device type ('': CPU here, as Paddle without custom devices)."""
        return ""

    @property
    def nrings(self):
        """``FLAGS_nccl_nrings`` (1 by default; NCCL rings do not exist here)."""
        return self._nrings

    @property
    def pg_timeout(self):
        """``PADDLE_PG_TIMEOUT`` in milliseconds (1800000 by default), as Paddle reports it."""
        return self._pg_timeout

    local_rank = rank
    nranks = world_size
    dev_id = device_id


def _leaves_reachable(outputs):
    """ids of the leaf Tensors (parameters) the recorded graph of `outputs` depends on."""
    roots, found = [], set()
    for out in outputs:
        if out._grad_node is None:
            found.add(id(out))
        else:
            roots.append(out._grad_node[0])
    for node in tape._topological_nodes(roots):
        for entry in node.inputs or ():
            if entry[0] == tape.LEAF:
                found.add(id(entry[1]))
    return found


class DataParallel(Layer):
    """Run `layers` in every process of a data-parallel job and average the gradients across processes.

    Each process feeds its own part of the global batch; after ``loss.backward()`` every process holds the mean
    of the processes' gradients, so the optimizers stay in step. The parameters and buffers of rank 0 are
    broadcast to every rank at construction. ``state_dict`` has the keys of the wrapped layer (no prefix).

    Args:
        layers (Layer): the model.
        strategy: accepted as None only (Paddle's old ParallelStrategy is filled from the environment).
        comm_buffer_size (int): bucket size in MB for gradient all-reduce. Default: 25.
        last_comm_buffer_size (int): size in MB of the first bucket reduced (the last parameters). Default: 1.
        find_unused_parameters (bool): allow parameters that the forward pass did not use (they contribute zero
            gradients). With False such a parameter is an error, as in Paddle. Default: False.
        group (Group, optional): the group of all ranks (None).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.distributed as dist
        >>> _ = dist.init_parallel_env()
        >>> model = paddle.DataParallel(paddle.nn.Linear(2, 1))
        >>> loss = model(paddle.ones([4, 2])).mean()
        >>> loss.backward()
        >>> list(model.state_dict())
        ['weight', 'bias']
    """

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel wraps a paddle.nn.Layer, got {type(layers).__name__}")
        super().__init__(layers.full_name() + "_data_parallel")
        if strategy is not None:
            raise NotImplementedError("DataParallel(strategy=...): the parallel strategy comes from the launcher's "
                                      "environment; pass strategy=None")
        if comm_buffer_size <= 0 or last_comm_buffer_size <= 0:
            raise ValueError(f"DataParallel: comm_buffer_size ({comm_buffer_size}) and last_comm_buffer_size "
                             f"({last_comm_buffer_size}) must be positive (MB)")
        self._layers = layers
        self.find_unused_parameters = find_unused_parameters
        self.group = group
        self.comm_buffer_size, self.last_comm_buffer_size = comm_buffer_size, last_comm_buffer_size
        self._comm = _comm_for(group, "DataParallel")
        self._grad_need_sync = True
        self._pass = None
        self._params = [p for p in layers.parameters() if not p.stop_gradient]
        self._buckets = self._make_buckets()
        if self._comm.size > 1:
            self._sync_params_buffers()
            for p in self._params:
                p.register_hook(self._hook_for(p))

    # -- construction
    def _sync_params_buffers(self):
        """Every rank starts from rank 0's parameters and buffers, as Paddle's ``sync_params_buffers``."""
        tensors = list(self._layers.parameters()) + [b for b in self._layers.buffers() if b is not None]
        for t in tensors:
            t.set_value(self._comm.broadcast(np.asarray(t.numpy()), 0))

    def _make_buckets(self):
        """Lists of parameter indices, in reverse parameter order, split by dtype and size."""
        buckets, current, size, dtype = [], [], 0, None
        limit = self.last_comm_buffer_size * _MB
        for i in reversed(range(len(self._params))):
            p = self._params[i]
            nbytes = int(np.prod(p.shape)) * np.dtype(p.numpy().dtype).itemsize
            if current and (size + nbytes > limit or p.dtype != dtype):
                buckets.append(current)
                current, size, limit = [], 0, self.comm_buffer_size * _MB
            current.append(i)
            size += nbytes
            dtype = p.dtype
        if current:
            buckets.append(current)
        self._bucket_of = {id(self._params[i]): b for b, idx in enumerate(buckets) for i in idx}
        return buckets

    # -- forward / backward
    def forward(self, *inputs, **kwargs):
        outputs = self._layers(*inputs, **kwargs)
        if self._comm.size > 1 and self._grad_need_sync and tape.is_grad_enabled():
            self._prepare_for_backward(outputs)
        else:
            self._pass = None
        return outputs

    def _prepare_for_backward(self, outputs):
        used = _leaves_reachable([t for t in tree_flatten(outputs)[0] if isinstance(t, Tensor)])
        unused = [n for n, p in self._layers.named_parameters() if not p.stop_gradient and id(p) not in used]
        if unused and not self.find_unused_parameters:
            raise RuntimeError(f"DataParallel: the forward pass did not use parameter(s) {unused}; their gradients "
                               "would never be reduced. Pass find_unused_parameters=True to paddle.DataParallel")
        self._pass = {
            "expected": [sum(1 for i in b if id(self._params[i]) in used) for b in self._buckets],
            "used": used, "ready": [dict() for _ in self._buckets], "next": 0}

    def _hook_for(self, param):
        bucket = self._bucket_of[id(param)]

        def hook(grad):
            state = self._pass
            if state is None or id(param) not in state["used"]:
                return None
            if isinstance(grad, Tracer):
                raise NotImplementedError(
                    "DataParallel averages gradients eagerly, between processes; a training step compiled with "
                    "paddle.jit / to_static cannot contain its backward. Run the step eagerly, or compile the step "
                    "with paddle.pmap and pmean the gradients (backend=paddle.distributed.ProcessCollectives())")
            placeholder = grad.detach()
            state["ready"][bucket][id(param)] = placeholder
            self._reduce_ready(state)
            return placeholder
        return hook

    def _reduce_ready(self, state):
        """All-reduce the complete buckets in bucket order (the same order on every rank)."""
        while state["next"] < len(self._buckets):
            b = state["next"]
            if len(state["ready"][b]) < state["expected"][b]:
                return
            self._reduce_bucket(self._buckets[b], state["ready"][b])
            state["next"] += 1
        self._pass = None  # every bucket reduced: a second backward without a forward reduces nothing

    def _reduce_bucket(self, indices, ready):
        params = [self._params[i] for i in indices]
        dtype = np.dtype(params[0].numpy().dtype)
        parts = [np.asarray(ready[id(p)].numpy(), dtype).ravel() if id(p) in ready
                 else np.zeros(int(np.prod(p.shape)), dtype) for p in params]
        flat = self._comm.all_reduce(np.concatenate(parts), _comm.SUM) / self._comm.size
        offset = 0
        for p in params:
            n = int(np.prod(p.shape))
            value = to_tensor(flat[offset:offset + n].astype(dtype).reshape(p.shape))
            offset += n
            if id(p) in ready:
                assign(value, output=ready[id(p)])
            else:  # unused here but maybe used on another rank: its averaged gradient still lands in .grad
                p.grad = value if p.grad is None else p.grad + value

    @contextlib.contextmanager
    def no_sync(self):
        """Within this context, backward does not average gradients (they accumulate locally; use it for
        gradient accumulation and leave it for the last micro-batch).

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.DataParallel(paddle.nn.Linear(2, 1))
            >>> with model.no_sync():
            ...     model(paddle.ones([1, 2])).sum().backward()
        """
        previous, self._grad_need_sync = self._grad_need_sync, False
        try:
            yield
        finally:
            self._grad_need_sync = previous

    # -- Paddle compatibility
    def scale_loss(self, loss):
        """Returns `loss` unchanged: the gradients are averaged across processes already (Paddle 2.x behaviour).

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.DataParallel(paddle.nn.Linear(2, 1))
            >>> model.scale_loss(paddle.to_tensor(2.0)).item()
            2.0
        """
        return loss

    def apply_collective_grads(self):
        """Does nothing: gradients are averaged during backward (kept for Paddle 1.x programs).

        Example:
            >>> import paddle_fn as paddle
            >>> paddle.DataParallel(paddle.nn.Linear(2, 1)).apply_collective_grads()
        """

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="", use_hook=True,
                   keep_vars=True):
        """The wrapped layer's ``state_dict`` (keys without a ``_layers.`` prefix, as Paddle).

        Example:
            >>> import paddle_fn as paddle
            >>> list(paddle.DataParallel(paddle.nn.Linear(2, 1)).state_dict())
            ['weight', 'bias']
        """
        return self._layers.state_dict(destination, include_sublayers, structured_name_prefix, use_hook, keep_vars)

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Load into the wrapped layer (keys without a prefix).

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.DataParallel(paddle.nn.Linear(2, 1))
            >>> model.set_state_dict(model.state_dict())
            ([], [])
        """
        return self._layers.set_state_dict(state_dict, use_structured_name)

    set_dict = set_state_dict
    load_dict = set_state_dict
