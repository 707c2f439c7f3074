"""paddle.Model in a two-process job started by paddle_fn.distributed.launch: the network is wrapped in
DataParallel (rank 0's parameters everywhere), each rank trains on its DistributedBatchSampler shard with the
compiled step, the gradients are averaged, and evaluation gathers every rank's outputs for the metrics."""
import os
import subprocess
import sys

JOB = '''
import numpy as np
import paddle_fn as paddle
import paddle_fn.distributed as dist

ACCUMULATE = int(__import__("sys").argv[1])


def make_net(seed):
    paddle.seed(seed)
    return paddle.nn.Sequential(paddle.nn.Linear(4, 16), paddle.nn.ReLU(), paddle.nn.Linear(16, 3))


rng = np.random.default_rng(0)
x = rng.normal(size=(38, 4)).astype("float32")  # 38 samples: the sampler repeats 2 to give both ranks 20
y = ((x[:, :1] > 0).astype("int64") + (x[:, 1:2] > 0))
dataset = paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])
rank = dist.get_rank()

model = paddle.Model(make_net(seed=rank))  # different parameters per rank until DataParallel broadcasts rank 0's
assert isinstance(model._data_parallel, paddle.DataParallel)
model.prepare(paddle.optimizer.Adam(0.05, parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
              paddle.metric.Accuracy())
model.fit(dataset, batch_size=4, epochs=2, shuffle=False, verbose=2, log_freq=5,
          accumulate_grad_batches=ACCUMULATE)
result = model.evaluate(dataset, batch_size=4, verbose=0)
assert set(model._compiled) >= {("train", False), ("update",)} and not model._eager_reason, model._eager_reason

# the same training in one process: each step's global batch is the union of the two ranks' batches
shards = [list(paddle.io.DistributedBatchSampler(dataset, 4, num_replicas=2, rank=r)) for r in range(2)]
net = make_net(seed=0)
opt = paddle.optimizer.Adam(0.05, parameters=net.parameters())
loss_fn = paddle.nn.CrossEntropyLoss()
for _ in range(2):
    for step, (a, b) in enumerate(zip(*shards)):
        # each rank's mean loss, averaged: the gradient DataParallel gives
        loss = (loss_fn(net(paddle.to_tensor(x[a])), paddle.to_tensor(y[a]))
                + loss_fn(net(paddle.to_tensor(x[b])), paddle.to_tensor(y[b]))) / 2
        loss.backward()
        if (step + 1) % ACCUMULATE == 0 or step + 1 == len(shards[0]):
            opt.step()
            opt.clear_grad()
for p, want in zip(model.parameters(), net.parameters()):
    np.testing.assert_allclose(p.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)
    gathered = []
    dist.all_gather(gathered, p)
    np.testing.assert_array_equal(gathered[0].numpy(), gathered[1].numpy())
accuracy = float((net(paddle.to_tensor(x)).numpy().argmax(-1) == y[:, 0]).mean())
assert abs(result["acc"] - accuracy) < 1e-6, (result, accuracy)
print(f"rank {rank} OK acc={result['acc']:.4f}", flush=True)
'''


def test_model_fit_under_launch_is_data_parallel(tmp_path):
    """Accumulating 2 batches per update: the compiled steps without the update add to the local gradients,
    which are averaged across the ranks once, before the update (the same sum Paddle's per-backward averaging
    gives)."""
    script = tmp_path / "job.py"
    script.write_text(JOB)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PADDLE_TRAINER", "PMI_", "OMPI_"))}
    env["PADDLE_FN_DIST_TIMEOUT"] = "120"
    proc = subprocess.run([sys.executable, "-m", "paddle_fn.distributed.launch", "--nproc_per_node", "2",
                           "--log_dir", str(tmp_path / "log"), str(script), "2"], env=env,
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    log1 = (tmp_path / "log" / "workerlog.1").read_text() if (tmp_path / "log" / "workerlog.1").exists() else ""
    assert proc.returncode == 0, proc.stdout + proc.stderr + log1
    assert "rank 0 OK" in proc.stdout and "rank 1 OK" in log1
    assert "Epoch 1/2" in proc.stdout and "step 5/5" in proc.stdout, proc.stdout  # 5 batches of 4 per rank
    assert "Epoch" not in log1, log1  # the progress log is rank 0's only
