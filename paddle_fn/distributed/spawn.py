"""``paddle.distributed.spawn``: run a function in several new processes that form one job.

The processes are started with multiprocessing's "spawn" method by default (a fresh interpreter: forking a
process that already runs IREE threads is unsafe) and get the environment of Paddle's launcher, so
``init_parallel_env()`` inside the function joins them over TCP. When one process fails, the others are
terminated and ``join`` raises with the failing process's traceback.
"""
import multiprocessing
import os
import pickle
import time
import traceback

from paddle_fn.distributed.launch.utils import LISTENER_FD, job_endpoints, job_token, parse_devices, worker_env

_OPTIONS = ("start_method", "gpus", "xpus", "selected_devices", "selected_gpus", "started_port", "ips", "backend",
            "print_config")


def _worker(func, args, env, error_queue, return_queue, listener):
    os.environ.update(env)
    if listener is not None:  # rank 0: the coordinator's socket, bound by spawn (see job_endpoints)
        os.environ[LISTENER_FD] = str(listener.detach())
    try:
        return_queue.put(func(*args))
    except KeyboardInterrupt:
        pass
    except BaseException:
        error_queue.put(traceback.format_exc())
        raise SystemExit(1)


class MultiprocessContext:
    """The started processes. ``join`` waits for them, and raises when one of them failed (the others are
    terminated first). ``return_values`` holds each process's return value (rank order) once all succeeded.

    Example:
        >>> import paddle_fn.distributed as dist
        >>> dist.spawn.__name__
        'spawn'
    """

    def __init__(self, processes, error_queues, return_queues):
        self.processes, self.error_queues, self.return_queues = processes, error_queues, return_queues
        self.return_values = None

    def join(self, timeout=None):
        """Wait up to `timeout` seconds (None: until done). True when every process finished successfully."""
        deadline = None if timeout is None else time.monotonic() + timeout
        results = [None] * len(self.processes)
        while True:
            for rank, q in enumerate(self.return_queues):  # drained while waiting: a full pipe blocks the child
                if not q.empty():
                    results[rank] = q.get()
            for rank, p in enumerate(self.processes):
                if p.exitcode not in (None, 0):
                    self._terminate_all()
                    error = self.error_queues[rank].get() if not self.error_queues[rank].empty() else None
                    detail = error or (f"exit code {p.exitcode}: it failed outside the function (while starting, "
                                       "or killed); see its output above")
                    raise RuntimeError(f"\n\n----------------------------------------------\nProcess {rank} "
                                       f"terminated with the following error:\n----------------------------------"
                                       f"------------\n\n{detail}")
            if all(p.exitcode == 0 for p in self.processes):
                self.return_values = [q.get() if not q.empty() else r for q, r in zip(self.return_queues, results)]
                return True
            if deadline is not None and time.monotonic() > deadline:
                return False
            for p in self.processes:
                p.join(0.05)

    def _terminate_all(self):
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        for p in self.processes:
            p.join(5)
            if p.is_alive():
                p.kill()


def spawn(func, args=(), nprocs=-1, join=True, daemon=False, **options):
    """Start `nprocs` processes running ``func(*args)``; ``init_parallel_env()`` inside joins them into one job.

    Args:
        func: a module-level function (it is pickled into the new processes).
        args (tuple): arguments for `func`.
        nprocs (int): number of processes; -1 means one per listed device (`selected_devices`) or per CPU core.
        join (bool): wait for the processes (True) or return at once.
        daemon (bool): daemonic processes.
        **options: ``start_method`` (``'spawn'``, the default; ``'forkserver'``; ``'fork'`` is unsafe once IREE
            runs threads in this process), ``gpus`` / ``xpus`` / ``selected_devices`` / ``selected_gpus``
            (``'4,5'``: the device id each process sees as ``FLAGS_selected_gpus``), ``started_port`` (first port
            of the local endpoints),
            ``ips`` (``'127.0.0.1'`` only: one machine), ``backend`` (``'auto'``, ``'gloo'``, ``'tcp'``),
            ``print_config`` (bool).

    Returns:
        MultiprocessContext (joined when `join`).

    Example:
        >>> import paddle_fn.distributed as dist
        >>> sorted(dist.spawn.__code__.co_varnames[:5])
        ['args', 'daemon', 'func', 'join', 'nprocs']
    """
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise ValueError(f"spawn: unsupported option(s) {unknown}; supported: {list(_OPTIONS)}")
    device_keys = [k for k in ("gpus", "xpus", "selected_devices", "selected_gpus") if options.get(k) is not None]
    devices = parse_devices(options[device_keys[0]], f"spawn({device_keys[0]}=...)") if device_keys else None
    if options.get("ips", "127.0.0.1") not in ("127.0.0.1", "localhost"):
        raise NotImplementedError(f"spawn(ips={options['ips']!r}): spawn starts processes on this machine only; "
                                  "for several machines run the script under mpirun or launch on each host")
    if options.get("backend", "auto") not in ("auto", "gloo", "tcp"):
        raise NotImplementedError(f"spawn(backend={options['backend']!r}): processes communicate over TCP "
                                  "('auto', 'gloo' or 'tcp')")
    if nprocs == -1:
        nprocs = len(devices) if devices else (os.cpu_count() or 1)
    if nprocs < 1:
        raise ValueError(f"spawn: nprocs must be a positive number of processes (or -1), got {nprocs}")
    if devices is not None and len(devices) != nprocs:
        raise ValueError(f"spawn: {nprocs} processes but {len(devices)} selected devices {devices}")
    start_method = options.get("start_method") or "spawn"
    if start_method not in ("spawn", "forkserver", "fork"):
        raise ValueError(f"spawn: start_method must be 'spawn', 'forkserver' or 'fork', got {start_method!r}")
    if start_method != "fork":
        try:
            pickle.dumps((func, args))
        except Exception as exc:
            raise TypeError(f"spawn: func and args are sent to new processes, so they must be picklable (func a "
                            f"module-level function, not a lambda or a nested function): {exc}") from None
    listener, ports = job_endpoints(nprocs, options.get("started_port"))
    token = job_token()
    if options.get("print_config"):
        print(f"spawn: {nprocs} processes, endpoints {['127.0.0.1:%d' % p for p in ports]}")
    ctx = multiprocessing.get_context(start_method)
    processes, errors, returns = [], [], []
    for rank in range(nprocs):
        eq, rq = ctx.SimpleQueue(), ctx.SimpleQueue()
        p = ctx.Process(target=_worker, args=(func, args, worker_env(rank, nprocs, ports, token, devices), eq, rq,
                                              listener if rank == 0 else None), daemon=daemon)
        p.start()
        if rank == 0:
            listener.close()  # the process holds it now
        processes.append(p)
        errors.append(eq)
        returns.append(rq)
    context = MultiprocessContext(processes, errors, returns)
    if join:
        context.join()
    return context
