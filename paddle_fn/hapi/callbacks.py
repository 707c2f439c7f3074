"""Callbacks of ``paddle.Model.fit`` / ``evaluate`` / ``predict`` (``paddle.callbacks``): the progress log
(`ProgBarLogger`), checkpoints (`ModelCheckpoint`), learning-rate stepping (`LRScheduler`), `EarlyStopping`,
`ReduceLROnPlateau`, scalar logging to a local file (`VisualDL`), and the `Callback` base class for your own.

The order of calls is Paddle's: ``on_train_begin``; per epoch ``on_epoch_begin``, per batch
``on_train_batch_begin`` / ``on_train_batch_end``, ``on_epoch_end``, then (every ``eval_freq`` epochs)
``on_eval_begin``, ``on_eval_batch_begin`` / ``on_eval_batch_end``, ``on_eval_end``; finally ``on_train_end``.
"""
import json
import numbers
import os
import time
import warnings

import numpy as np

import paddle_fn as paddle
from paddle_fn.hapi.progressbar import ProgressBar

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "LRScheduler", "EarlyStopping", "VisualDL",
           "ReduceLROnPlateau"]

_MODES = ("train", "eval", "predict")


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None, log_freq=2, verbose=2,
                     save_freq=1, save_dir=None, metrics=None, mode="train"):
    """The CallbackList a Model run uses: the user's callbacks plus, unless given, a ProgBarLogger first (when
    ``verbose``), a ModelCheckpoint and an LRScheduler last, as Paddle does."""
    cbks = list(callbacks) if isinstance(callbacks, (list, tuple)) else ([callbacks] if callbacks else [])
    for c in cbks:
        if not isinstance(c, Callback):
            raise TypeError(f"callbacks must be paddle.callbacks.Callback instances, got {type(c).__name__}")
    if verbose and not any(isinstance(c, ProgBarLogger) for c in cbks):
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if not any(isinstance(c, ModelCheckpoint) for c in cbks):
        cbks = cbks + [ModelCheckpoint(save_freq, save_dir)]
    for c in cbks:
        if isinstance(c, EarlyStopping):
            c.save_dir = save_dir
    if not any(isinstance(c, LRScheduler) for c in cbks):
        cbks = cbks + [LRScheduler()]
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    cbk_list.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps, "verbose": verbose,
                         "metrics": (metrics or []) if mode != "test" else []})
    return cbk_list


class CallbackList:
    """Dispatches each event to every callback, in order."""

    def __init__(self, callbacks):
        self.callbacks = list(callbacks)
        self.params = {}
        self.model = None

    def append(self, callback):
        self.callbacks.append(callback)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params):
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name, *args):
        for c in self.callbacks:
            getattr(c, name)(*args)

    @staticmethod
    def _check_mode(mode):
        if mode not in _MODES:
            raise ValueError(f"callback mode must be one of {_MODES}, got {mode!r}")

    def on_begin(self, mode, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch=None, logs=None):
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch=None, logs=None):
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode, step=None, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode, step=None, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_end", step, logs)


class Callback:
    """Base class of the callbacks: override the events you need. ``self.model`` is the running
    ``paddle.Model`` and ``self.params`` holds ``batch_size``, ``epochs``, ``steps``, ``verbose`` and ``metrics``
    (the names in the logs). ``logs`` is a dict: ``loss`` (a list, one value per loss), each metric's value,
    ``step`` and ``batch_size``.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> class Recorder(paddle.callbacks.Callback):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.events = []
        ...     def on_epoch_begin(self, epoch, logs=None):
        ...         self.events.append(f"epoch {epoch}")
        ...     def on_train_batch_end(self, step, logs=None):
        ...         self.events.append(f"batch {step} loss {logs['loss'][0] > 0}")
        >>> paddle.seed(0)
        >>> model = paddle.Model(paddle.nn.Linear(2, 1))
        >>> model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()), paddle.nn.MSELoss())
        >>> data = [(np.ones((4, 2), "float32"), np.zeros((4, 1), "float32"))] * 2
        >>> rec = Recorder()
        >>> model.fit(data, epochs=2, verbose=0, callbacks=[rec])
        >>> rec.events
        ['epoch 0', 'batch 0 loss True', 'batch 1 loss True', 'epoch 1', 'batch 0 loss True', 'batch 1 loss True']
    """

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        """Receive the run's parameters (``batch_size``, ``epochs``, ``steps``, ``verbose``, ``metrics``)."""
        self.params = params

    def set_model(self, model):
        """Receive the ``paddle.Model`` being run."""
        self.model = model

    def on_train_begin(self, logs=None):
        """Called once before training."""

    def on_train_end(self, logs=None):
        """Called once after training, with the last epoch's logs."""

    def on_eval_begin(self, logs=None):
        """Called before an evaluation; ``logs`` holds ``steps`` and ``metrics``."""

    def on_eval_end(self, logs=None):
        """Called after an evaluation with its logs (loss and metrics over the evaluation data)."""

    def on_predict_begin(self, logs=None):
        """Called before prediction; ``logs`` holds ``steps``."""

    def on_predict_end(self, logs=None):
        """Called after prediction."""

    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of each training epoch (``epoch`` counts from 0)."""

    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of each training epoch with the last batch's logs."""

    def on_train_batch_begin(self, step, logs=None):
        """Called before each training batch."""

    def on_train_batch_end(self, step, logs=None):
        """Called after each training batch with its logs."""

    def on_eval_batch_begin(self, step, logs=None):
        """Called before each evaluation batch."""

    def on_eval_batch_end(self, step, logs=None):
        """Called after each evaluation batch with its logs."""

    def on_predict_batch_begin(self, step, logs=None):
        """Called before each prediction batch."""

    def on_predict_batch_end(self, step, logs=None):
        """Called after each prediction batch."""


class ProgBarLogger(Callback):
    """Prints Paddle's training log: ``Epoch 1/5``, then every ``log_freq`` steps a progress line such as
    ``step 10/938 [==>...] - loss: 0.5213 - acc: 0.8400 - ETA: 7s - 5ms/step`` (verbose=1, redrawn in place) or
    ``step 10/938 - loss: 0.5213 - acc: 0.8400 - 5ms/step`` (verbose=2, one line each), ``Eval begin...`` and
    ``Eval samples: N`` around evaluations. The loss shown is the current step's; metrics are averages over the
    epoch so far. verbose=3 adds reader cost, batch cost and samples per second.

    Args:
        log_freq (int, optional): print every this many steps. Default: 1.
        verbose (int, optional): 0 silent, 1 progress bar, 2 one line per log, 3 with timings. Default: 2.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> paddle.seed(0)
        >>> model = paddle.Model(paddle.nn.Linear(2, 1))
        >>> model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()), paddle.nn.MSELoss())
        >>> data = [(np.ones((4, 2), "float32"), np.zeros((4, 1), "float32"))] * 4
        >>> model.fit(data, epochs=1, callbacks=[paddle.callbacks.ProgBarLogger(log_freq=2, verbose=2)])
        ... # doctest: +ELLIPSIS
        The loss value printed in the log is the current step, and the metric is the average value of previous steps.
        Epoch 1/1
        step 2/4 - loss: ... - ...s/step
        step 4/4 - loss: ... - ...s/step
    """

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        self.epochs = None
        self.steps = None
        self.progbar = None
        self.verbose = verbose
        self.log_freq = log_freq

    def _is_print(self):
        return bool(self.verbose) and paddle.distributed.get_rank() == 0  # one log per job, as Paddle

    @staticmethod
    def _new_timer():
        return {"data_time": 0.0, "batch_time": 0.0, "count": 0, "samples": 0, "batch_start_time": time.time()}

    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]
        self.train_metrics = self.params["metrics"]
        self._train_timer = self._new_timer()
        if self._is_print():
            print("The loss value printed in the log is the current step, and the metric is the average value of "
                  "previous steps.")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params["steps"]
        self.epoch = epoch
        self.train_step = 0
        if self.epochs and self._is_print():
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self.train_progbar = ProgressBar(num=self.steps, verbose=self.verbose)
        self._train_timer["batch_start_time"] = time.time()

    def _updates(self, logs, mode):
        values = [(k, logs[k]) for k in getattr(self, f"{mode}_metrics") if k in logs]
        timer = getattr(self, f"_{mode}_timer")
        if self.verbose == 3:
            count = timer["count"] or 1.0
            spent = timer["data_time"] + timer["batch_time"]
            values += [("avg_reader_cost", f"{timer['data_time'] / count:.5f} sec"),
                       ("avg_batch_cost", f"{timer['batch_time'] / count:.5f} sec"),
                       ("ips", f"{(timer['samples'] or 1.0) / spent if spent else 0.0:.5f} samples/sec")]
            timer.update(count=0, samples=0, data_time=0.0, batch_time=0.0)
        getattr(self, f"{mode}_progbar").update(getattr(self, f"{mode}_step"), values)

    def _batch_begin(self, mode):
        timer = getattr(self, f"_{mode}_timer")
        timer["batch_data_end_time"] = time.time()
        timer["data_time"] += timer["batch_data_end_time"] - timer["batch_start_time"]

    def _batch_end(self, mode, logs, total_steps):
        logs = logs or {}
        timer = getattr(self, f"_{mode}_timer")
        step = getattr(self, f"{mode}_step") + 1
        setattr(self, f"{mode}_step", step)
        timer["batch_time"] += time.time() - timer["batch_data_end_time"]
        timer["count"] += 1
        timer["samples"] += logs.get("batch_size", 1)
        # the last step is printed by the epoch's (or evaluation's) end, with the final averages
        if self._is_print() and step % self.log_freq == 0 and (total_steps is None or step < total_steps):
            self._updates(logs, mode)
        timer["batch_start_time"] = time.time()

    def on_train_batch_begin(self, step, logs=None):
        self._batch_begin("train")

    def on_train_batch_end(self, step, logs=None):
        self._batch_end("train", logs, self.steps)

    def on_epoch_end(self, epoch, logs=None):
        if self._is_print() and self.steps is not None:
            self._updates(logs or {}, "train")

    def _run_begin(self, mode, logs, title):
        """Reset an evaluation's or prediction's (`mode` 'eval' or 'test') counters, timer and progress bar,
        under Paddle's attribute names (``eval_steps``, ``test_progbar``, ...)."""
        logs = logs or {}
        steps = logs.get("steps")
        setattr(self, f"{mode}_steps", steps)
        setattr(self, f"{mode}_metrics", logs.get("metrics", []))
        setattr(self, f"{mode}_step", 0)
        setattr(self, f"_{mode}_timer", self._new_timer())
        setattr(self, f"{mode}_progbar", ProgressBar(num=steps, verbose=self.verbose))
        if self._is_print():
            print(f"{title} begin...")

    def on_eval_begin(self, logs=None):
        self.evaled_samples = 0
        self._run_begin("eval", logs, "Eval")

    def on_eval_batch_begin(self, step, logs=None):
        self._batch_begin("eval")

    def on_eval_batch_end(self, step, logs=None):
        self.evaled_samples += (logs or {}).get("batch_size", 1)
        self._batch_end("eval", logs, self.eval_steps)

    def on_eval_end(self, logs=None):
        if self._is_print() and self.eval_steps is not None:
            self._updates(logs or {}, "eval")
            print(f"Eval samples: {self.evaled_samples}")

    def on_predict_begin(self, logs=None):
        self.tested_samples = 0
        self._run_begin("test", logs, "Predict")

    def on_predict_batch_begin(self, step, logs=None):
        self._batch_begin("test")

    def on_predict_batch_end(self, step, logs=None):
        self.tested_samples += (logs or {}).get("batch_size", 1)
        self._batch_end("test", logs, self.test_steps)

    def on_predict_end(self, logs=None):
        if self._is_print():
            if self.test_step % self.log_freq != 0 or self.verbose == 1:
                self._updates(logs or {}, "test")
            print(f"Predict samples: {self.tested_samples}")


class ModelCheckpoint(Callback):
    """Saves the model (``Model.save(path)``: ``.pdparams`` and ``.pdopt``) to ``save_dir/<epoch>`` every
    ``save_freq`` epochs and to ``save_dir/final`` after training, printing ``save checkpoint at <path>``.
    ``Model.fit(save_dir=...)`` adds one for you.

    Args:
        save_freq (int, optional): save every this many epochs (epochs 0, save_freq, ...). Default: 1.
        save_dir (str, optional): the folder; None saves nothing. Default: None.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> model = paddle.Model(paddle.nn.Linear(2, 1))
        >>> model.prepare(paddle.optimizer.Adam(0.1, parameters=model.parameters()), paddle.nn.MSELoss())
        >>> data = [(np.ones((4, 2), "float32"), np.zeros((4, 1), "float32"))]
        >>> d = tempfile.mkdtemp()
        >>> model.fit(data, epochs=2, verbose=0, callbacks=[paddle.callbacks.ModelCheckpoint(1, d)])
        ... # doctest: +ELLIPSIS
        save checkpoint at .../0
        save checkpoint at .../1
        save checkpoint at .../final
        >>> sorted(os.listdir(d))
        ['0.pdopt', '0.pdparams', '1.pdopt', '1.pdparams', 'final.pdopt', 'final.pdparams']
    """

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq = save_freq
        self.save_dir = save_dir

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def _is_save(self):
        return self.model is not None and bool(self.save_dir)

    def on_epoch_end(self, epoch, logs=None):
        if self._is_save() and self.epoch % self.save_freq == 0:
            path = f"{self.save_dir}/{epoch}"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)

    def on_train_end(self, logs=None):
        if self._is_save():
            path = f"{self.save_dir}/final"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)


def _scheduler_of(model):
    """The LR scheduler the model's optimizer uses, or None."""
    opt = getattr(model, "_optimizer", None) if model is not None else None
    lr = getattr(opt, "_learning_rate", None)
    return lr if isinstance(lr, paddle.optimizer.lr.LRScheduler) else None


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate scheduler after every batch (``by_step``, the default) or every epoch
    (``by_epoch``). ``Model.fit`` adds a per-step one unless you pass your own.

    Args:
        by_step (bool, optional): call ``scheduler.step()`` after each training batch. Default: True.
        by_epoch (bool, optional): call it after each epoch instead. Default: False.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> model = paddle.Model(paddle.nn.Linear(2, 1))
        >>> sched = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5)
        >>> model.prepare(paddle.optimizer.SGD(sched, parameters=model.parameters()), paddle.nn.MSELoss())
        >>> data = [(np.ones((4, 2), "float32"), np.zeros((4, 1), "float32"))] * 3
        >>> model.fit(data, epochs=2, verbose=0, callbacks=[paddle.callbacks.LRScheduler(by_step=False, by_epoch=True)])
        >>> sched.last_epoch, sched()
        (2, 0.025)
    """

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("by_step option is mutually exclusive with by_epoch")
        self.by_step = by_step
        self.by_epoch = by_epoch

    def on_epoch_end(self, epoch, logs=None):
        scheduler = _scheduler_of(self.model)
        if self.by_epoch and scheduler is not None:
            scheduler.step()

    def on_train_batch_end(self, step, logs=None):
        scheduler = _scheduler_of(self.model)
        if self.by_step and scheduler is not None:
            scheduler.step()


def _monitored(logs, monitor):
    """The monitored quantity from an evaluation's logs (the first loss when it is a list), or None."""
    value = logs.get(monitor) if logs else None
    if isinstance(value, (list, tuple)):
        value = value[0]
    return value if isinstance(value, numbers.Number) else None


def _compare(mode, monitor, name):
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"{name} mode {mode} is unknown, fallback to auto mode.")
        mode = "auto"
    return np.greater if mode == "max" or (mode == "auto" and "acc" in monitor) else np.less


class EarlyStopping(Callback):
    """Stops training when the monitored evaluation quantity stops improving (it needs ``eval_data``).

    Args:
        monitor (str, optional): ``'loss'`` or a metric name such as ``'acc'``. Default: ``'loss'``.
        mode (str, optional): ``'min'``, ``'max'`` or ``'auto'`` (max for names containing 'acc'). Default: auto.
        patience (int, optional): evaluations without improvement before stopping. Default: 0.
        verbose (int, optional): 1 prints when it stops. Default: 1.
        min_delta (float, optional): the smallest change that counts as an improvement. Default: 0.
        baseline (float, optional): a value the quantity must beat. Default: None.
        save_best_model (bool, optional): save the best model to ``save_dir/best_model`` (the ``save_dir`` of
            ``fit``). Default: True.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> model = paddle.Model(paddle.nn.Linear(2, 1))
        >>> model.prepare(paddle.optimizer.SGD(0.0, parameters=model.parameters()), paddle.nn.MSELoss())
        >>> data = [(np.ones((4, 2), "float32"), np.zeros((4, 1), "float32"))]
        >>> stop = paddle.callbacks.EarlyStopping(monitor="loss", patience=1)
        >>> model.fit(data, data, epochs=10, verbose=0, callbacks=[stop])   # lr 0: the loss never improves
        Epoch 2: Early stopping.
        >>> stop.stopped_epoch
        2
    """

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0, baseline=None,
                 save_best_model=True):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.wait_epoch = 0
        self.best_weights = None
        self.stopped_epoch = 0
        self.save_best_model = save_best_model
        self.save_dir = None
        self.monitor_op = _compare(mode, monitor, "EarlyStopping")
        # an improvement must beat the best by min_delta in the good direction
        self.min_delta = abs(min_delta) if self.monitor_op is np.greater else -abs(min_delta)

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op is np.less else -np.inf
            self.best_weights = None

    def on_eval_end(self, logs=None):
        if not logs or self.monitor not in logs:
            warnings.warn("Monitor of EarlyStopping should be loss or metric name.")
            return
        current = _monitored(logs, self.monitor)
        if current is None:
            return
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and self.save_dir is not None:
                self.model.save(os.path.join(self.save_dir, "best_model"))
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and self.save_dir is not None:
                    best = os.path.abspath(os.path.join(self.save_dir, "best_model"))
                    print(f"Best checkpoint has been saved at {best}")
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by ``factor`` when the monitored evaluation quantity has not improved for
    ``patience`` evaluations (the optimizer must have a float learning rate, not a scheduler).

    Args:
        monitor (str, optional): ``'loss'`` or a metric name. Default: ``'loss'``.
        factor (float, optional): the multiplier, < 1. Default: 0.1.
        patience (int, optional): evaluations without improvement before reducing. Default: 10.
        verbose (int, optional): 1 prints each reduction. Default: 1.
        mode (str, optional): ``'min'``, ``'max'`` or ``'auto'``. Default: ``'auto'``.
        min_delta (float, optional): the smallest change that counts as an improvement. Default: 1e-4.
        cooldown (int, optional): evaluations to wait after a reduction. Default: 0.
        min_lr (float, optional): the learning rate never goes below this. Default: 0.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> model = paddle.Model(paddle.nn.Linear(2, 1))
        >>> opt = paddle.optimizer.SGD(0.0, parameters=model.parameters())
        >>> opt.set_lr(1.0)
        >>> model.prepare(opt, paddle.nn.MSELoss())
        >>> data = [(np.ones((4, 2), "float32"), np.ones((4, 1), "float32") * 1e3)]
        >>> cb = paddle.callbacks.ReduceLROnPlateau(patience=0, factor=0.5, verbose=0)
        >>> cb.set_model(model); cb.on_train_begin()
        >>> for loss in (3.0, 3.0, 3.0):
        ...     cb.on_eval_end({"loss": [loss]})
        >>> opt.get_lr()
        0.25
    """

    def __init__(self, monitor="loss", factor=0.1, patience=10, verbose=1, mode="auto", min_delta=1e-4, cooldown=0,
                 min_lr=0):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.monitor = monitor
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0
        self.epoch = 0
        self.mode = mode
        self.monitor_op = _compare(mode, monitor, "Learning rate reduction")
        self.best = np.inf if self.monitor_op is np.less else -np.inf

    def on_train_begin(self, logs=None):
        self.best = np.inf if self.monitor_op is np.less else -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def _improved(self, current):
        if self.monitor_op is np.less:
            return current < self.best - self.min_delta
        return current > self.best + self.min_delta

    def on_eval_end(self, logs=None):
        if not logs or self.monitor not in logs:
            warnings.warn("Monitor of ReduceLROnPlateau should be loss or metric name.")
            return
        opt = self.model._optimizer
        if isinstance(getattr(opt, "_learning_rate", None), paddle.optimizer.lr.LRScheduler):
            warnings.warn("ReduceLROnPlateau: the optimizer's learning rate is a scheduler; nothing is changed")
            return
        current = _monitored(logs, self.monitor)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = opt.get_lr()
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    opt.set_lr(new_lr)
                    if self.verbose > 0:
                        print(f"Epoch {self.epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
        self.epoch += 1


class VisualDL(Callback):
    """Logs the training loss and metrics (every batch, tag ``train/<name>``, step = the global step) and the
    evaluation results (tag ``eval/<name>``, step = the epoch) as scalars to a local file,
    ``<log_dir>/scalars.jsonl``: one JSON object ``{"tag", "step", "value"}`` per line. (Paddle's VisualDL writes
    the VisualDL record format through the ``visualdl`` package; this keeps the same tags and steps in a plain
    file that any tool can read.)

    Args:
        log_dir (str): the folder of the log file (created when needed).

    Example:
        >>> import json, os, tempfile
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> model = paddle.Model(paddle.nn.Linear(2, 1))
        >>> model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()), paddle.nn.MSELoss())
        >>> data = [(np.ones((4, 2), "float32"), np.zeros((4, 1), "float32"))] * 2
        >>> d = tempfile.mkdtemp()
        >>> model.fit(data, data, epochs=1, verbose=0, callbacks=[paddle.callbacks.VisualDL(d)])
        >>> [(r["tag"], r["step"]) for r in map(json.loads, open(os.path.join(d, "scalars.jsonl")))]
        [('train/loss', 1), ('train/loss', 2), ('eval/loss', 0)]
    """

    def __init__(self, log_dir):
        super().__init__()
        self.log_dir = log_dir
        self.epochs = None
        self.steps = None
        self.epoch = 0
        self._file = None

    def _write(self, tag, step, value):
        if paddle.distributed.get_rank() != 0:  # one log per job, as Paddle
            return
        if self._file is None:
            os.makedirs(self.log_dir, exist_ok=True)
            self._file = open(os.path.join(self.log_dir, "scalars.jsonl"), "a", encoding="utf-8")
        self._file.write(json.dumps({"tag": tag, "step": int(step), "value": float(value)}) + "\n")
        self._file.flush()

    def _close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]
        self.train_metrics = self.params["metrics"]
        self._is_fit = True
        self.train_step = 0

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params["steps"]
        self.epoch = epoch

    def _updates(self, logs, mode):
        step = self.train_step if mode == "train" else self.epoch
        for k in getattr(self, f"{mode}_metrics"):
            value = _monitored(logs, k)
            if value is not None:
                self._write(f"{mode}/{k}", step, value)

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        self._updates(logs or {}, "train")

    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self.eval_steps = logs.get("steps")
        self.eval_metrics = logs.get("metrics", [])
        self.eval_step = 0
        self.evaled_samples = 0

    def on_train_end(self, logs=None):
        self._close()

    def on_eval_end(self, logs=None):
        self._updates(logs or {}, "eval")
        if not getattr(self, "_is_fit", False):
            self._close()
