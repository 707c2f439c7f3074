"""paddle.distributed: world-size-1 identities, the TCP communicator (two ranks as threads), and real
two-process jobs under mpirun, launch and spawn (tests/mpi_worker_dist.py)."""
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import paddle_fn as paddle
import paddle_fn.distributed as dist
from paddle_fn.distributed.comm import AVG, MAX, SUM, CollectiveTimeout, DistributedError, reduce_arrays
from paddle_fn.distributed.env import _detect
from paddle_fn.distributed.launch.utils import free_ports
from paddle_fn.distributed.tcp import TCPCommunicator

ROOT = Path(__file__).resolve().parents[1]
WORKER = str(ROOT / "tests" / "mpi_worker_dist.py")
MPIRUN = Path(sys.executable).with_name("mpirun")
# make install installs the distributed extra (mpi4py, mpich); CI must run the mpirun tests, never skip them.
if os.environ.get("CI") and not MPIRUN.exists():
    raise ImportError(f"{MPIRUN} is missing: install paddle_fn with the distributed extra (make install)")


# ------------------------------------------------------------------------------------------ one process


def test_world_size_one_collectives_are_identities():
    group = dist.init_parallel_env()
    assert (dist.get_rank(), dist.get_world_size(), group.nranks) == (0, 1, 1)
    x = paddle.to_tensor([1.0, -2.0])
    for op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.AVG):
        assert dist.all_reduce(x, op=op).is_completed()
        np.testing.assert_array_equal(x.numpy(), [1.0, -2.0])
    out = []
    dist.all_gather(out, x)
    assert len(out) == 1 and out[0].dtype == paddle.float32
    dist.broadcast(x, src=0)
    dist.reduce(x, dst=0)
    y = paddle.zeros([2])
    dist.scatter(y, [paddle.to_tensor([4.0, 5.0])], src=0)
    np.testing.assert_array_equal(y.numpy(), [4.0, 5.0])
    dist.barrier()
    assert [dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.MIN, dist.ReduceOp.PROD] == [0, 1, 2, 3]


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="src=3 is not a rank"):
        dist.broadcast(paddle.to_tensor([1.0]), src=3)
    with pytest.raises(ValueError, match="one tensor per rank"):
        dist.scatter(paddle.zeros([2]), [], src=0)
    with pytest.raises(TypeError, match="AVG needs a floating point"):
        dist.all_reduce(paddle.to_tensor([1, 2]), op=dist.ReduceOp.AVG)
    with pytest.raises(NotImplementedError, match="only the group of all"):
        dist.new_group([0, 1])
    with pytest.raises(ValueError, match="unsupported option"):
        dist.spawn(print, nprocs=2, gpu_ids="0")
    with pytest.raises(ValueError, match="must be empty or hold one tensor per rank"):
        dist.all_gather([paddle.zeros([2]), paddle.zeros([2])], paddle.zeros([2]))
    with pytest.raises(ValueError, match=r"tensor_list\[0\] has shape \[3\]"):
        dist.all_gather([paddle.zeros([3])], paddle.zeros([2]))
    with pytest.raises(TypeError, match="must be picklable"):
        dist.spawn(lambda: None, nprocs=2)
    with pytest.raises(ValueError, match="start_method must be"):
        dist.spawn(print, nprocs=2, start_method="thread")
    group = dist.init_parallel_env()   # Paddle's spawn example passes group.process_group to DataParallel
    assert isinstance(paddle.DataParallel(paddle.nn.Linear(1, 1), group=group.process_group), paddle.DataParallel)
    with pytest.raises(ValueError, match="single process"):
        dist.send(paddle.to_tensor([1.0]), dst=0)
    with pytest.raises(TypeError, match="traced value"):
        paddle.jit(lambda t: dist.all_reduce(t))(paddle.to_tensor([1.0]))


def test_initialize_arguments():
    comm = dist.initialize()
    assert dist.initialize() is comm and (comm.rank, comm.size, comm.backend) == (0, 1, "single")
    with pytest.raises(RuntimeError, match="already initialized as rank 0 of 1"):
        dist.initialize(num_processes=2, process_id=1)
    dist.destroy_process_group()
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="give both num_processes and process_id"):
        dist.initialize(num_processes=2)
    with pytest.raises(ValueError, match="rank 2 is not in"):
        dist.initialize(num_processes=2, process_id=2)
    with pytest.raises(ValueError, match="needs a coordinator address"):
        dist.initialize(num_processes=2, process_id=0)
    with pytest.raises(ValueError, match="must look like 'host:port'"):
        dist.initialize("localhost", num_processes=2, process_id=0)
    assert dist.initialize(num_processes=1, process_id=0).backend == "single"


def test_reduce_arrays_matches_numpy():
    a = [np.array([1.0, 5.0], np.float32), np.array([3.0, 2.0], np.float32)]
    np.testing.assert_array_equal(reduce_arrays(a, SUM), [4.0, 7.0])
    np.testing.assert_array_equal(reduce_arrays(a, MAX), [3.0, 5.0])
    np.testing.assert_array_equal(reduce_arrays(a, AVG), [2.0, 3.5])


def test_environment_detection():
    assert _detect({}) == ("single process", 0, 1, None)
    paddle_env = {"PADDLE_TRAINER_ID": "1", "PADDLE_TRAINERS_NUM": "2",
                  "PADDLE_TRAINER_ENDPOINTS": "10.0.0.1:6170,10.0.0.2:6170"}
    assert _detect(paddle_env) == ("paddle launcher", 1, 2, "10.0.0.1:6170")
    assert _detect({"PMI_RANK": "0", "PMI_SIZE": "2"})[0] == "mpirun"
    assert _detect({"OMPI_COMM_WORLD_RANK": "0"})[0] == "mpirun"
    slurm = {"SLURM_PROCID": "3", "SLURM_NTASKS": "4", "MASTER_ADDR": "node1", "MASTER_PORT": "29500"}
    assert _detect(slurm) == ("slurm", 3, 4, "node1:29500")


def test_data_parallel_single_process_is_the_layer():
    paddle.seed(0)
    layer = paddle.nn.Linear(3, 2)
    dp = paddle.DataParallel(layer)
    x = paddle.randn([4, 3])
    np.testing.assert_array_equal(dp(x).numpy(), layer(x).numpy())
    dp(x).sum().backward()
    np.testing.assert_allclose(layer.weight.grad.numpy(), np.repeat(x.numpy().sum(0)[:, None], 2, 1), rtol=1e-6)
    assert list(dp.state_dict()) == ["weight", "bias"]
    assert [n for n, _ in dp.named_parameters()] == ["_layers.weight", "_layers.bias"]
    assert dp.scale_loss(x) is x
    with pytest.raises(NotImplementedError, match="strategy"):
        paddle.DataParallel(layer, strategy=object())
    with pytest.raises(TypeError, match="wraps a paddle.nn.Layer, got function"):
        paddle.DataParallel(lambda x: x)


def test_fleet_collective_is_data_parallel():
    from paddle_fn.distributed import fleet
    with pytest.raises(NotImplementedError, match="parameter-server"):
        fleet.init()
    strategy = fleet.DistributedStrategy()
    strategy.fuse_grad_size_in_MB, strategy.find_unused_parameters = 4, True
    fleet.init(is_collective=True, strategy=strategy)
    model = fleet.distributed_model(paddle.nn.Linear(2, 1))
    assert isinstance(model, paddle.DataParallel)
    assert (model.comm_buffer_size, model.last_comm_buffer_size, model.find_unused_parameters) == (4, 1.0, True)
    opt = paddle.optimizer.SGD(parameters=model.parameters())
    assert fleet.distributed_optimizer(opt) is opt
    with pytest.raises(AttributeError, match="no field 'fuse_grad_size'"):
        strategy.fuse_grad_size = 1
    strategy.amp = True
    with pytest.raises(NotImplementedError, match=r"\['amp'\] not supported"):
        fleet.init(is_collective=True, strategy=strategy)
    hybrid = fleet.DistributedStrategy()
    hybrid.hybrid_configs = {"dp_degree": 1, "mp_degree": 2}
    with pytest.raises(NotImplementedError, match="only data parallelism"):
        fleet.init(is_collective=True, strategy=hybrid)


# ------------------------------------------------------------------------------------ TCP, ranks as threads


def _run_ranks(n, body, timeout=5.0):
    """Run body(comm) for ranks 0..n-1 in threads; returns [(result or exception)]."""
    port = free_ports(1)[0]
    results = [None] * n

    def run(rank):
        comm = None
        try:
            comm = TCPCommunicator(rank, n, "127.0.0.1", port, timeout)
            results[rank] = body(comm)
        except Exception as exc:  # collected: the test checks which rank saw what
            results[rank] = exc
        finally:
            if comm is not None:
                comm.close()
    threads = [threading.Thread(target=run, args=(r,)) for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


def test_tcp_collectives_three_ranks():
    def body(c):
        r = c.rank
        s = c.all_reduce(np.array([r, 1.0], np.float32), SUM)
        g = c.all_gather(np.array([r], np.int64))
        b = c.broadcast(np.array([r * 10.0]), src=2)
        red = c.reduce(np.array([r + 1.0]), dst=1, op=MAX)
        sc = c.scatter([np.array([i * 2.0]) for i in range(3)] if r == 0 else None, 0, np.zeros(1))
        obj = c.all_gather_object({"r": r})
        c.barrier()
        if r == 0:
            c.send(np.array([5.0, 6.0]), dst=2)
        got = c.recv(np.zeros(2), src=0) if r == 2 else None
        return s, [int(x[0]) for x in g], b, red, sc, obj, got
    out = _run_ranks(3, body)
    for r, res in enumerate(out):
        assert not isinstance(res, Exception), res
        s, g, b, red, sc, obj, got = res
        np.testing.assert_array_equal(s, [3.0, 3.0])
        assert g == [0, 1, 2] and obj == [{"r": 0}, {"r": 1}, {"r": 2}]
        np.testing.assert_array_equal(b, [20.0])
        np.testing.assert_array_equal(red, [3.0] if r == 1 else [r + 1.0])
        np.testing.assert_array_equal(sc, [2.0 * r])
    np.testing.assert_array_equal(out[2][6], [5.0, 6.0])


def test_tcp_hub_refuses_strangers_and_wrong_tokens():
    port = free_ports(1)[0]
    result = {}

    def rank0():
        try:
            result[0] = TCPCommunicator(0, 2, "127.0.0.1", port, 2.0, token="secret")
        except Exception as exc:
            result[0] = exc
    t = threading.Thread(target=rank0)
    t.start()
    time.sleep(0.2)
    with socket.create_connection(("127.0.0.1", port)) as stranger:  # garbage is dropped, not unpickled
        stranger.sendall(b"\x00" * 8 + b"junk")
    with pytest.raises(DistributedError, match="could not prove it holds this job's secret, so nothing was sent"):
        TCPCommunicator(1, 2, "127.0.0.1", port, 2.0, token="wrong")
    with pytest.raises(DistributedError, match=r"refused this process: rank 2 is not in \[0, 2\)"):
        TCPCommunicator(2, 2, "127.0.0.1", port, 2.0, token="secret")
    good = TCPCommunicator(1, 2, "127.0.0.1", port, 2.0, token="secret")
    with pytest.raises(DistributedError, match="refused this process: rank 1 is already in the job"):
        TCPCommunicator(1, 2, "127.0.0.1", port, 2.0, token="secret")
    t.join(10)
    assert isinstance(result[0], TCPCommunicator) and (result[0].rank, good.rank) == (0, 1)
    good.close()
    result[0].close()


def test_tcp_timeout_names_the_missing_rank():
    gate = threading.Event()

    def body(c):
        try:
            if c.rank == 1:
                gate.wait(10)  # never reaches the collective while rank 0 waits
                return None
            return c.all_reduce(np.ones(2, np.float32))
        finally:
            if c.rank == 0:
                gate.set()
    out = _run_ranks(2, body, timeout=0.5)
    assert isinstance(out[0], CollectiveTimeout)
    assert "rank(s) [1] did not reach it" in str(out[0]) and "all_reduce(float32[2], op=SUM)" in str(out[0])


def test_tcp_mismatched_collectives_are_reported():
    def body(c):
        return c.all_reduce(np.ones(2, np.float32)) if c.rank == 0 else c.broadcast(np.ones(3), src=0)
    out = _run_ranks(2, body)
    for res in out:
        assert isinstance(res, DistributedError) and "differs across ranks" in str(res)
        assert "rank 1: broadcast(float64[3], src=0)" in str(res)


def test_tcp_crashed_rank_stops_the_others():
    def body(c):
        if c.rank == 1:
            c._sock.close()  # dies without leaving the job
            return None
        return c.all_reduce(np.ones(1, np.float32))
    out = _run_ranks(2, body, timeout=20.0)
    assert isinstance(out[0], DistributedError) and "rank 1 crashed" in str(out[0])


# ------------------------------------------------------------------------------ real processes (CI runs these)


def _env(timeout="60"):
    """A clean environment; a long timeout where a slow (loaded) machine must not fail, short where it must."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PADDLE_TRAINER", "PMI_", "OMPI_"))}
    env.update(PADDLE_FN_DIST_TIMEOUT=timeout)
    return env


@pytest.mark.skipif(not MPIRUN.exists(), reason="mpirun not installed (pip install 'paddle_fn[distributed]')")
def test_mpirun_two_processes_collectives_and_data_parallel():
    proc = subprocess.run([str(MPIRUN), "-n", "2", sys.executable, WORKER, "all"], env=_env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "rank 0 OK" in proc.stdout and "rank 1 OK" in proc.stdout, proc.stdout


@pytest.mark.skipif(not MPIRUN.exists(), reason="mpirun not installed (pip install 'paddle_fn[distributed]')")
def test_mpirun_timeout_names_the_missing_rank():
    proc = subprocess.run([str(MPIRUN), "-n", "2", sys.executable, WORKER, "timeout"], env=_env("1.5"),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "all_reduce(float32[1], op=SUM) (collective #2) timed out after 1.5 s on rank 0: rank(s) [1] did not " \
           "reach it" in proc.stderr, proc.stderr


def test_launch_two_processes(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "paddle_fn.distributed.launch", "--nproc_per_node", "2",
                           "--log_dir", str(tmp_path / "log"), WORKER, "collectives"], env=_env(),
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "rank 0 OK" in proc.stdout
    assert (tmp_path / "log" / "workerlog.1").read_text().strip().endswith("rank 1 OK")


def test_launch_crashing_worker_stops_the_job(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "paddle_fn.distributed.launch", "--nproc_per_node", "2",
                           "--log_dir", str(tmp_path / "log"), WORKER, "crash"], env=_env(),
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 1
    assert "LAUNCH ERROR: worker" in proc.stderr and "the other workers were stopped" in proc.stderr
    assert "ValueError: rank 1 fails on purpose" in (tmp_path / "log" / "workerlog.1").read_text()
    assert "rank 1 crashed (with ValueError: rank 1 fails on purpose" in (tmp_path / "log" / "workerlog.0").read_text()


def test_spawn_two_processes(tmp_path):
    script = tmp_path / "spawn_job.py"
    script.write_text(
        "import paddle_fn as paddle\nimport paddle_fn.distributed as dist\n\n"
        "def train(scale):\n"
        "    dist.init_parallel_env()\n"
        "    x = paddle.to_tensor([float(dist.get_rank() + 1)]) * scale\n"
        "    dist.all_reduce(x)\n"
        "    return dist.get_rank(), float(x.item())\n\n"
        "if __name__ == '__main__':\n"
        "    ctx = dist.spawn(train, args=(10.0,), nprocs=2)\n"
        "    print(ctx.return_values)\n")
    proc = subprocess.run([sys.executable, str(script)], env=_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "[(0, 30.0), (1, 30.0)]"
