"""``paddle.Model``: Paddle's high-level training API over a ``paddle.nn.Layer``.

``prepare(optimizer, loss, metrics)`` then ``fit`` / ``evaluate`` / ``predict`` (or the ``*_batch`` methods),
``save`` / ``load`` and ``summary``. By default each step is compiled: the training step (forward, loss,
``backward()``, the optimizer update and ``clear_grad``) is one IREE executable per input signature, traced from
the same eager code (``paddle.jit``), so it gives the numbers of the eager loop. Parameters, optimizer
accumulators and BatchNorm statistics are written back after each step, so ``network.state_dict()`` and
``optimizer.state_dict()`` are always current. Gradient accumulation (``accumulate_grad_batches > 1``,
``train_batch(..., update=False)``) is compiled too: a step without the update is its own program, which adds
to the gradients on the parameters. ``prepare(..., jit=False)`` runs eagerly; a network that cannot be
traced (a ``Dropout`` drawing from the global RNG in train mode, Python branching on Tensor values) runs eagerly
after a warning that says why.
"""
import inspect
import os
import warnings

import numpy as np

import paddle_fn as paddle
from paddle_fn.hapi.callbacks import EarlyStopping, config_callbacks
from paddle_fn.hapi.model_summary import summary
from paddle_fn.metric import Metric

__all__ = ["Model"]


def _to_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _to_numpy(value):
    return value.numpy() if isinstance(value, paddle.Tensor) else np.asarray(value)


def _forward_arg_names(network):
    """Names of the positional arguments of ``network.forward`` (Paddle names the default InputSpecs after
    them); a forward taking ``*args`` counts as one input."""
    params = [p for p in inspect.signature(network.forward).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [p.name for p in params] or ["input"]


def _check_specs(specs, what):
    specs = _to_list(specs)
    for i, spec in enumerate(specs):
        if not isinstance(spec, paddle.static.InputSpec):
            raise TypeError(f"Model: {what}[{i}] must be a paddle.static.InputSpec, got {type(spec).__name__}")
        if spec.name is None:
            raise ValueError(f"Requires {what}[{i}].name != None, but receive `None` with {spec}.")
    return specs


class Model:
    """A network plus what training needs (optimizer, loss, metrics), with Paddle's high-level loop.

    Args:
        network (paddle.nn.Layer): the network.
        inputs (InputSpec|list of InputSpec, optional): the network's inputs; needed by
            ``save(path, training=False)`` unless the model has already seen data (then their shapes are used).
            Default: None (one input per positional argument of ``network.forward``).
        labels (InputSpec|list of InputSpec, optional): the labels. Default: None.

    A batch from the data (a list such as ``[image, label]``) is split into the first ``len(inputs)`` entries,
    passed to the network, and the rest, passed to the loss after the network's outputs.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> paddle.seed(0)
        >>> net = paddle.nn.Sequential(paddle.nn.Linear(4, 16), paddle.nn.ReLU(), paddle.nn.Linear(16, 3))
        >>> model = paddle.Model(net)
        >>> model.prepare(paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters()),
        ...               paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
        >>> rng = np.random.default_rng(0)
        >>> x = rng.normal(size=(64, 4)).astype("float32")
        >>> y = (x[:, :1] > 0).astype("int64") + (x[:, 1:2] > 0)
        >>> batches = [(x[i:i + 16], y[i:i + 16]) for i in range(0, 64, 16)]
        >>> model.fit(batches, epochs=30, verbose=0)
        >>> result = model.evaluate(batches, verbose=0)
        >>> sorted(result), result["acc"] > 0.9
        (['acc', 'loss'], True)
    """

    def __init__(self, network, inputs=None, labels=None):
        if not isinstance(network, paddle.nn.Layer):
            raise TypeError(f"paddle.Model: network must be a paddle.nn.Layer, got {type(network).__name__}")
        self.mode = "train"
        self.network = network
        self._loss = None
        self._optimizer = None
        self._metrics = []
        self._jit = True
        self._compiled = {}
        self._eager_reason = {}
        # one step function per value of `update`, which decides the program's structure
        self._train_step = {u: (lambda inputs, labels, u=u: self._train_step_fn(inputs, labels, u)) for u in (True, False)}
        self._seen_inputs = None
        self._test_dataloader = None
        self.stop_training = False
        self._user_inputs = inputs is not None
        if inputs is None:
            self._inputs = [paddle.static.InputSpec([None], "float32", name=n) for n in _forward_arg_names(network)]
        else:
            self._inputs = _check_specs(inputs, "inputs")
        self._labels = _check_specs(labels, "labels") if labels is not None else None
        # in a job of several processes (launch, spawn, mpirun), as Paddle's Model: the network is wrapped in
        # DataParallel (every rank starts from rank 0's parameters), each Dataset is sharded by rank
        # (DistributedBatchSampler), gradients are averaged before each update and evaluation gathers the
        # outputs of all ranks for the metrics
        self._nranks = paddle.distributed.ParallelEnv().nranks
        self._data_parallel = None
        if self._nranks > 1:
            paddle.distributed.init_parallel_env()
            self._data_parallel = paddle.DataParallel(network)
        self._eval_seen = 0

    # ----- preparing -------------------------------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None, *, jit=True):
        """Set the optimizer, the loss and the metrics.

        Args:
            optimizer (Optimizer, optional): built over ``model.parameters()``; required by ``fit`` and
                ``train_batch``. Default: None.
            loss (Layer|callable, optional): called as ``loss(*outputs, *labels)``; returns one loss or a list
                (they are summed for the backward pass and logged separately). Default: None.
            metrics (Metric|list of Metric, optional): e.g. ``paddle.metric.Accuracy()``. Default: None.
            amp_configs (str|dict, optional): mixed precision; only None / ``'O0'`` (float32) is supported.
            jit (bool, optional): compile each step (the default) or run eagerly (``jit=False``). A paddle_fn
                extension: in Paddle, ``paddle.jit.to_static`` on the network decides.

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.Model(paddle.nn.Linear(3, 2))
            >>> model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()),
            ...               paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy(topk=(1, 2)))
            >>> model._metrics_name()
            ['loss', 'acc_top1', 'acc_top2']
        """
        if loss is not None and not isinstance(loss, paddle.nn.Layer) and not callable(loss):
            raise TypeError("'loss' must be sub classes of `paddle.nn.Layer` or any callable function.")
        metrics = _to_list(metrics)
        for m in metrics:
            if not isinstance(m, Metric):
                raise TypeError(f"{type(m).__name__} is not sub class of Metric")
        level = amp_configs.get("level", "O1") if isinstance(amp_configs, dict) else amp_configs
        if level not in (None, "O0"):
            raise NotImplementedError(
                f"Model.prepare: mixed precision (amp_configs level {level!r}) is not supported by paddle_fn; "
                "train in float32 (amp_configs=None) or cast the network with network.to(dtype='bfloat16')")
        self._optimizer = optimizer
        self._loss = loss
        self._metrics = metrics
        self._jit = bool(jit)
        self._compiled = {}
        self._eager_reason = {}

    def parameters(self, *args, **kwargs):
        """The network's parameters (``network.parameters()``), for the optimizer.

        Example:
            >>> import paddle_fn as paddle
            >>> [p.shape for p in paddle.Model(paddle.nn.Linear(3, 2)).parameters()]
            [paddle.Size([3, 2]), paddle.Size([2])]
        """
        return self.network.parameters(*args, **kwargs)

    def _metrics_name(self):
        names = ["loss"] if self._loss else []
        for m in self._metrics:
            names.extend(_to_list(m.name()))
        return names

    # ----- one batch -------------------------------------------------------------------------------------------
    def _record_inputs(self, inputs):
        self._seen_inputs = [(list(x.shape), x.dtype) for x in inputs]

    def _losses(self, outputs, labels):
        return _to_list(self._loss(*(_to_list(outputs) + labels)))

    def _train_step_fn(self, inputs, labels, update):
        outputs = self.network(*inputs)
        losses = self._losses(outputs, labels)
        paddle.add_n(losses).backward()
        if update:
            self._apply_update()
        return losses, _to_list(outputs)

    def _apply_update(self):
        self._optimizer.step()
        self.network.clear_gradients()

    def _average_gradients(self):
        """The mean over the ranks of each parameter's gradient, with one all-reduce of all of them (the
        DataParallel hooks cannot run inside a compiled backward, so the step computes local gradients and they
        are averaged here, between the backward and the update program)."""
        params = [p for p in self.network.parameters() if not p.stop_gradient and p.grad is not None]
        if not params:
            return
        flat = paddle.concat([p.grad.reshape([-1]) for p in params])
        paddle.distributed.all_reduce(flat)
        flat = flat / self._nranks
        offset = 0
        for p in params:
            size = int(np.prod(p.shape))
            p.grad = flat[offset:offset + size].reshape(p.shape)
            offset += size

    def _eval_step(self, inputs, labels):
        outputs = self.network(*inputs)
        losses = self._losses(outputs, labels) if self._loss else []
        return losses, _to_list(outputs)

    def _predict_step(self, inputs):
        return _to_list(self.network(*inputs))

    def _run_step(self, key, fn, *args):
        """Run one step compiled (one cached executable per input signature) or, if disabled or untraceable,
        eagerly."""
        if not self._jit or key in self._eager_reason:
            return fn(*args)
        if key not in self._compiled:
            self._compiled[key] = paddle.jit(fn)
        params = self.network.parameters()
        grads = [p.grad for p in params]
        try:
            return self._compiled[key](*args)
        except paddle.ConcretizationError as err:
            # a trace that stopped halfway may have left traced gradients behind
            for p, g in zip(params, grads):
                p.grad = g
            self._eager_reason[key] = str(err)
            warnings.warn(f"paddle.Model: the {key[0]} step cannot be compiled, so it runs eagerly: {err}",
                          stacklevel=3)
            return fn(*args)

    def _update_metrics(self, outputs, labels):
        results = []
        for metric in self._metrics:
            computed = metric.compute(*(outputs + labels))
            results.append(metric.update(*[_to_numpy(c) for c in _to_list(computed)]))
        return results

    def train_batch(self, inputs, labels=None, update=True):
        """Train on one batch: forward, loss, backward and (``update=True``) the optimizer step.

        Args:
            inputs (Tensor|ndarray|list): the network's inputs.
            labels (Tensor|ndarray|list, optional): the labels. Default: None.
            update (bool, optional): apply the optimizer; False accumulates the gradients. Default: True.

        Returns:
            list of ndarray: each loss; with metrics, ``(losses, metric values)``.

        Example:
            >>> import numpy as np
            >>> import paddle_fn as paddle
            >>> paddle.seed(0)
            >>> model = paddle.Model(paddle.nn.Linear(2, 1))
            >>> model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()), paddle.nn.MSELoss())
            >>> x, y = np.ones((4, 2), "float32"), np.zeros((4, 1), "float32")
            >>> first = model.train_batch([x], [y])[0]
            >>> second = model.train_batch([x], [y])[0]
            >>> bool(second < first)
            True
        """
        if self._optimizer is None:
            raise RuntimeError("model not ready, please call `model.prepare()` first (train_batch needs an optimizer)")
        if self._loss is None:
            raise RuntimeError("Model.train_batch needs a loss: pass one to model.prepare(optimizer, loss)")
        self.network.train()
        self.mode = "train"
        inputs = [paddle.to_tensor(x) for x in _to_list(inputs)]
        labels = [paddle.to_tensor(y) for y in _to_list(labels)]
        self._record_inputs(inputs)
        update = bool(update)
        if self._data_parallel is None:
            losses, outputs = self._run_step(("train", update), self._train_step[update], inputs, labels)
        else:
            losses, outputs = self._run_step(("train", False), self._train_step[False], inputs, labels)
            if update:
                self._average_gradients()
                self._run_step(("update",), self._apply_update)
        metrics = self._update_metrics(outputs, labels)
        losses = [_to_numpy(loss) for loss in losses]
        return (losses, metrics) if metrics else losses

    def eval_batch(self, inputs, labels=None):
        """Evaluate one batch (eval mode, no gradients).

        Args:
            inputs (Tensor|ndarray|list): the network's inputs.
            labels (Tensor|ndarray|list, optional): the labels. Default: None.

        Returns:
            list: the losses; with metrics ``(losses, metric values)``; without a loss, the metric values.

        Example:
            >>> import numpy as np
            >>> import paddle_fn as paddle
            >>> model = paddle.Model(paddle.nn.Linear(2, 1, bias_attr=False))
            >>> model.network.weight.set_value(paddle.ones([2, 1]))
            >>> model.prepare(loss=paddle.nn.MSELoss())
            >>> model.eval_batch([np.ones((3, 2), "float32")], [np.zeros((3, 1), "float32")])
            [array(4., dtype=float32)]
        """
        self.network.eval()
        self.mode = "eval"
        inputs = [paddle.to_tensor(x) for x in _to_list(inputs)]
        labels = [paddle.to_tensor(y) for y in _to_list(labels)]
        self._record_inputs(inputs)
        with paddle.no_grad():
            losses, outputs = self._run_step(("eval",), self._eval_step, inputs, labels)
            if self._data_parallel is not None:
                outputs, labels = self._gather_eval_batch(outputs, labels)
            metrics = self._update_metrics(outputs, labels)
        losses = [_to_numpy(loss) for loss in losses]
        if self._loss and metrics:
            return losses, metrics
        return losses if self._loss else metrics

    def _gather_eval_batch(self, outputs, labels):
        """Every rank's outputs and labels, concatenated, for the metrics (as Paddle's Model); the samples that
        DistributedBatchSampler repeated to give every rank the same count are cut from the last batch."""
        gathered = []
        for t in outputs + labels:
            parts = []
            paddle.distributed.all_gather(parts, t)
            gathered.append(paddle.concat(parts))
        total = len(getattr(self._test_dataloader, "dataset", ()))
        if total:
            keep = min(gathered[0].shape[0], total - self._eval_seen)
            self._eval_seen += keep
            gathered = [g[:keep] for g in gathered]
        return gathered[:len(outputs)], gathered[len(outputs):]

    def predict_batch(self, inputs):
        """The network's outputs on one batch (eval mode, no gradients), as numpy arrays.

        Args:
            inputs (Tensor|ndarray|list): the network's inputs.

        Returns:
            list of ndarray: one entry per output.

        Example:
            >>> import numpy as np
            >>> import paddle_fn as paddle
            >>> model = paddle.Model(paddle.nn.Linear(2, 3))
            >>> [o.shape for o in model.predict_batch([np.ones((5, 2), "float32")])]
            [(5, 3)]
        """
        self.network.eval()
        self.mode = "test"
        inputs = [paddle.to_tensor(x) for x in _to_list(inputs)]
        self._record_inputs(inputs)
        with paddle.no_grad():
            outputs = self._run_step(("predict",), self._predict_step, inputs)
        return [_to_numpy(o) for o in outputs]

    # ----- loops -----------------------------------------------------------------------------------------------
    def _loader(self, data, batch_size, shuffle, drop_last, num_workers):
        """A Dataset is batched by paddle.io.DataLoader (its order as in Paddle's Model: DistributedBatchSampler);
        anything else is already an iterable of batches (a DataLoader, a list of batches, a generator)."""
        io = paddle.io
        if not isinstance(data, io.Dataset):
            return data
        if not isinstance(data, io.IterableDataset):
            sampler = io.DistributedBatchSampler(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last)
            return io.DataLoader(data, batch_sampler=sampler, num_workers=num_workers, return_list=True)
        return io.DataLoader(data, batch_size=batch_size, drop_last=drop_last, num_workers=num_workers,
                             return_list=True)

    @staticmethod
    def _len(loader):
        try:
            return len(loader)
        except TypeError:
            return None

    def _run_one_epoch(self, loader, callbacks, mode):
        logs, outputs = {}, []
        n_inputs = len(self._inputs)
        for step, batch in enumerate(loader):
            data, _ = paddle.tree_flatten(batch)
            if not data:
                raise ValueError(f"Model.{mode}: batch {step} is empty")
            shape = data[0].shape
            batch_size = shape[0] if len(shape) else 1
            callbacks.on_batch_begin(mode, step, logs)
            if mode == "predict":
                outputs.append(self.predict_batch(data[:n_inputs]))
            else:
                if mode == "train":
                    update = (step + 1) % self._accumulate == 0 or step + 1 == self._len(loader)
                    outs = self.train_batch(data[:n_inputs], data[n_inputs:], update)
                else:
                    outs = self.eval_batch(data[:n_inputs], data[n_inputs:])
                values = []
                if self._loss:
                    values.append([float(loss) for loss in (outs[0] if self._metrics else outs)])
                for metric in self._metrics:
                    values.extend(_to_list(metric.accumulate()))
                logs.update(zip(self._metrics_name(), values))
            logs["step"] = step
            logs["batch_size"] = batch_size * self._nranks
            callbacks.on_batch_end(mode, step, logs)
            if self.num_iters is not None:
                self.num_iters -= 1
                if self.num_iters <= 0:
                    self.stop_training = True
                    break
        for metric in self._metrics:
            metric.reset()
        self._eval_seen = 0
        return (logs, outputs) if mode == "predict" else logs

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1, log_freq=10, save_dir=None,
            save_freq=1, verbose=2, drop_last=False, shuffle=True, num_workers=0, callbacks=None,
            accumulate_grad_batches=1, num_iters=None):
        """Train for ``epochs`` epochs, evaluating on ``eval_data`` every ``eval_freq`` epochs.

        Args:
            train_data (Dataset|DataLoader|iterable): a ``paddle.io.Dataset`` (batched here) or any iterable of
                batches.
            eval_data (Dataset|DataLoader|iterable, optional): evaluation data. Default: None.
            batch_size (int|list, optional): batch size for Datasets; ``[train, eval]`` sets both. Default: 1.
            epochs (int, optional): Default: 1.
            eval_freq (int, optional): evaluate after epochs 0, eval_freq, ... Default: 1.
            log_freq (int, optional): print every this many steps. Default: 10.
            save_dir (str, optional): save checkpoints here (``<epoch>`` and ``final``). Default: None.
            save_freq (int, optional): checkpoint every this many epochs. Default: 1.
            verbose (int, optional): 0 silent, 1 progress bar, 2 one line per log. Default: 2.
            drop_last (bool, optional): drop the last incomplete batch of a Dataset. Default: False.
            shuffle (bool, optional): shuffle a training Dataset. Default: True.
            num_workers (int, optional): DataLoader workers for Datasets. Default: 0.
            callbacks (Callback|list, optional): extra callbacks. Default: None.
            accumulate_grad_batches (int, optional): apply the optimizer every this many batches. Default: 1.
            num_iters (int, optional): stop after this many training steps. Default: None.

        Example:
            >>> import numpy as np
            >>> import paddle_fn as paddle
            >>> paddle.seed(0)
            >>> model = paddle.Model(paddle.nn.Linear(2, 1))
            >>> model.prepare(paddle.optimizer.SGD(0.1, parameters=model.parameters()), paddle.nn.MSELoss())
            >>> data = [(np.ones((4, 2), "float32"), np.full((4, 1), 3.0, "float32"))] * 8
            >>> model.fit(data, epochs=2, verbose=0)
            >>> round(float(model.predict_batch([np.ones((1, 2), "float32")])[0][0, 0]), 4)
            3.0
        """
        if train_data is None:
            raise ValueError("train_data must be given!")
        if self._optimizer is None or self._loss is None:
            raise RuntimeError("model not ready: call model.prepare(optimizer, loss, ...) before fit")
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 2 or not all(isinstance(b, int) for b in batch_size):
                raise ValueError("batch_size length error, expected train_batch_size and eval_batch_size.")
            train_bs, eval_bs = batch_size
        else:
            train_bs = eval_bs = batch_size
        if not isinstance(accumulate_grad_batches, int) or accumulate_grad_batches < 1:
            raise ValueError(f"accumulate_grad_batches must be an int >= 1, got {accumulate_grad_batches!r}")
        train_loader = self._loader(train_data, train_bs, shuffle, drop_last, num_workers)
        eval_loader = (self._loader(eval_data, eval_bs, False, False, num_workers)
                       if eval_data is not None else None)
        self._test_dataloader = eval_loader
        self._accumulate = accumulate_grad_batches
        steps = self._len(train_loader)
        self.num_iters = num_iters
        if num_iters is not None:
            if not isinstance(num_iters, int) or num_iters <= 0:
                raise ValueError(f"num_iters must be greater than 0, got {num_iters!r}")
            if steps is not None:
                epochs = num_iters // steps + 1
                steps = min(num_iters, steps)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps, log_freq=log_freq,
                                save_freq=save_freq, save_dir=save_dir, verbose=verbose,
                                metrics=self._metrics_name())
        if any(isinstance(c, EarlyStopping) for c in cbks) and eval_loader is None:
            warnings.warn("EarlyStopping needs validation data.")
        self.stop_training = False
        logs = {}
        cbks.on_begin("train")
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, "train")
            cbks.on_epoch_end(epoch, logs)
            if eval_loader is not None and epoch % eval_freq == 0:
                cbks.on_begin("eval", {"steps": self._len(eval_loader), "metrics": self._metrics_name()})
                eval_logs = self._run_one_epoch(eval_loader, cbks, "eval")
                cbks.on_end("eval", eval_logs)
            if self.stop_training:
                break
        cbks.on_end("train", logs)
        self._test_dataloader = None

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0, callbacks=None,
                 num_iters=None):
        """Evaluate on ``eval_data``; returns ``{'loss': [value], <metric name>: value, ...}``.

        Args:
            eval_data (Dataset|DataLoader|iterable): the data.
            batch_size (int, optional): batch size for a Dataset. Default: 1.
            log_freq (int, optional): print every this many steps. Default: 10.
            verbose (int, optional): 0 silent, 1 progress bar, 2 lines. Default: 2.
            num_workers (int, optional): DataLoader workers. Default: 0.
            callbacks (Callback|list, optional): extra callbacks. Default: None.
            num_iters (int, optional): evaluate only this many batches. Default: None.

        Example:
            >>> import numpy as np
            >>> import paddle_fn as paddle
            >>> model = paddle.Model(paddle.nn.Linear(2, 1, bias_attr=False))
            >>> model.network.weight.set_value(paddle.ones([2, 1]))
            >>> model.prepare(loss=paddle.nn.MSELoss())
            >>> model.evaluate([(np.ones((3, 2), "float32"), np.zeros((3, 1), "float32"))], verbose=0)
            {'loss': [4.0]}
        """
        loader = self._loader(eval_data, batch_size, False, False, num_workers)
        self._test_dataloader = loader
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name())
        steps = self._len(loader)
        self.num_iters = num_iters
        if num_iters is not None:
            if not isinstance(num_iters, int) or num_iters <= 0:
                raise ValueError(f"num_iters must be greater than 0, got {num_iters!r}")
            steps = min(num_iters, steps) if steps is not None else None
        cbks.on_begin("eval", {"steps": steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(loader, cbks, "eval")
        cbks.on_end("eval", logs)
        self._test_dataloader = None
        return {k: logs[k] for k in self._metrics_name() if k in logs}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1, callbacks=None):
        """The network's outputs over ``test_data``: a list with one entry per output, each a list of per-batch
        numpy arrays, or (``stack_outputs=True``) one array stacked over all batches.

        Args:
            test_data (Dataset|DataLoader|iterable): batches of inputs (a batch's first ``len(inputs)``
                entries are used).
            batch_size (int, optional): batch size for a Dataset. Default: 1.
            num_workers (int, optional): DataLoader workers. Default: 0.
            stack_outputs (bool, optional): stack each output over the batches. Default: False.
            verbose (int, optional): 0 silent, 1 progress bar, 2 lines. Default: 1.
            callbacks (Callback|list, optional): extra callbacks. Default: None.

        Example:
            >>> import numpy as np
            >>> import paddle_fn as paddle
            >>> model = paddle.Model(paddle.nn.Linear(2, 3))
            >>> data = [np.ones((4, 2), "float32"), np.ones((2, 2), "float32")]
            >>> out = model.predict(data, verbose=0)
            >>> len(out), [b.shape for b in out[0]]
            (1, [(4, 3), (2, 3)])
            >>> model.predict(data, stack_outputs=True, verbose=0)[0].shape
            (6, 3)
        """
        loader = self._loader(test_data, batch_size, False, False, num_workers)
        self._test_dataloader = loader
        cbks = config_callbacks(callbacks, model=self, verbose=verbose)
        self.num_iters = None
        cbks.on_begin("predict", {"steps": self._len(loader)})
        logs, outputs = self._run_one_epoch(loader, cbks, "predict")
        outputs = [list(per_output) for per_output in zip(*outputs)]
        if stack_outputs:
            outputs = [np.vstack(per_output) for per_output in outputs]
        self._test_dataloader = None
        cbks.on_end("predict", logs)
        return outputs

    # ----- saving ----------------------------------------------------------------------------------------------
    def save(self, path, training=True):
        """Save for training (``path.pdparams`` with ``paddle.save(network.state_dict())`` and ``path.pdopt``
        with the optimizer's state, when it has any: SGD with a constant learning rate has none) or, with ``training=False``, an inference model with ``paddle.jit.save``
        (``path.pdmodel`` / ``.pdiparams``; the input shapes come from ``inputs`` or the last batch seen).

        Args:
            path (str): the path prefix, e.g. ``'checkpoint/epoch_3'``.
            training (bool, optional): training checkpoint (True) or inference model (False). Default: True.

        Example:
            >>> import os, tempfile
            >>> import paddle_fn as paddle
            >>> model = paddle.Model(paddle.nn.Linear(2, 1), inputs=[paddle.static.InputSpec([None, 2], "float32", "x")])
            >>> model.prepare(paddle.optimizer.Adam(parameters=model.parameters()), paddle.nn.MSELoss())
            >>> _ = model.train_batch([paddle.ones([4, 2])], [paddle.zeros([4, 1])])   # Adam's moments now exist
            >>> d = tempfile.mkdtemp()
            >>> model.save(os.path.join(d, "ckpt"))
            >>> model.save(os.path.join(d, "infer"), training=False)
            >>> sorted(os.listdir(d))
            ['ckpt.pdopt', 'ckpt.pdparams', 'infer.pdiparams', 'infer.pdiparams.info', 'infer.pdmodel']
        """
        if paddle.distributed.get_rank() != 0:  # the ranks hold the same parameters: rank 0 writes them
            return
        if not training:
            self._save_inference_model(path)
            return
        paddle.save(self.network.state_dict(), path + ".pdparams")
        if self._optimizer is not None:
            state = self._optimizer.state_dict()
            if state:
                paddle.save(state, path + ".pdopt")

    def _save_inference_model(self, path):
        specs = self._inputs
        if not self._user_inputs:
            if self._seen_inputs is None:
                raise RuntimeError(
                    "Saving inference model needs 'inputs' or running before saving. Please specify 'inputs' in "
                    "Model initialization or input training data and perform a training for shape derivation.")
            specs = [paddle.static.InputSpec(shape, dtype, name=spec.name)
                     for (shape, dtype), spec in zip(self._seen_inputs, self._inputs)]
            warnings.warn("'inputs' was not specified when Model initialization, so the input shape to be saved will "
                          f"be the shape derived from the user's actual inputs. The input shape to be saved is "
                          f"{[s.shape for s in specs]}. For saving correct input shapes, please provide 'inputs' "
                          "for Model initialization.")
        was_training = self.network.training
        self.network.eval()
        try:
            paddle.jit.save(self.network, path, input_spec=specs)
        finally:
            if was_training:
                self.network.train()

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Load ``path.pdparams`` into the network and, unless ``reset_optimizer``, ``path.pdopt`` into the
        optimizer (when both exist).

        Args:
            path (str): the prefix given to ``save`` (a ``.pdparams`` / ``.pdopt`` suffix is removed).
            skip_mismatch (bool, optional): skip (with a warning) parameters missing from the file or of another
                shape instead of raising; the optimizer state is then not loaded. Default: False.
            reset_optimizer (bool, optional): leave the optimizer's state as it is. Default: False.

        Example:
            >>> import os, tempfile
            >>> import paddle_fn as paddle
            >>> a, b = paddle.Model(paddle.nn.Linear(2, 1)), paddle.Model(paddle.nn.Linear(2, 1))
            >>> path = os.path.join(tempfile.mkdtemp(), "ckpt")
            >>> a.save(path)
            >>> b.load(path)
            >>> bool((a.network.weight == b.network.weight).all())
            True
        """
        base, ext = os.path.splitext(path)
        if ext in (".pdparams", ".pdopt", ".pdmodel"):
            path = base
        elif ext:
            raise ValueError(f"Model.load: unknown postfix {ext!r} of {path!r}; give the prefix used by save")
        if not os.path.exists(path + ".pdparams"):
            raise FileNotFoundError(f"Failed to load parameters, please check path: {path}.pdparams does not exist")
        param_state = paddle.load(path + ".pdparams")
        matched = []
        for key, param in self.network.state_dict().items():
            state = param_state.get(key)
            if state is None:
                err = f"{key} is not found in the providing file."
            elif list(state.shape) != list(param.shape):
                err = f"{key} receives a shape {list(state.shape)}, but the expected shape is {list(param.shape)}."
            else:
                matched.append((param, state))
                continue
            if not skip_mismatch:
                raise ValueError(err)
            warnings.warn(f"Skip loading for {key}. {err}")
            reset_optimizer = True
        for param, state in matched:
            param.set_value(state)
        if self._optimizer is not None and not reset_optimizer and os.path.exists(path + ".pdopt"):
            self._optimizer.set_state_dict(paddle.load(path + ".pdopt"))
        # compiled steps refer to the optimizer's state Tensors; new state means tracing again
        self._compiled = {}

    def summary(self, input_size=None, dtype=None):
        """Print the network's layer table (see ``paddle.summary``) for ``input_size`` (or the model's
        ``inputs``) and return ``{'total_params': ..., 'trainable_params': ...}``.

        Args:
            input_size (tuple|InputSpec|list, optional): the input shape(s), batch dimension included or not.
            dtype (str, optional): the input dtype. Default: float32.

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.Model(paddle.nn.Sequential(paddle.nn.Linear(4, 3)))
            >>> info = model.summary((2, 4))  # doctest: +ELLIPSIS
            ---...
            Total params: 15
            ...
            >>> info
            {'total_params': 15, 'trainable_params': 15}
        """
        if input_size is None:
            if not self._user_inputs:
                raise ValueError("'input_size' or 'self._input' must be set")
            input_size = self._inputs
        return summary(self.network, input_size, dtypes=dtype)
