"""``paddle.distributed.fleet`` for collective (data-parallel) training in dynamic-graph mode.

``fleet.init(is_collective=True)`` joins the job, ``fleet.distributed_model(model)`` is ``paddle.DataParallel``
configured from the ``DistributedStrategy`` (bucket sizes, unused parameters), and
``fleet.distributed_optimizer(opt)`` returns the optimizer (gradients are averaged by the model's backward).
Parameter-server training, hybrid (model/pipeline/sharding) parallelism and the strategy's meta-optimizers (amp,
recompute, lars, ...) are not available: turning them on is an error that says so.
"""
import copy

from paddle_fn.distributed import env
from paddle_fn.distributed.collective import barrier
from paddle_fn.distributed.fleet import utils  # noqa: F401  (fleet.utils.recompute)
from paddle_fn.distributed.parallel import DataParallel, get_rank, get_world_size

# Paddle 3.3.1's defaults. The first group is used; the second must keep its default (what it turns on does not
# exist here); the third only concerns parameter-server or NCCL internals and is accepted as set.
_USED = {"fuse_all_reduce_ops": True, "fuse_grad_size_in_MB": 32, "last_comm_group_size_MB": 1.0,
         "find_unused_parameters": False}
_UNSUPPORTED = {"amp": False, "recompute": False, "sharding": False, "pipeline": False, "tensor_parallel": False,
                "gradient_merge": False, "lars": False, "lamb": False, "dgc": False, "localsgd": False,
                "adaptive_localsgd": False, "sync_batch_norm": False, "fp16_allreduce": False, "asp": False,
                "qat": False, "auto": False, "semi_auto": False, "heter_ccl_mode": False}
_ACCEPTED = {"a_sync": True, "sync_nccl_allreduce": True, "nccl_comm_num": 1}
_HYBRID = {"dp_degree": -1, "mp_degree": 1, "pp_degree": 1, "sharding_degree": 1, "sep_degree": 1}
_STATE = {"strategy": None}


class DistributedStrategy:
    """The settings of fleet training (Paddle's ``fleet.DistributedStrategy``), with Paddle's defaults.

    Example:
        >>> from paddle_fn.distributed import fleet
        >>> strategy = fleet.DistributedStrategy()
        >>> strategy.fuse_grad_size_in_MB, strategy.find_unused_parameters, strategy.hybrid_configs["dp_degree"]
        (32, False, -1)
    """

    def __init__(self):
        fields = {**_USED, **_UNSUPPORTED, **_ACCEPTED}
        object.__setattr__(self, "_fields", fields)
        object.__setattr__(self, "_hybrid", dict(_HYBRID))
        object.__setattr__(self, "_scale", {"scale_strategy": "avg", "scale_gradient": False})

    def __getattr__(self, name):
        fields = self.__dict__.get("_fields", {})  # absent while copy.deepcopy rebuilds the object
        if name in fields:
            return fields[name]
        raise AttributeError(f"DistributedStrategy has no field {name!r}")

    def __setattr__(self, name, value):
        if name == "hybrid_configs":
            unknown = sorted(set(value) - set(_HYBRID))
            if unknown:
                raise NotImplementedError(f"DistributedStrategy.hybrid_configs: {unknown} are not supported (only "
                                          f"{sorted(_HYBRID)})")
            self._hybrid.update(value)
        elif name == "gradient_scale_configs":
            self._scale.update(value)
        elif name in self._fields:
            self._fields[name] = value
        else:
            raise AttributeError(f"DistributedStrategy has no field {name!r} here; known: {sorted(self._fields)}, "
                                 "hybrid_configs, gradient_scale_configs")

    @property
    def hybrid_configs(self):
        """Degrees of the hybrid parallelism: only data parallelism (``dp_degree``) is available."""
        return dict(self._hybrid)

    @property
    def gradient_scale_configs(self):
        """How gradients are scaled across ranks: ``scale_strategy='avg'`` (the mean) only."""
        return dict(self._scale)

    def _check(self):
        on = [k for k, default in _UNSUPPORTED.items() if self._fields[k] != default]
        if on:
            raise NotImplementedError(f"DistributedStrategy: {on} not supported; fleet here is data parallelism "
                                      "(paddle.amp and the Layer API cover mixed precision and recompute directly)")
        hybrid = {k: v for k, v in self._hybrid.items() if k != "dp_degree" and v != 1}
        if hybrid:
            raise NotImplementedError(f"DistributedStrategy.hybrid_configs {hybrid}: only data parallelism")
        dp = self._hybrid["dp_degree"]
        if dp not in (-1, get_world_size()):
            raise ValueError(f"DistributedStrategy.hybrid_configs dp_degree={dp} but the job has "
                             f"{get_world_size()} processes")
        if self._scale.get("scale_strategy", "avg") != "avg" or self._scale.get("scale_gradient", False):
            raise NotImplementedError(f"DistributedStrategy.gradient_scale_configs {self._scale}: gradients are "
                                      "averaged (scale_strategy='avg', scale_gradient=False) only")

    def __repr__(self):
        return f"DistributedStrategy({self._fields}, hybrid_configs={self._hybrid})"


def init(role_maker=None, is_collective=False, strategy=None, log_level="INFO"):
    """Join the job for collective training (``is_collective=True``); parameter-server mode is not available.

    Example:
        >>> from paddle_fn.distributed import fleet
        >>> fleet.init(is_collective=True)
        >>> fleet.worker_index(), fleet.worker_num()
        (0, 1)
    """
    if role_maker is not None:
        raise NotImplementedError("fleet.init(role_maker=...): the job comes from the launcher's environment; "
                                  "pass role_maker=None")
    if not is_collective:
        raise NotImplementedError("fleet.init(is_collective=False) starts parameter-server training, which is not "
                                  "available; pass is_collective=True for data-parallel training")
    strategy = DistributedStrategy() if strategy is None else strategy
    if not isinstance(strategy, DistributedStrategy):
        raise TypeError(f"fleet.init: strategy must be a fleet.DistributedStrategy, got {type(strategy).__name__}")
    strategy._check()
    env.initialize()
    _STATE["strategy"] = copy.deepcopy(strategy)


def _strategy():
    if _STATE["strategy"] is None:
        raise RuntimeError("call fleet.init(is_collective=True) first")
    return _STATE["strategy"]


def distributed_model(model):
    """``paddle.DataParallel`` over the job, with the strategy's bucket sizes and ``find_unused_parameters``.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.distributed import fleet
        >>> fleet.init(is_collective=True)
        >>> type(fleet.distributed_model(paddle.nn.Linear(2, 1))).__name__
        'DataParallel'
    """
    s = _strategy()
    # fuse_all_reduce_ops=False: one all-reduce per parameter (a bucket too small for two).
    size = s.fuse_grad_size_in_MB if s.fuse_all_reduce_ops else 1e-12
    last = s.last_comm_group_size_MB if s.fuse_all_reduce_ops else 1e-12
    return DataParallel(model, comm_buffer_size=size, last_comm_buffer_size=last,
                        find_unused_parameters=s.find_unused_parameters)


def distributed_optimizer(optimizer, strategy=None):
    """The optimizer itself: in data parallelism the model's backward already averages the gradients.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.distributed import fleet
        >>> fleet.init(is_collective=True)
        >>> opt = paddle.optimizer.SGD(parameters=paddle.nn.Linear(2, 1).parameters())
        >>> fleet.distributed_optimizer(opt) is opt
        True
    """
    _strategy()
    if strategy is not None:
        strategy._check()
    return optimizer


def worker_index():
    """This process's rank.

    Example:
        >>> from paddle_fn.distributed import fleet
        >>> fleet.worker_index()
        0
    """
    return get_rank()


def worker_num():
    """The number of processes.

    Example:
        >>> from paddle_fn.distributed import fleet
        >>> fleet.worker_num()
        1
    """
    return get_world_size()


def is_first_worker():
    """Whether this is rank 0.

    Example:
        >>> from paddle_fn.distributed import fleet
        >>> fleet.is_first_worker()
        True
    """
    return get_rank() == 0


def is_worker():
    """True: every process is a worker in collective training.

    Example:
        >>> from paddle_fn.distributed import fleet
        >>> fleet.is_worker(), fleet.is_server()
        (True, False)
    """
    return True


def is_server():
    """False: there are no parameter servers.

    Example:
        >>> from paddle_fn.distributed import fleet
        >>> fleet.is_server()
        False
    """
    return False


def barrier_worker():
    """Wait for every worker (``paddle.distributed.barrier``).

    Example:
        >>> from paddle_fn.distributed import fleet
        >>> fleet.barrier_worker()
    """
    barrier()
