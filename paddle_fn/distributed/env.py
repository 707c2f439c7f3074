"""Which job this process belongs to: ``initialize`` finds the launcher, builds the communicator, keeps it.

Detection order: explicit arguments; Paddle's launcher variables (``PADDLE_TRAINER_ID``, ``PADDLE_TRAINERS_NUM``,
``PADDLE_TRAINER_ENDPOINTS``, set by ``paddle_fn.distributed.launch`` and ``spawn``); ``mpirun`` (MPICH/Hydra or
Open MPI variables); Slurm (``SLURM_PROCID``/``SLURM_NTASKS``, with ``MASTER_ADDR``/``MASTER_PORT`` as the
coordinator when srun gives no MPI); otherwise a single process.
"""
import atexit
import os

from paddle_fn.distributed import mpi
from paddle_fn.distributed.comm import DEFAULT_TIMEOUT, SingleProcess
from paddle_fn.distributed.tcp import TCPCommunicator

_STATE = {"comm": None, "source": None}


def _split_address(address, what):
    host, sep, port = str(address).rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"{what} must look like 'host:port', got {address!r}")
    return host, int(port)


def _default_timeout(timeout):
    if timeout is not None:
        return float(timeout)
    if "PADDLE_FN_DIST_TIMEOUT" in os.environ:
        return float(os.environ["PADDLE_FN_DIST_TIMEOUT"])
    if "PADDLE_PG_TIMEOUT" in os.environ:  # Paddle's process-group timeout, in milliseconds
        return float(os.environ["PADDLE_PG_TIMEOUT"]) / 1000
    return DEFAULT_TIMEOUT


def _detect(env):
    """(source, rank, size, coordinator address or None) from the environment."""
    if "PADDLE_TRAINER_ID" in env and "PADDLE_TRAINERS_NUM" in env:
        endpoints = env.get("PADDLE_TRAINER_ENDPOINTS", "")
        master = env.get("PADDLE_MASTER") or (endpoints.split(",")[0] if endpoints else None)
        return "paddle launcher", int(env["PADDLE_TRAINER_ID"]), int(env["PADDLE_TRAINERS_NUM"]), master
    if mpi.under_mpirun(env):
        return "mpirun", None, None, None
    if "SLURM_PROCID" in env and "SLURM_NTASKS" in env:
        master = f"{env['MASTER_ADDR']}:{env['MASTER_PORT']}" if "MASTER_ADDR" in env and "MASTER_PORT" in env else None
        return "slurm", int(env["SLURM_PROCID"]), int(env["SLURM_NTASKS"]), master
    return "single process", 0, 1, None


def initialize(coordinator_address=None, num_processes=None, process_id=None, *, timeout=None):
    """Join the multi-process job this process was started in (or start a one-process job).

    Args:
        coordinator_address (str, optional): ``"host:port"`` where rank 0 coordinates the job (TCP). Needed with
            explicit `num_processes` > 1; found from the launcher's environment otherwise.
        num_processes (int, optional): number of processes in the job; detected when None.
        process_id (int, optional): this process's rank in ``[0, num_processes)``; detected when None.
        timeout (float, optional): seconds a collective may wait for the other ranks before it fails naming the
            missing ones (default: ``PADDLE_FN_DIST_TIMEOUT`` seconds, else Paddle's ``PADDLE_PG_TIMEOUT``
            milliseconds, else 300 s).

    Returns:
        The communicator (``.rank``, ``.size``, ``.backend``: ``"single"``, ``"mpi"`` or ``"tcp"``). Calling it
        again returns the same one.

    Example:
        >>> import paddle_fn.distributed as dist
        >>> comm = dist.initialize()
        >>> comm.rank, comm.size, comm.backend
        (0, 1, 'single')
    """
    if _STATE["comm"] is not None:
        comm = _STATE["comm"]
        if (num_processes is not None and num_processes != comm.size) or (
                process_id is not None and process_id != comm.rank):
            raise RuntimeError(f"paddle_fn.distributed is already initialized as rank {comm.rank} of {comm.size} "
                               f"(from {_STATE['source']}); it cannot be re-initialized as rank {process_id} of "
                               f"{num_processes}")
        return comm
    timeout = _default_timeout(timeout)
    if timeout <= 0:
        raise ValueError(f"initialize: timeout must be positive, got {timeout}")
    if num_processes is not None or process_id is not None:
        if num_processes is None or process_id is None:
            raise ValueError("initialize: give both num_processes and process_id (or neither, to detect them)")
        source, rank, size, master = "arguments", int(process_id), int(num_processes), coordinator_address
    else:
        source, rank, size, master = _detect(os.environ)
        master = coordinator_address or master
    if source == "mpirun":
        comm = mpi.MPICommunicator(timeout)
    else:
        if size < 1 or not 0 <= rank < size:
            raise ValueError(f"initialize: rank {rank} is not in [0, {size}) (from {source})")
        if size == 1:
            comm = SingleProcess()
        elif master is None:
            raise ValueError(f"initialize: a job of {size} processes (from {source}) needs a coordinator address: "
                             "pass coordinator_address='host:port' or set MASTER_ADDR and MASTER_PORT")
        else:
            host, port = _split_address(master, "coordinator_address")
            comm = TCPCommunicator(rank, size, host, port, timeout, os.environ.get("PADDLE_FN_DIST_TOKEN", ""))
            comm.install_crash_hook()
    _STATE["comm"], _STATE["source"] = comm, source
    atexit.register(shutdown)
    return comm


def shutdown():
    """Leave the job (at exit, or ``destroy_process_group``); a later ``initialize`` starts a new one."""
    comm, _STATE["comm"] = _STATE["comm"], None
    if comm is not None:
        comm.close()


def communicator():
    """The job's communicator; a single-process one when ``initialize`` was not called."""
    return _STATE["comm"] or SingleProcess()


def is_initialized():
    """Whether ``initialize`` / ``init_parallel_env`` has run in this process.

    Example:
        >>> import paddle_fn.distributed as dist
        >>> dist.is_initialized() in (True, False)
        True
    """
    return _STATE["comm"] is not None
