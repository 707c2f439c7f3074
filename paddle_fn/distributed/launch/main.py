"""The launcher: start the script `nproc_per_node` times with Paddle's environment, watch the workers.

Each worker's output goes to ``<log_dir>/workerlog.<rank>``; rank 0's is also shown on the console. When a worker
fails, the others are terminated and the launcher exits with the failing worker's exit code, after showing the
end of its log -- a failed job never hangs on the ranks that wait for the dead one.
"""
import argparse
import os
import signal
import subprocess
import sys
import threading
import time

from paddle_fn.distributed.launch.utils import LISTENER_FD, job_endpoints, job_token, parse_devices, worker_env

_GRACE = 5.0


def _parser():
    p = argparse.ArgumentParser(prog="python -m paddle_fn.distributed.launch",
                                description="Run a training script in several local processes (one job).")
    p.add_argument("--nproc_per_node", type=int, default=None,
                   help="number of processes (default: one per device in --devices, else 1)")
    p.add_argument("--devices", "--gpus", "--selected_gpus", dest="devices", default=None,
                   help="device ids, one per process, e.g. '0,1' (given to each process as FLAGS_selected_gpus)")
    p.add_argument("--log_dir", default="log", help="directory for workerlog.N files (default: log)")
    p.add_argument("--started_port", type=int, default=None, help="first port of the local endpoints")
    p.add_argument("--ips", default="127.0.0.1", help="only 127.0.0.1: this launcher starts local processes")
    p.add_argument("--nnodes", default="1", help="only 1 (one machine)")
    p.add_argument("training_script", help="the script to run")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER, help="its arguments")
    return p


def _echo(stream, log, console):
    for line in iter(stream.readline, b""):
        log.write(line)
        log.flush()
        if console is not None:
            console.write(line)
            console.flush()


def launch(training_script, training_script_args=(), nproc_per_node=None, devices=None, log_dir="log",
           started_port=None):
    """Run `training_script` in `nproc_per_node` processes; the first failing worker's exit code, else 0.

    Example:
        >>> from paddle_fn.distributed.launch import launch
        >>> launch.__name__
        'launch'
    """
    devices = parse_devices(devices, "--devices")
    n = nproc_per_node or (len(devices) if devices else 1)
    if n < 1:
        raise SystemExit(f"launch: --nproc_per_node must be positive, got {n}")
    if devices is not None and len(devices) != n:
        raise SystemExit(f"launch: {n} processes but {len(devices)} devices ({','.join(devices)})")
    os.makedirs(log_dir, exist_ok=True)
    listener, ports = job_endpoints(n, started_port)
    token = job_token()
    print(f"LAUNCH INFO: {n} processes, endpoints {','.join(f'127.0.0.1:{p}' for p in ports)}, "
          f"logs in {log_dir}/workerlog.N", flush=True)
    workers, threads, logs = [], [], []
    for rank in range(n):
        env = dict(os.environ, **worker_env(rank, n, ports, token, devices))
        handed = (listener.fileno(),) if rank == 0 else ()  # rank 0's coordinator listens on the bound socket
        if handed:
            env[LISTENER_FD] = str(listener.fileno())
        log = open(os.path.join(log_dir, f"workerlog.{rank}"), "wb")
        proc = subprocess.Popen([sys.executable, "-u", training_script, *training_script_args], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, pass_fds=handed)
        if handed:
            listener.close()
        t = threading.Thread(target=_echo, args=(proc.stdout, log, sys.stdout.buffer if rank == 0 else None),
                             daemon=True)
        t.start()
        workers.append(proc)
        threads.append(t)
        logs.append(log)
    previous = signal.signal(signal.SIGTERM, _interrupt)  # a killed launcher takes its workers with it
    try:
        code = _watch(workers, log_dir)
    except KeyboardInterrupt:
        _stop(workers)
        code = 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    for t in threads:
        t.join(_GRACE)
    for log in logs:
        log.close()
    return code


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _watch(workers, log_dir):
    while True:
        codes = [w.poll() for w in workers]
        failed = [(r, c) for r, c in enumerate(codes) if c not in (None, 0)]
        if failed:
            rank, code = failed[0]
            _stop(workers)
            path = os.path.join(log_dir, f"workerlog.{rank}")
            time.sleep(0.2)  # let the echo thread write the worker's last lines
            with open(path, "rb") as f:
                tail = f.read()[-4000:].decode(errors="replace")
            how = f"exited with code {code}" if code > 0 else f"was killed by signal {-code} ({_signal_name(-code)})"
            print(f"LAUNCH ERROR: worker {rank} {how}; the other workers were stopped. "
                  f"End of {path}:\n{tail}", file=sys.stderr, flush=True)
            return code if code > 0 else 1
        if all(c == 0 for c in codes):
            return 0
        time.sleep(0.1)


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown signal"


def _stop(workers):
    for w in workers:
        if w.poll() is None:
            w.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + _GRACE
    for w in workers:
        try:
            w.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            w.kill()
            w.wait()


def main(argv=None):
    """Command-line entry: parse Paddle's launch flags and run the job; returns the exit code.

    Example:
        >>> from paddle_fn.distributed.launch import main
        >>> main.__name__
        'main'
    """
    args = _parser().parse_args(argv)
    if args.ips not in ("127.0.0.1", "localhost"):
        raise SystemExit(f"launch: --ips {args.ips}: this launcher starts processes on this machine only; for "
                         "several machines use mpirun (or run the launcher on each machine with Slurm)")
    if str(args.nnodes) != "1":
        raise SystemExit(f"launch: --nnodes {args.nnodes}: one machine only; use mpirun or Slurm for several")
    return launch(args.training_script, args.training_script_args, args.nproc_per_node, args.devices,
                  args.log_dir, args.started_port)
