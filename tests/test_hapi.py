"""paddle.Model, paddle.summary and the callbacks: compiled steps equal the eager loop, Paddle's log and table
formats (recorded from Paddle 3.3.1), callback order, checkpoints, early stopping, save/load."""
import os
import re

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.nn import unique_name


def _batches(n=4, batch=8, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n * batch, 4)).astype("float32")
    y = ((x[:, 0] > 0).astype("int64") + (x[:, 1] > 0)).reshape(-1, 1)
    return [(x[i:i + batch], y[i:i + batch]) for i in range(0, n * batch, batch)]


def _net(batch_norm=False):
    paddle.seed(0)
    layers = [paddle.nn.Linear(4, 16)] + ([paddle.nn.BatchNorm1D(16)] if batch_norm else []) + \
        [paddle.nn.ReLU(), paddle.nn.Linear(16, 3)]
    return paddle.nn.Sequential(*layers)


def _eager_loop(net, opt, batches, epochs, scheduler=None):
    loss_fn = paddle.nn.CrossEntropyLoss()
    losses = []
    for _ in range(epochs):
        for x, y in batches:
            loss = loss_fn(net(paddle.to_tensor(x)), paddle.to_tensor(y))
            loss.backward()
            opt.step()
            opt.clear_grad()
            if scheduler is not None:
                scheduler.step()
            losses.append(float(loss))
    return losses


class _LossRecorder(paddle.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.losses = []

    def on_train_batch_end(self, step, logs=None):
        self.losses.append(logs["loss"][0])


@pytest.mark.parametrize("optimizer, batch_norm, schedule", [("Adam", False, True), ("Momentum", True, False)])
def test_compiled_fit_equals_eager_loop(optimizer, batch_norm, schedule):
    batches = _batches()

    def make():
        net = _net(batch_norm)
        lr = paddle.optimizer.lr.StepDecay(0.05, step_size=2, gamma=0.5) if schedule else 0.05
        return net, getattr(paddle.optimizer, optimizer)(learning_rate=lr, parameters=net.parameters()), lr

    net, opt, lr = make()
    want = _eager_loop(net, opt, batches, 2, lr if schedule else None)
    want_state = {k: v.numpy() for k, v in net.state_dict().items()}
    for jit in (True, False):
        net, opt, _ = make()
        model = paddle.Model(net)
        model.prepare(opt, paddle.nn.CrossEntropyLoss(), jit=jit)
        rec = _LossRecorder()
        model.fit(batches, epochs=2, verbose=0, callbacks=[rec])
        np.testing.assert_allclose(rec.losses, want, rtol=1e-5)
        for k, v in net.state_dict().items():
            np.testing.assert_allclose(v.numpy(), want_state[k], rtol=1e-5, atol=1e-6, err_msg=k)
        if jit:
            assert len(model._compiled[("train", True)]._cache) == 1, "one executable for every step"
            assert set(opt.state_dict()) and all(p.is_leaf for p in net.parameters())


def test_gradient_accumulation_equals_summed_gradients():
    batches = _batches(n=4)
    net = _net()
    opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
    loss_fn = paddle.nn.CrossEntropyLoss()
    for i, (x, y) in enumerate(batches):
        loss_fn(net(paddle.to_tensor(x)), paddle.to_tensor(y)).backward()
        if i % 2 == 1:
            opt.step()
            opt.clear_grad()
    want = [p.numpy() for p in net.parameters()]
    model = paddle.Model(_net())
    model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()), paddle.nn.CrossEntropyLoss())
    model.fit(batches, epochs=1, verbose=0, accumulate_grad_batches=2)
    for p, w in zip(model.parameters(), want):
        np.testing.assert_allclose(p.numpy(), w, rtol=1e-5, atol=1e-7)
    assert set(model._compiled) == {("train", True), ("train", False)} and not model._eager_reason


def test_compiled_accumulation_pattern_gives_the_eager_losses():
    """Steps with and without the update, in any order, compiled: each program adds to the gradients the
    previous one left (or to none after an update), as the eager tape does."""
    pattern = [True, False, True, False, False, True, True, False, True]
    batches = _batches(n=len(pattern), seed=1)
    results = {}
    for jit in (False, True):
        model = paddle.Model(_net())
        model.prepare(paddle.optimizer.Adam(0.05, parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                      jit=jit)
        losses = [float(model.train_batch([x], [y], update=u)[0]) for (x, y), u in zip(batches, pattern)]
        grads = [p.grad.numpy() for p in model.parameters()]
        results[jit] = losses, [p.numpy() for p in model.parameters()], grads
    (want, want_params, want_grads), (got, params, grads) = results[False], results[True]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for p, w in zip(params + grads, want_params + want_grads):
        np.testing.assert_allclose(p, w, rtol=1e-5, atol=1e-6)


def test_fit_reduces_loss_and_evaluate_predict():
    batches = _batches(n=8)
    model = paddle.Model(_net())
    model.prepare(paddle.optimizer.Adam(0.01, parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy(topk=(1, 2)))
    before = model.evaluate(batches, verbose=0)
    model.fit(batches, epochs=15, verbose=0)
    after = model.evaluate(batches, verbose=0)
    assert sorted(after) == ["acc_top1", "acc_top2", "loss"]
    assert after["loss"][0] < 0.5 * before["loss"][0] and after["acc_top1"] > 0.85
    out = model.predict([b[0] for b in batches], verbose=0)
    assert len(out) == 1 and len(out[0]) == 8 and out[0][0].shape == (8, 3)
    stacked = model.predict([b[0] for b in batches], stack_outputs=True, verbose=0)[0]
    np.testing.assert_allclose(stacked, np.vstack(out[0]))
    x = np.vstack([b[0] for b in batches])
    np.testing.assert_allclose(stacked, model.network(paddle.to_tensor(x)).numpy(), rtol=1e-5, atol=1e-6)


def test_untraceable_network_runs_eagerly_with_a_warning():
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.Dropout(0.5), paddle.nn.Linear(8, 3))
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()), paddle.nn.CrossEntropyLoss())
    with pytest.warns(UserWarning, match="train step cannot be compiled.*dropout"):
        model.fit(_batches(), epochs=2, verbose=0)
    assert all(p.grad is None or not isinstance(p.grad, paddle.core.trace.Tracer) for p in net.parameters())
    model.evaluate(_batches(), verbose=0)   # eval mode: dropout is the identity, so this compiles


# Paddle 3.3.1's output for the same calls (timings replaced by a pattern)
PADDLE_LOG_V2 = """The loss value printed in the log is the current step, and the metric is the average value of previous steps.
Epoch 1/2
step 2/4 - loss: L - acc: A - Tms/step
step 4/4 - loss: L - acc: A - Tms/step
Eval begin...
step 2/2 - loss: L - acc: A - Tms/step
Eval samples: 16
Epoch 2/2
step 2/4 - loss: L - acc: A - Tms/step
step 4/4 - loss: L - acc: A - Tms/step
Eval begin...
step 2/2 - loss: L - acc: A - Tms/step
Eval samples: 16
"""


def _normalize(text):
    text = re.sub(r"loss: \d+\.\d{4}(e-\d\d)?", "loss: L", text)
    text = re.sub(r"acc: \d\.\d{4}", "acc: A", text)
    return re.sub(r"\d+(ms|us|s)/step", "Tms/step", text)


def test_progress_log_format(capsys):
    batches = _batches()
    model = paddle.Model(_net())
    model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    model.fit(batches, batches[:2], epochs=2, verbose=2, log_freq=2)
    assert _normalize(capsys.readouterr().out) == PADDLE_LOG_V2
    model.fit(batches, epochs=1, verbose=1, log_freq=2)
    out = capsys.readouterr().out
    lines = out.split("\r")
    assert lines[0] == "The loss value printed in the log is the current step, and the metric is the average value " \
                       "of previous steps.\nEpoch 1/1\n"
    assert re.fullmatch(r"step 2/4 \[==============>\.{15}\] - loss: \d\.\d{4} - acc: \d\.\d{4} - ETA: 0s - "
                        r"\d+(ms|us)/step\x08+", lines[1])
    assert re.fullmatch(r"step 4/4 \[={30}\] - loss: \d\.\d{4} - acc: \d\.\d{4} - \d+(ms|us)/step *\n", lines[2])


def test_callback_order():
    events = []

    class Order(paddle.callbacks.Callback):
        def __getattribute__(self, name):
            if name.startswith("on_"):
                events.append(name)
            return object.__getattribute__(self, name)

    model = paddle.Model(_net())
    model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()), paddle.nn.CrossEntropyLoss())
    model.fit(_batches(n=2), _batches(n=1), epochs=2, eval_freq=2, verbose=0, callbacks=Order())
    batch = ["on_train_batch_begin", "on_train_batch_end"]
    evaluation = ["on_eval_begin", "on_eval_batch_begin", "on_eval_batch_end", "on_eval_end"]
    assert events == (["on_train_begin", "on_epoch_begin"] + batch * 2 + ["on_epoch_end"] + evaluation
                      + ["on_epoch_begin"] + batch * 2 + ["on_epoch_end", "on_train_end"])


def test_early_stopping_and_checkpoints(tmp_path, capsys):
    model = paddle.Model(_net())
    model.prepare(paddle.optimizer.Adam(0.0, parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    stop = paddle.callbacks.EarlyStopping(monitor="acc", patience=2, verbose=1)
    model.fit(_batches(), _batches(n=1), epochs=10, verbose=0, save_dir=str(tmp_path), callbacks=[stop])
    out = capsys.readouterr().out
    assert "Epoch 3: Early stopping." in out and f"Best checkpoint has been saved at {tmp_path}/best_model" in out
    assert stop.monitor_op is np.greater and stop.stopped_epoch == 3
    assert sorted(os.listdir(tmp_path)) == sorted(f"{n}.{e}" for n in ("0", "1", "2", "best_model", "final")
                                                  for e in ("pdparams", "pdopt"))
    assert "save checkpoint at" in out


def test_save_load_round_trip_and_inference_model(tmp_path):
    batches = _batches()
    with unique_name.guard():   # optimizer state is keyed by parameter names: make both networks' names equal
        model = paddle.Model(_net())
    model.prepare(paddle.optimizer.Adam(0.01, parameters=model.parameters()), paddle.nn.CrossEntropyLoss())
    model.fit(batches, epochs=1, verbose=0)
    path = str(tmp_path / "ckpt")
    model.save(path)
    with unique_name.guard():
        other = paddle.Model(_net())
    opt = paddle.optimizer.Adam(0.01, parameters=other.parameters())
    other.prepare(opt, paddle.nn.CrossEntropyLoss())
    other.load(path + ".pdparams")
    for a, b in zip(model.parameters(), other.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert set(opt.state_dict()) == set(model._optimizer.state_dict())
    # training continues identically from the checkpoint
    np.testing.assert_allclose(other.train_batch([batches[0][0]], [batches[0][1]]),
                               model.train_batch([batches[0][0]], [batches[0][1]]), rtol=1e-6)
    with pytest.warns(UserWarning, match="'inputs' was not specified"):
        model.save(str(tmp_path / "infer"), training=False)
    loaded = paddle.jit.load(str(tmp_path / "infer"))
    x = paddle.to_tensor(batches[1][0])
    np.testing.assert_allclose(loaded(x).numpy(), model.predict_batch([x])[0], rtol=1e-5, atol=1e-6)
    with pytest.raises(FileNotFoundError, match="Failed to load parameters"):
        other.load(str(tmp_path / "missing"))
    small = paddle.Model(paddle.nn.Sequential(paddle.nn.Linear(4, 3)))
    with pytest.raises(ValueError, match="receives a shape"):
        small.load(path)
    with pytest.warns(UserWarning, match="Skip loading"):
        small.load(path, skip_mismatch=True)


def test_errors():
    model = paddle.Model(_net())
    with pytest.raises(RuntimeError, match="prepare"):
        model.fit(_batches(), verbose=0)
    with pytest.raises(NotImplementedError, match="mixed precision"):
        model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                      amp_configs={"level": "O1"})
    with pytest.raises(TypeError, match="not sub class of Metric"):
        model.prepare(metrics=[object()])
    with pytest.raises(RuntimeError, match="Saving inference model needs 'inputs'"):
        paddle.Model(_net()).save("/tmp/never", training=False)
    with pytest.raises(TypeError, match="paddle.nn.Layer"):
        paddle.Model(lambda x: x)


# paddle.summary(paddle.vision.models.LeNet(), (1, 1, 28, 28)) under unique_name.guard(), Paddle 3.3.1
PADDLE_LENET_SUMMARY = """\
---------------------------------------------------------------------------
 Layer (type)       Input Shape          Output Shape         Param #    
===========================================================================
   Conv2D-1       [[1, 1, 28, 28]]      [1, 6, 28, 28]          60       
    ReLU-1        [[1, 6, 28, 28]]      [1, 6, 28, 28]           0       
  MaxPool2D-1     [[1, 6, 28, 28]]      [1, 6, 14, 14]           0       
   Conv2D-2       [[1, 6, 14, 14]]     [1, 16, 10, 10]         2,416     
    ReLU-2       [[1, 16, 10, 10]]     [1, 16, 10, 10]           0       
  MaxPool2D-2    [[1, 16, 10, 10]]      [1, 16, 5, 5]            0       
   Linear-1          [[1, 400]]            [1, 120]           48,120     
   Linear-2          [[1, 120]]            [1, 84]            10,164     
   Linear-3          [[1, 84]]             [1, 10]              850      
===========================================================================
Total params: 61,610
Trainable params: 61,610
Non-trainable params: 0
---------------------------------------------------------------------------
Input size (MB): 0.00
Forward/backward pass size (MB): 0.11
Params size (MB): 0.24
Estimated Total Size (MB): 0.35
---------------------------------------------------------------------------

"""

# the A1 MLP: paddle.Model(mnist).summary((1, 28, 28)), the numbers of the manual and of Paddle 3.3.1
PADDLE_MLP_ROWS = """\
   Flatten-1       [[1, 28, 28]]           [1, 784]              0       
   Linear-1          [[1, 784]]           [1, 1024]           803,840    
    ReLU-1          [[1, 1024]]           [1, 1024]              0       
   Linear-2         [[1, 1024]]            [1, 512]           524,800    
    ReLU-2           [[1, 512]]            [1, 512]              0       
   Linear-3          [[1, 512]]            [1, 10]             5,130     
"""


def test_summary_text_equals_paddle(capsys):
    from paddle_fn.vision.models import LeNet
    with unique_name.guard():
        info = paddle.summary(LeNet(), (1, 1, 28, 28))
    assert capsys.readouterr().out == PADDLE_LENET_SUMMARY
    assert info == {"total_params": 61610, "trainable_params": 61610}
    with unique_name.guard():
        mnist = paddle.nn.Sequential(paddle.nn.Flatten(), paddle.nn.Linear(784, 1024), paddle.nn.ReLU(),
                                     paddle.nn.Linear(1024, 512), paddle.nn.ReLU(), paddle.nn.Linear(512, 10))
        info = paddle.Model(mnist).summary((1, 28, 28))
    out = capsys.readouterr().out
    assert PADDLE_MLP_ROWS in out and "Params size (MB): 5.09\nEstimated Total Size (MB): 5.12" in out
    assert info == {"total_params": 1333770, "trainable_params": 1333770}
    # BatchNorm statistics count as non-trainable, as in Paddle (where they are parameters)
    info = paddle.summary(paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.BatchNorm1D(4)), (-1, 3))
    assert info == {"total_params": 32, "trainable_params": 24}
    assert "Non-trainable params: 8" in capsys.readouterr().out
    with pytest.raises(ValueError, match="only the dim of batch_size"):
        paddle.summary(mnist, (None, None, 28))


def test_visualdl_and_lr_scheduler_callbacks(tmp_path):
    import json
    sched = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
    model = paddle.Model(_net())
    model.prepare(paddle.optimizer.SGD(sched, parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    model.fit(_batches(n=3), _batches(n=1), epochs=2, verbose=0,
              callbacks=[paddle.callbacks.VisualDL(str(tmp_path))])
    assert sched.last_epoch == 6       # stepped after every batch by the default LRScheduler callback
    records = [json.loads(line) for line in open(tmp_path / "scalars.jsonl")]
    assert [(r["tag"], r["step"]) for r in records if r["tag"].startswith("train/loss")] == [
        ("train/loss", s) for s in range(1, 7)]
    assert [(r["tag"], r["step"]) for r in records if r["tag"].startswith("eval")] == [
        ("eval/loss", 0), ("eval/acc", 0), ("eval/loss", 1), ("eval/acc", 1)]


def test_fit_on_a_dataset_batches_with_paddle_io():
    class Pairs(paddle.io.Dataset):
        def __init__(self):
            rng = np.random.default_rng(0)
            self.x = rng.normal(size=(20, 4)).astype("float32")
            self.y = (self.x[:, :1] > 0).astype("int64")

        def __getitem__(self, i):
            return self.x[i], self.y[i]

        def __len__(self):
            return 20

    model = paddle.Model(_net())
    model.prepare(paddle.optimizer.Adam(0.01, parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    seen = []

    class Sizes(paddle.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            seen.append(logs["batch_size"])

    model.fit(Pairs(), epochs=1, batch_size=8, verbose=0, callbacks=[Sizes()])
    assert seen == [8, 8, 4]
    model.fit(Pairs(), epochs=1, batch_size=8, drop_last=True, verbose=0, callbacks=[Sizes()])
    assert seen[3:] == [8, 8]
    assert model.evaluate(Pairs(), batch_size=5, verbose=0)["acc"] >= 0.0
    assert model.predict(Pairs(), batch_size=5, stack_outputs=True, verbose=0)[0].shape == (20, 3)
