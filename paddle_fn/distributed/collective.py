"""Paddle's collective API on eager Tensors: ``all_reduce``, ``all_gather``, ``broadcast``, ``reduce``,
``scatter``, ``barrier``, ``send``/``recv`` and the object variants.

Like Paddle they work in place: the Tensor passed in holds the result afterwards (its handle is rebound). They
run eagerly and synchronously (``sync_op=False`` returns a Task that is already complete). With world size 1
they are identities. Inside ``jit``/``to_static`` use ``paddle_fn.pmap``'s collectives instead.
"""
import numpy as np

from paddle_fn.core.trace import Tensor, Tracer
from paddle_fn.distributed import comm as _comm
from paddle_fn.distributed import env
from paddle_fn.tensor.creation import assign, to_tensor


class ReduceOp:
    """How ``all_reduce`` / ``reduce`` combine the ranks' tensors.

    Example:
        >>> import paddle_fn.distributed as dist
        >>> dist.ReduceOp.SUM, dist.ReduceOp.AVG
        (0, 4)
    """
    SUM = _comm.SUM
    MAX = _comm.MAX
    MIN = _comm.MIN
    PROD = _comm.PROD
    AVG = _comm.AVG


class Group:
    """A communication group. Only the group of all processes exists (``new_group`` of every rank).

    Example:
        >>> import paddle_fn.distributed as dist
        >>> g = dist.new_group()
        >>> g.nranks, g.ranks, g.is_member()
        (1, [0], True)
    """

    def __init__(self, rank, nranks, id=0, ranks=None, name=None):
        self.rank, self.nranks, self.id = rank, nranks, id
        self.ranks = list(range(nranks)) if ranks is None else list(ranks)
        self.name = name or ("_default_pg" if id == 0 else f"group_{id}")

    @property
    def world_size(self):
        """Number of ranks in the group."""
        return self.nranks

    @property
    def process_group(self):
        """The group itself (Paddle programs pass ``group.process_group`` to ``DataParallel(group=...)``)."""
        return self

    def is_member(self):
        """Whether this process belongs to the group."""
        return self.rank >= 0

    def get_group_rank(self, rank):
        """The rank inside the group of global `rank`, or -1 when it is not a member."""
        return self.ranks.index(rank) if rank in self.ranks else -1

    def __repr__(self):
        return f"rank: {self.rank}, nranks: {self.nranks}, id: {self.id}, ranks: {', '.join(map(str, self.ranks))}"


class Task:
    """What the collectives return: the work is already done (eager, synchronous), so ``wait`` returns at once.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.distributed as dist
        >>> task = dist.all_reduce(paddle.to_tensor([1.0]), sync_op=False)
        >>> task.is_completed(), task.wait()
        (True, True)
    """

    def wait(self, timeout=None):
        """Wait for the collective (already complete); returns True."""
        return True

    def is_completed(self):
        """True: the collective has finished."""
        return True


_GROUPS = {}


def _world():
    c = env.communicator()
    return Group(c.rank, c.size, 0)


def new_group(ranks=None, backend=None, timeout=None):
    """A group of processes; only the group of all ranks (``ranks=None`` or every rank) is supported.

    Args:
        ranks (list[int], optional): the global ranks in the group; None means all.
        backend (str, optional): accepted for compatibility: ``None``, ``"gloo"``, ``"nccl"``, ``"mpi"`` or
            ``"tcp"`` -- communication goes through the job's communicator whatever is named.
        timeout: accepted when None; the timeout is the job's (``initialize(timeout=...)``).

    Example:
        >>> import paddle_fn.distributed as dist
        >>> dist.new_group([0]).ranks
        [0]
    """
    c = env.communicator()
    if ranks is not None and sorted(ranks) != list(range(c.size)):
        raise NotImplementedError(f"new_group: only the group of all {c.size} ranks is supported, got ranks={ranks}")
    if backend not in (None, "gloo", "nccl", "mpi", "tcp", "bkcl", "auto"):
        raise ValueError(f"new_group: unknown backend {backend!r}")
    if timeout is not None:
        raise NotImplementedError("new_group(timeout=...): set the job's timeout with "
                                  "paddle_fn.distributed.initialize(timeout=...) or PADDLE_FN_DIST_TIMEOUT")
    group = Group(c.rank, c.size, len(_GROUPS) + 1)
    _GROUPS[group.id] = group
    return group


def get_group(id=0):
    """The group with this id (0: all ranks), or None.

    Example:
        >>> import paddle_fn.distributed as dist
        >>> dist.get_group(0).nranks
        1
    """
    return _world() if id == 0 else _GROUPS.get(id)


def _comm_for(group, what):
    c = env.communicator()
    if group is not None and (not isinstance(group, Group) or group.nranks != c.size):
        raise NotImplementedError(f"{what}: only the group of all ranks is supported, got {group!r}")
    return c


def _array(tensor, what, name="tensor"):
    if isinstance(tensor, Tracer):
        raise TypeError(f"{what}: {name} is a traced value (inside jit/to_static/vmap); the process collectives are "
                        "eager -- use paddle_fn.pmap with psum/all_gather for compiled collectives")
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{what}: {name} must be a paddle Tensor, got {type(tensor).__name__}")
    return np.asarray(tensor.numpy())


def _set(tensor, array):
    assign(to_tensor(np.asarray(array).reshape(tensor.shape), dtype=tensor.dtype), output=tensor)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduce `tensor` over all ranks; every rank's `tensor` holds the result (in place).

    Args:
        tensor (Tensor): the input and output.
        op (ReduceOp): SUM (default), MAX, MIN, PROD or AVG.
        group (Group, optional): the group of all ranks (None).
        sync_op (bool): False returns a Task (already complete).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.distributed as dist
        >>> x = paddle.to_tensor([1.0, 2.0])
        >>> _ = dist.all_reduce(x)   # world size 1: unchanged; on 2 ranks each holds the sum
        >>> x.numpy()
        array([1., 2.], dtype=float32)
    """
    c = _comm_for(group, "all_reduce")
    _set(tensor, c.all_reduce(_array(tensor, "all_reduce"), op))
    return Task()


def all_gather(tensor_list, tensor, group=None, sync_op=True):
    """Gather `tensor` from every rank into `tensor_list` (rank order): an empty list is filled with new Tensors,
    a list of one Tensor per rank is updated in place, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.distributed as dist
        >>> out = []
        >>> _ = dist.all_gather(out, paddle.to_tensor([1, 2]))
        >>> [t.numpy() for t in out]
        [array([1, 2])]
    """
    if not isinstance(tensor_list, list):
        raise TypeError(f"all_gather: tensor_list must be a list to fill, got {type(tensor_list).__name__}")
    c = _comm_for(group, "all_gather")
    _fill(tensor_list, c.all_gather(_array(tensor, "all_gather")), tensor.dtype, c, "all_gather", "tensor_list")
    return Task()


def all_gather_object(object_list, obj, group=None):
    """Append every rank's `obj` to `object_list` (rank order), as in Paddle. Over the TCP transport (``launch``,
    ``spawn``) `obj` travels as ``paddle.save`` writes it: Tensors, numpy arrays, numbers, strings and
    lists/tuples/dicts of them.

    Example:
        >>> import paddle_fn.distributed as dist
        >>> out = []
        >>> dist.all_gather_object(out, {"loss": 0.5})
        >>> out
        [{'loss': 0.5}]
    """
    if not isinstance(object_list, list):
        raise TypeError(f"all_gather_object: object_list must be a list to fill, got {type(object_list).__name__}")
    object_list.extend(_comm_for(group, "all_gather_object").all_gather_object(obj))


def broadcast(tensor, src, group=None, sync_op=True):
    """Copy rank `src`'s `tensor` into `tensor` on every rank (in place).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.distributed as dist
        >>> x = paddle.to_tensor([3.0])
        >>> _ = dist.broadcast(x, src=0)
        >>> x.numpy()
        array([3.], dtype=float32)
    """
    c = _comm_for(group, "broadcast")
    _check_rank(src, c, "broadcast", "src")
    _set(tensor, c.broadcast(_array(tensor, "broadcast"), src))
    return Task()


def broadcast_object_list(object_list, src=0, group=None):
    """Replace the objects of `object_list` on every rank by rank `src`'s (same length on every rank).

    Example:
        >>> import paddle_fn.distributed as dist
        >>> objs = ["config", 3]
        >>> dist.broadcast_object_list(objs, src=0)
        >>> objs
        ['config', 3]
    """
    c = _comm_for(group, "broadcast_object_list")
    _check_rank(src, c, "broadcast_object_list", "src")
    objs = c.all_gather_object(list(object_list))[src]
    object_list[:] = objs


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduce `tensor` over all ranks into rank `dst`'s `tensor`; the others keep theirs.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.distributed as dist
        >>> x = paddle.to_tensor([2.0])
        >>> _ = dist.reduce(x, dst=0, op=dist.ReduceOp.MAX)
        >>> x.numpy()
        array([2.], dtype=float32)
    """
    c = _comm_for(group, "reduce")
    _check_rank(dst, c, "reduce", "dst")
    _set(tensor, c.reduce(_array(tensor, "reduce"), dst, op))
    return Task()


def scatter(tensor, tensor_list=None, src=0, group=None, sync_op=True):
    """Rank `src` sends ``tensor_list[i]`` to rank i, which receives it into `tensor` (in place).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.distributed as dist
        >>> out = paddle.zeros([2])
        >>> _ = dist.scatter(out, [paddle.to_tensor([5.0, 6.0])], src=0)
        >>> out.numpy()
        array([5., 6.], dtype=float32)
    """
    c = _comm_for(group, "scatter")
    _check_rank(src, c, "scatter", "src")
    like = _array(tensor, "scatter")
    arrays = None
    if c.rank == src:
        if tensor_list is None or len(tensor_list) != c.size:
            got = "None" if tensor_list is None else f"{len(tensor_list)} tensors"
            raise ValueError(f"scatter: the source rank {src} needs tensor_list with one tensor per rank "
                             f"({c.size}), got {got}")
        arrays = [_array(t, "scatter", "tensor_list[i]") for t in tensor_list]
        for i, a in enumerate(arrays):
            if a.shape != like.shape:
                raise ValueError(f"scatter: tensor_list[{i}] has shape {list(a.shape)} but the output tensor has "
                                 f"shape {list(like.shape)}")
        arrays = [a.astype(like.dtype) for a in arrays]
    _set(tensor, c.scatter(arrays, src, like))
    return Task()


def gather(tensor, gather_list=None, dst=0, group=None, sync_op=True):
    """Collect `tensor` from every rank into `gather_list` on rank `dst` (rank order; an empty list is filled, a
    list of one Tensor per rank is updated in place).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.distributed as dist
        >>> out = []
        >>> _ = dist.gather(paddle.to_tensor([1.0]), out, dst=0)
        >>> [t.numpy() for t in out]
        [array([1.], dtype=float32)]
    """
    c = _comm_for(group, "gather")
    _check_rank(dst, c, "gather", "dst")
    if c.rank == dst and not isinstance(gather_list, list):
        raise TypeError(f"gather: rank {dst} (dst) needs gather_list, a list to fill; got {gather_list!r}")
    parts = c.all_gather(_array(tensor, "gather"))
    if c.rank == dst:
        _fill(gather_list, parts, tensor.dtype, c, "gather", "gather_list")
    return Task()


def reduce_scatter(tensor, tensor_list, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduce ``tensor_list`` (one tensor per rank) over all ranks; rank i gets element i into `tensor`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.distributed as dist
        >>> out = paddle.zeros([2])
        >>> _ = dist.reduce_scatter(out, [paddle.to_tensor([1.0, 2.0])])
        >>> out.numpy()
        array([1., 2.], dtype=float32)
    """
    c = _comm_for(group, "reduce_scatter")
    stacked = _stacked(tensor_list, c, tensor, "reduce_scatter")
    _set(tensor, c.all_reduce(stacked, op)[c.rank])
    return Task()


def alltoall(out_tensor_list, in_tensor_list, group=None, sync_op=True):
    """Rank i sends ``in_tensor_list[j]`` to rank j, which stores it as ``out_tensor_list[i]`` (an empty list is
    filled, a list of one Tensor per rank is updated in place).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.distributed as dist
        >>> out = []
        >>> _ = dist.alltoall(out, [paddle.to_tensor([7, 8])])
        >>> [t.numpy() for t in out]
        [array([7, 8])]
    """
    if not isinstance(out_tensor_list, list):
        raise TypeError(f"alltoall: out_tensor_list must be a list to fill, got {type(out_tensor_list).__name__}")
    c = _comm_for(group, "alltoall")
    if not in_tensor_list:
        raise ValueError(f"alltoall: in_tensor_list needs one tensor per rank ({c.size}), got none")
    dtype = in_tensor_list[0].dtype
    stacked = _stacked(in_tensor_list, c, in_tensor_list[0], "alltoall")
    everyone = c.all_gather(stacked)
    _fill(out_tensor_list, [everyone[src][c.rank] for src in range(c.size)], dtype, c, "alltoall", "out_tensor_list")
    return Task()


def alltoall_single(out_tensor, in_tensor, in_split_sizes=None, out_split_sizes=None, group=None, sync_op=True):
    """``alltoall`` on one tensor split evenly along axis 0: block j goes to rank j; received blocks are
    concatenated in rank order into `out_tensor` (in place). Uneven split sizes are not supported.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.distributed as dist
        >>> out = paddle.zeros([2])
        >>> _ = dist.alltoall_single(out, paddle.to_tensor([3.0, 4.0]))
        >>> out.numpy()
        array([3., 4.], dtype=float32)
    """
    c = _comm_for(group, "alltoall_single")
    x = _array(in_tensor, "alltoall_single", "in_tensor")
    if x.ndim == 0 or x.shape[0] % c.size:
        raise ValueError(f"alltoall_single: in_tensor's first axis ({list(x.shape)}) must split evenly over "
                         f"{c.size} ranks")
    block = x.shape[0] // c.size
    for name, sizes in (("in_split_sizes", in_split_sizes), ("out_split_sizes", out_split_sizes)):
        if sizes is not None and list(sizes) != [block] * c.size:
            raise NotImplementedError(f"alltoall_single: {name}={list(sizes)}: only even splits ({[block] * c.size}) "
                                      "are supported")
    everyone = c.all_gather(x.reshape((c.size, block) + x.shape[1:]))
    _set(out_tensor, np.concatenate([everyone[src][c.rank] for src in range(c.size)]))
    return Task()


def scatter_object_list(out_object_list, in_object_list=None, src=0, group=None):
    """Rank `src` sends ``in_object_list[i]`` to rank i, which finds it in ``out_object_list[0]``.

    Example:
        >>> import paddle_fn.distributed as dist
        >>> out = []
        >>> dist.scatter_object_list(out, [{"shard": 0}], src=0)
        >>> out
        [{'shard': 0}]
    """
    c = _comm_for(group, "scatter_object_list")
    _check_rank(src, c, "scatter_object_list", "src")
    if c.rank == src and (in_object_list is None or len(in_object_list) != c.size):
        raise ValueError(f"scatter_object_list: the source rank {src} needs in_object_list with one object per rank "
                         f"({c.size})")
    objs = c.all_gather_object(list(in_object_list) if c.rank == src else None)[src]
    out_object_list[:] = [objs[c.rank]]


def is_available():
    """True: ``paddle_fn.distributed`` can be used (TCP always; MPI under ``mpirun`` with mpi4py installed).

    Example:
        >>> import paddle_fn.distributed as dist
        >>> dist.is_available()
        True
    """
    return True


def get_backend(group=None):
    """The communication backend in upper case: ``'MPI'``, ``'TCP'``, or ``'SINGLE'`` (one process).

    Example:
        >>> import paddle_fn.distributed as dist
        >>> dist.get_backend() in ("SINGLE", "MPI", "TCP")
        True
    """
    return _comm_for(group, "get_backend").backend.upper()


def destroy_process_group(group=None):
    """Leave the job (only the group of all ranks exists); ``init_parallel_env`` can then start a new one.

    Example:
        >>> import paddle_fn.distributed as dist
        >>> dist.destroy_process_group()
        >>> dist.is_initialized()
        False
    """
    _comm_for(group, "destroy_process_group")
    env.shutdown()
    _GROUPS.clear()


def _fill(tensor_list, arrays, dtype, c, what, name):
    """Paddle's output-list convention: fill an empty list, or update a list of one Tensor per rank in place."""
    if len(tensor_list) == 0:
        tensor_list.extend(to_tensor(a, dtype=dtype) for a in arrays)
    elif len(tensor_list) == c.size:
        for i, (t, a) in enumerate(zip(tensor_list, arrays)):
            if list(t.shape) != list(np.shape(a)):
                raise ValueError(f"{what}: {name}[{i}] has shape {list(t.shape)} but the gathered tensors have "
                                 f"shape {list(np.shape(a))}")
            _set(t, a)
    else:
        raise ValueError(f"{what}: {name} must be empty or hold one tensor per rank ({c.size}), got "
                         f"{len(tensor_list)}")


def _stacked(tensor_list, c, like, what):
    if tensor_list is None or len(tensor_list) != c.size:
        got = "None" if tensor_list is None else f"{len(tensor_list)} tensors"
        raise ValueError(f"{what}: needs one tensor per rank ({c.size}), got {got}")
    arrays = [_array(t, what, "tensor_list[i]") for t in tensor_list]
    shape = _array(like, what).shape
    for i, a in enumerate(arrays):
        if a.shape != shape:
            raise ValueError(f"{what}: tensor {i} has shape {list(a.shape)}, expected {list(shape)} (all the same)")
    return np.stack(arrays)


def barrier(group=None):
    """Wait until every rank reaches this call.

    Example:
        >>> import paddle_fn.distributed as dist
        >>> dist.barrier()
    """
    _comm_for(group, "barrier").barrier()


def send(tensor, dst=0, group=None, sync_op=True):
    """Send `tensor` to rank `dst` (which calls ``recv``). Needs a job of several processes.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.distributed as dist
        >>> if dist.get_world_size() > 1:   # rank 0 sends, rank 1 receives
        ...     x = paddle.to_tensor([1.0, 2.0])
        ...     _ = dist.send(x, dst=1) if dist.get_rank() == 0 else dist.recv(x, src=0)
    """
    c = _comm_for(group, "send")
    _check_rank(dst, c, "send", "dst")
    c.send(_array(tensor, "send"), dst)
    return Task()


def recv(tensor, src=0, group=None, sync_op=True):
    """Receive into `tensor` (in place) what rank `src` sent with ``send``; shape and dtype must match.

    Example:
        >>> import paddle_fn.distributed as dist
        >>> dist.recv.__name__
        'recv'
    """
    c = _comm_for(group, "recv")
    _check_rank(src, c, "recv", "src")
    _set(tensor, c.recv(_array(tensor, "recv"), src))
    return Task()


def isend(tensor, dst, group=None):
    """``send`` returning its Task (Paddle's asynchronous form; the send is already done).

    Example:
        >>> import paddle_fn.distributed as dist
        >>> dist.isend.__name__
        'isend'
    """
    return send(tensor, dst, group, sync_op=False)


def irecv(tensor, src=None, group=None):
    """``recv`` returning its Task (Paddle's asynchronous form; the data has arrived when it returns).

    Example:
        >>> import paddle_fn.distributed as dist
        >>> dist.irecv.__name__
        'irecv'
    """
    if src is None:
        raise NotImplementedError("irecv from any source (src=None) is not supported; name the sending rank")
    return recv(tensor, src, group, sync_op=False)


def wait(tensor, group=None, use_calc_stream=True):
    """Wait for the collectives on `tensor`: they are synchronous here, so this returns at once.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.distributed as dist
        >>> dist.wait(paddle.to_tensor([1.0]))
    """
    _array(tensor, "wait")


def _check_rank(rank, c, what, name):
    if not isinstance(rank, (int, np.integer)) or not 0 <= rank < c.size:
        raise ValueError(f"{what}: {name}={rank!r} is not a rank of this job (world size {c.size})")
