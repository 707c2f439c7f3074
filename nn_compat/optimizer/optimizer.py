"""``paddle.optimizer.Optimizer``: the stateful base class of Paddle's optimizers.

An optimizer holds a list of Parameters (or of parameter groups), the learning rate (a float or an
``LRScheduler``) and, per parameter, the accumulators of its algorithm (Adam's moments, Momentum's velocity).
``step()`` reads each parameter's ``.grad`` (filled by ``loss.backward()``), and delegates the arithmetic to the
pure kernels of ``paddle_fn.nn_compat.optimizer.functional`` (one formula in one place): gradient clipping, weight
decay, then the optimizer's own update. The new values are written back by rebinding the Parameter handles
(``paddle.assign(new, output=param)``), under ``paddle.no_grad()`` so that the tape records nothing, so every holder of a parameter
(its Layer, a ``state_dict``) sees the update.

Paddle's observable state is kept under Paddle's names: ``_parameter_list``, ``_param_groups``,
``_learning_rate``, ``regularization``, ``_grad_clip``, ``_accumulators`` (``{accumulator: {param name:
Tensor}}``, created at the first step) and ``_master_weights`` (float32 copies of float16 / bfloat16 parameters
with ``multi_precision=True``); ``state_dict()`` uses Paddle's keys (``linear_0.w_0_moment1_0``,
``LR_Scheduler``, ``master_weights``).
"""
from __future__ import annotations

import math
import warnings
import weakref

import numpy as np

import paddle_fn as paddle
from paddle_fn.nn_compat import unique_name
from paddle_fn.nn_compat.clip import ClipGradBase
from paddle_fn.nn_compat.optimizer.lr import LRScheduler
from paddle_fn.nn_compat.regularizer import L2Decay, WeightDecayRegularizer

__all__ = ["Optimizer"]

_LOW_PRECISION = ("float16", "bfloat16")


def _is_low_precision(dtype) -> bool:
    return dtype.name in _LOW_PRECISION


def _as_tensor(value, what):
    if isinstance(value, paddle.Tensor):
        return value
    try:
        return paddle.to_tensor(np.asarray(value))
    except Exception as e:  # noqa: BLE001 - any conversion failure gets the same clear message
        raise TypeError(f"{what}: expected a Tensor or an array, got {type(value).__name__}") from e




class MissingStateError(KeyError, AssertionError):
    """A loaded optimizer state_dict lacks a parameter's accumulator: a KeyError, and the AssertionError Paddle
    raises there ("Optimizer set error, ... should in state dict")."""

class _LearningRateVar(paddle.Tensor):
    """An optimizer's learning rate as program state: a compiled step (``paddle.jit`` / ``to_static``) that closed
    over it calls `refresh_state` before each call, so it uses the rate the scheduler has moved to since."""
    __slots__ = ("_optimizer",)

    def __init__(self, optimizer, dtype):
        super().__init__(np.asarray(optimizer.get_lr(), dtype=dtype.np))
        self._optimizer = weakref.ref(optimizer)
        self.persistable = True

    def refresh_state(self):
        optimizer = self._optimizer()
        if optimizer is None:
            return
        value = np.asarray(optimizer.get_lr(), dtype=self.dtype.np)
        if value != self.numpy():
            with paddle.no_grad(), paddle.ensure_compile_time_eval():
                paddle.assign(paddle.Tensor(value), output=self)


class Optimizer:
    """Base class of Paddle's stateful optimizers (``paddle.optimizer.Optimizer``); use a subclass (``SGD``,
    ``Momentum``, ``Adam``, ``AdamW``, ``Adamax``, ``RMSProp``, ``Adagrad``, ``Adadelta``, ``Lamb``).

    Args:
        learning_rate (float|LRScheduler): the learning rate, or a scheduler read at every step (call its
            ``step()`` yourself, as in Paddle).
        parameters (list|tuple, optional): the Parameters to optimize (``layer.parameters()``), or a list of
            parameter groups: dicts with a ``'params'`` list and per-group options (``'learning_rate'``, a multiplier
            of the optimizer's rate; ``'weight_decay'``; ``'grad_clip'``; the optimizer's own hyperparameters such
            as ``'beta1'``). Required: None is an error, as in Paddle's dygraph mode.
        weight_decay (float|L1Decay|L2Decay, optional): weight decay added to the gradients; a float means
            ``L2Decay(float)``. A parameter's own ``ParamAttr(regularizer=...)`` takes precedence. Default: None.
        grad_clip (ClipGradByValue|ClipGradByNorm|ClipGradByGlobalNorm, optional): gradient clipping, applied
            first, to the parameters whose ``need_clip`` is True. Default: None.
        name (str, optional): goes into the accumulators' names (``<param>_<name>_moment1_0``). Default: None.

    Example:
        >>> import paddle_fn as paddle
        >>> linear = paddle.nn.Linear(2, 1)
        >>> opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters())
        >>> isinstance(opt, paddle.optimizer.Optimizer), opt.get_lr()
        (True, 0.1)
        >>> paddle.optimizer.SGD(learning_rate=0.1)
        Traceback (most recent call last):
        ...
        AttributeError: parameters argument given to the Optimizer should not be None in dygraph mode.
    """

    _kernel = None          # the factory of paddle_fn.nn_compat.optimizer.functional this optimizer delegates to
    _supports_multi_precision = False

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None, name=None):
        if parameters is None:
            raise AttributeError("parameters argument given to the Optimizer should not be None in dygraph mode.")
        if isinstance(parameters, paddle.Tensor):
            raise TypeError("`parameters` argument given to the optimizer should be an iterable of paddle Tensors, "
                            f"but got argument type is `{type(parameters)}`.")
        if isinstance(parameters, dict):
            raise TypeError("`parameters` argument should not get dict type, if parameter groups is needed, please "
                            "set `parameters` as list of dict")
        if isinstance(parameters, set):
            raise TypeError("optimizer parameters should be in ordered collections, but received set, please use "
                            "list instead.")
        if not isinstance(learning_rate, (float, LRScheduler)):
            raise TypeError(f"learning rate should be float or LRScheduler, got {type(learning_rate)} here")
        if grad_clip is not None and not isinstance(grad_clip, ClipGradBase):
            raise TypeError("'grad_clip' should be an instance of GradientClipBase's derived class (ClipGradByValue, "
                            f"ClipGradByNorm or ClipGradByGlobalNorm), got {type(grad_clip).__name__}")
        self._parameter_list = list(parameters)
        self._name = name
        self.regularization = self._regularization_of(weight_decay, "weight_decay")
        self._grad_clip = grad_clip
        self._learning_rate = learning_rate
        self._accumulators = {}           # {accumulator name: {parameter name: Tensor}}, Paddle's layout
        self._accumulators_holder = {}    # entries of a loaded state_dict not yet claimed by an accumulator
        self._master_weights = {}         # {parameter name: float32 Tensor} (multi_precision)
        # subclasses with a multi_precision argument set it before calling this constructor
        self._multi_precision = getattr(self, "_multi_precision", False)
        self._low_precision_warned = set()   # parameter names already warned about (once each, as Paddle)
        self.clear_gradients = self.clear_grad
        self._default_dict = {"weight_decay": self.regularization, "grad_clip": self._grad_clip,
                              **self._hyperparameter_defaults()}
        self._dtype = None
        if self._parameter_list and isinstance(self._parameter_list[0], dict):
            self._param_groups = []
            for group in self._parameter_list:
                if not isinstance(group, dict) or "params" not in group:
                    raise ValueError("params should be set in parameters if parameter groups are optimized in "
                                     f"different options; got {group!r}")
                self._add_param_group(dict(group))
            params = [p for g in self._param_groups for p in g["params"]]
        else:
            self._param_groups = self._parameter_list
            params = self._parameter_list
        for p in params:
            if not isinstance(p, paddle.Tensor):
                raise TypeError(f"{type(self).__name__}: parameters must be Tensors (e.g. layer.parameters()) or "
                                f"parameter-group dicts, got {type(p).__name__}")
        if params:
            self._dtype = params[0].dtype

    # ------------------------------------------------------------------------------------------ configuration
    def _hyperparameter_defaults(self) -> dict:
        """The optimizer's own per-group options and their defaults (``_default_dict`` beyond weight_decay and
        grad_clip)."""
        return {}

    @staticmethod
    def _regularization_of(weight_decay, what):
        if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
            return weight_decay
        if isinstance(weight_decay, (int, float)) and not isinstance(weight_decay, bool):
            return L2Decay(float(weight_decay))
        raise TypeError(f"{what} must be None, a float, paddle.regularizer.L1Decay or L2Decay; got "
                        f"{type(weight_decay).__name__}")

    def _add_param_group(self, param_group):
        """Add a parameter group (a dict with ``'params'``) with its options; as in Paddle, the group's
        ``learning_rate`` (default 1.0) becomes each parameter's ``optimize_attr['learning_rate']`` and its
        ``weight_decay`` the parameter's ``regularizer``."""
        params = param_group["params"]
        if isinstance(params, paddle.Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters should be in ordered collections,but received set, please use "
                            "list instead.")
        param_group["params"] = list(params)
        for k in ("weight_decay", "grad_clip"):
            param_group.setdefault(k, self._default_dict[k])
        param_group["weight_decay"] = self._group_weight_decay(param_group["weight_decay"])
        if param_group["grad_clip"] is not None and not isinstance(param_group["grad_clip"], ClipGradBase):
            raise TypeError("'grad_clip' of a parameter group should be an instance of GradientClipBase's derived "
                            f"class, got {type(param_group['grad_clip']).__name__}")
        seen = {id(p) for g in self._param_groups for p in g["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        for p in param_group["params"]:
            self._attach_group_options(p, param_group)
        self._param_groups.append(param_group)

    def _group_weight_decay(self, weight_decay):
        return self._regularization_of(weight_decay, "weight_decay of a parameter group")

    def _attach_group_options(self, param, group):
        param.regularizer = group["weight_decay"]
        param.optimize_attr["learning_rate"] = group.get("learning_rate", 1.0)

    def _group_options(self, group) -> dict:
        """This group's hyperparameters: its own entries, else the optimizer's defaults."""
        return {k: group.get(k, v) for k, v in self._default_dict.items()}

    def _make_kernel(self, options, params):
        """The functional optimizer for one group: ``options`` from `_group_options`, ``params`` the (original)
        parameters it updates, for the per-parameter options."""
        return type(self)._kernel(**self._kernel_arguments(options, params), **self._common_arguments(options, params))

    def _kernel_arguments(self, options, params) -> dict:
        """The hyperparameters of the functional factory (subclasses)."""
        return {}

    def _common_arguments(self, options, params) -> dict:
        return {"weight_decay": options["weight_decay"], "grad_clip": options["grad_clip"],
                "need_clip": [getattr(p, "need_clip", True) is not False for p in params],
                "param_lr": [(getattr(p, "optimize_attr", None) or {}).get("learning_rate", 1.0) for p in params],
                "regularizer": [getattr(p, "regularizer", None) for p in params]}

    # ------------------------------------------------------------------------------------------ learning rate
    def get_lr(self) -> float:
        """The current learning rate: the float given, or the scheduler's current value.

        Example:
            >>> import paddle_fn as paddle
            >>> linear = paddle.nn.Linear(2, 1)
            >>> scheduler = paddle.optimizer.lr.StepDecay(learning_rate=0.5, step_size=2, gamma=0.1)
            >>> opt = paddle.optimizer.Adam(scheduler, parameters=linear.parameters())
            >>> lrs = []
            >>> for epoch in range(4):
            ...     lrs.append(opt.get_lr())
            ...     scheduler.step()
            >>> lrs
            [0.5, 0.5, 0.05, 0.05]
        """
        if isinstance(self._learning_rate, LRScheduler):
            return self._learning_rate()
        return self._learning_rate

    def set_lr(self, value) -> None:
        """Set a float learning rate (an error when the optimizer is driven by an LRScheduler).

        Args:
            value (float): the new learning rate.

        Example:
            >>> import paddle_fn as paddle
            >>> opt = paddle.optimizer.SGD(0.1, parameters=paddle.nn.Linear(2, 1).parameters())
            >>> opt.set_lr(0.25); opt.get_lr()
            0.25
        """
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise TypeError(f"The type of 'value' in optimizer.set_lr must be float, but received {type(value)}.")
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError("optimizer's learning rate can't be LRScheduler when invoke this API, because this will "
                               "lead to conflict.")
        self._learning_rate = float(value)

    def set_lr_scheduler(self, scheduler) -> None:
        """Drive the learning rate by ``scheduler`` (an ``LRScheduler``) from now on.

        Args:
            scheduler (LRScheduler): the scheduler.

        Example:
            >>> import paddle_fn as paddle
            >>> opt = paddle.optimizer.SGD(0.1, parameters=paddle.nn.Linear(2, 1).parameters())
            >>> opt.set_lr_scheduler(paddle.optimizer.lr.ExponentialDecay(learning_rate=0.5, gamma=0.9))
            >>> opt.get_lr()
            0.5
        """
        if not isinstance(scheduler, LRScheduler):
            raise TypeError("The type of 'scheduler' in optimizer.set_lr_scheduler must be LRScheduler, but received "
                            f"{type(scheduler)}.")
        self._learning_rate = scheduler

    def _lr_tensor(self):
        """This step's learning rate as a 0-D Tensor in Paddle's learning-rate dtype (the first parameter's dtype,
        float32 for float16 / bfloat16), so that ``lr * ParamAttr.learning_rate`` rounds as in Paddle. It is one
        persistable Tensor updated in place, so a compiled step reads the current rate on every call."""
        dtype = self._dtype if self._dtype is not None else paddle.get_default_dtype()
        if isinstance(dtype, str):
            dtype = getattr(paddle, dtype)
        if _is_low_precision(dtype):
            dtype = paddle.float32
        var = getattr(self, "_lr_var", None)
        if var is None or var.dtype != dtype:
            var = self._lr_var = _LearningRateVar(self, dtype)
        var.refresh_state()
        return var

    # ------------------------------------------------------------------------------------------ parameters
    def _all_parameters(self) -> list:
        if self._param_groups and isinstance(self._param_groups[0], dict):
            return [p for g in self._param_groups for p in g["params"]]
        return list(self._param_groups)

    def _groups(self) -> list:
        """Each group as a dict with ``'params'`` (a plain parameter list is one group with the defaults)."""
        if self._param_groups and isinstance(self._param_groups[0], dict):
            return self._param_groups
        return [{"params": list(self._param_groups)}]

    def clear_grad(self, set_to_zero=True) -> None:
        """Reset the gradients of the optimized (trainable) parameters: to zeros, or to None with
        ``set_to_zero=False``. Call it after ``step()`` so that the next ``backward()`` does not accumulate.

        Args:
            set_to_zero (bool, optional): zeros (True, the default) or None.

        Example:
            >>> import paddle_fn as paddle
            >>> linear = paddle.nn.Linear(2, 1)
            >>> opt = paddle.optimizer.SGD(0.1, parameters=linear.parameters())
            >>> linear(paddle.ones([1, 2])).sum().backward()
            >>> linear.bias.grad.numpy()
            array([1.], dtype=float32)
            >>> opt.clear_grad(); linear.bias.grad.numpy()
            array([0.], dtype=float32)
            >>> opt.clear_grad(set_to_zero=False); linear.bias.grad is None
            True
        """
        for p in self._all_parameters():
            if not p.stop_gradient:
                p.clear_gradient(set_to_zero)

    def zero_grad(self, set_to_none=True) -> None:
        """PyTorch-style spelling of `clear_grad`: ``set_to_none=True`` (the default) resets gradients to None.

        Example:
            >>> import paddle_fn as paddle
            >>> linear = paddle.nn.Linear(2, 1)
            >>> opt = paddle.optimizer.SGD(0.1, parameters=linear.parameters())
            >>> linear(paddle.ones([1, 2])).sum().backward()
            >>> opt.zero_grad(); linear.weight.grad is None
            True
        """
        self.clear_grad(set_to_zero=not set_to_none)

    # ------------------------------------------------------------------------------------------ the update
    def step(self) -> None:
        """Update every trainable parameter that has a gradient, once, from its ``.grad``.

        Parameters with ``stop_gradient=True`` (``trainable=False``) or without a gradient are left alone. The
        update runs without recording on the tape, as in Paddle.

        Example:
            >>> import paddle_fn as paddle
            >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0, 2.0]))
            >>> opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=[w])
            >>> loss = (w * w).sum()
            >>> loss.backward()
            >>> opt.step()
            >>> w.numpy()   # w - 0.1 * 2 * w
            array([0.8, 1.6], dtype=float32)
        """
        pairs = [(p, p.grad) for p in self._all_parameters() if not p.stop_gradient and p.grad is not None]
        self._apply_pairs(pairs)

    def backward(self, loss, startup_program=None, parameters=None, no_grad_set=None, callbacks=None):
        """The ``(parameter, gradient)`` pairs of the optimized parameters that have a gradient (Paddle's
        dygraph ``backward``: the gradients come from an earlier ``loss.backward()``).

        Args:
            loss (Tensor): the loss (``loss.backward()`` must have run).
            startup_program: must be None (static programs do not exist here).
            parameters (list, optional): Tensors or parameter names to consider; default: all of this optimizer's.
            no_grad_set (set, optional): Tensors or names to leave out.
            callbacks: must be None (static-graph callbacks do not exist here).

        Returns:
            list of ``(param, grad)`` tuples.

        Example:
            >>> import paddle_fn as paddle
            >>> w = paddle.nn.Parameter(paddle.to_tensor([3.0]))
            >>> opt = paddle.optimizer.SGD(0.1, parameters=[w])
            >>> loss = (w * w).sum(); loss.backward()
            >>> [(p is w, g.numpy()) for p, g in opt.backward(loss)]
            [(True, array([6.], dtype=float32))]
        """
        if not isinstance(loss, paddle.Tensor):
            raise TypeError(f"{type(self).__name__}.backward: the loss should be a Tensor, got {type(loss).__name__}")
        if startup_program is not None:
            raise NotImplementedError(f"{type(self).__name__}: startup_program is a static-graph Program, which "
                                      "paddle_fn does not have; leave it None")
        if callbacks is not None:
            raise NotImplementedError(f"{type(self).__name__}: callbacks are static-graph backward hooks, which "
                                      "paddle_fn does not have; leave them None")
        params = self._select(parameters, "parameters") if parameters else self._all_parameters()
        excluded = {id(p) for p in self._select(no_grad_set, "no_grad_set")} if no_grad_set else set()
        return [(p, p.grad) for p in params if id(p) not in excluded and p.grad is not None]

    def _select(self, items, what) -> list:
        """Parameters given as Tensors or as names (looked up among this optimizer's parameters)."""
        by_name = {p.name: p for p in self._all_parameters()}
        out = []
        for item in items:
            if isinstance(item, str):
                if item not in by_name:
                    raise ValueError(f"{type(self).__name__}: {what} names {item!r}, which is not one of this "
                                     f"optimizer's parameters {sorted(by_name)}")
                out.append(by_name[item])
            elif isinstance(item, paddle.Tensor):
                out.append(item)
            else:
                raise TypeError(f"{type(self).__name__}: {what} must hold Tensors or parameter names, got "
                                f"{type(item).__name__}")
        return out

    def apply_gradients(self, params_grads) -> list:
        """Update parameters from explicit ``(param, grad)`` pairs (e.g. gradients from ``paddle.grad``), with the
        optimizer's clipping, weight decay and learning rate.

        Args:
            params_grads (list): ``(param, grad)`` tuples; a None gradient leaves its parameter alone.

        Returns:
            list: the pairs applied (the gradients before clipping and decay).

        Example:
            >>> import paddle_fn as paddle
            >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0]))
            >>> opt = paddle.optimizer.SGD(0.5, parameters=[w])
            >>> _ = opt.apply_gradients([(w, paddle.to_tensor([2.0]))])
            >>> w.numpy()
            array([0.], dtype=float32)
        """
        pairs = []
        for pair in params_grads:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"{type(self).__name__}.apply_gradients: expected (param, grad) pairs, got {pair!r}")
            p, g = pair
            if g is not None:
                pairs.append((p, _as_tensor(g, f"{type(self).__name__}.apply_gradients")))
        self._apply_pairs(pairs)
        return pairs

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Update the parameters from the gradients of ``loss``: Paddle's dygraph ``minimize``, which reads the
        gradients that ``loss.backward()`` left (call it first) and applies one step.

        Args:
            loss (Tensor): the loss whose ``backward()`` has run.
            startup_program: must be None (static programs do not exist here).
            parameters (list, optional): Tensors or names to update; default: all of this optimizer's.
            no_grad_set (set, optional): Tensors or names not to update.

        Returns:
            tuple: ``([], params_grads)``, as Paddle's dygraph mode returns (no operators, the pairs applied).

        Example:
            >>> import paddle_fn as paddle
            >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0, -1.0]))
            >>> opt = paddle.optimizer.SGD(0.25, parameters=[w])
            >>> loss = (w * w).sum()
            >>> loss.backward()
            >>> ops, params_grads = opt.minimize(loss)
            >>> w.numpy(), len(params_grads)
            (array([ 0.5, -0.5], dtype=float32), 1)
        """
        pairs = self.backward(loss, startup_program, parameters, no_grad_set)
        if not pairs:
            warnings.warn(f"{type(self).__name__}.minimize: no parameter has a gradient, so nothing is updated; call "
                          "loss.backward() before minimize(loss), as in Paddle's dygraph mode", stacklevel=2)
        self._apply_pairs(pairs)
        return [], pairs

    def _apply_pairs(self, pairs) -> None:
        """One update of the parameters in ``pairs``, group by group (each group with its own options)."""
        if not pairs:
            return
        grads = {id(p): g for p, g in pairs}
        for group in self._groups():
            members = [p for p in group["params"] if id(p) in grads]
            if members:
                self._update_group(group, members, [grads[id(p)] for p in members])
        known = {id(p) for p in self._all_parameters()}
        strangers = [p.name for p, _ in pairs if id(p) not in known]
        if strangers:
            raise ValueError(f"{type(self).__name__}: parameters {strangers} are not optimized by this optimizer; "
                             "pass them in `parameters` when you create it")

    def _update_group(self, group, params, grads):
        options = self._group_options(group)
        kernel = self._make_kernel(options, params)
        for p, g in zip(params, grads):
            if list(g.shape) != list(p.shape):
                raise ValueError(f"{type(self).__name__}: the gradient of {p.name} has shape {list(g.shape)}, but "
                                 f"the parameter has shape {list(p.shape)}")
        targets = [self._target(p) for p in params]
        missing = any(t.name not in self._accumulators.get(self._accumulator_key(acc), {})
                      for t in targets for acc in kernel.accumulators)
        with paddle.ensure_compile_time_eval():  # new accumulators are concrete state, also in a compiled step
            fresh = kernel.init([t.detach() for t in targets]) if missing else None
            accs = [self._accumulators_of(kernel, t, fresh, i) for i, t in enumerate(targets)]
        state = {k: [a[k] for a in accs] for k in kernel.accumulators}
        with paddle.no_grad():
            new_targets, new_state = kernel.update(list(grads), state, [t.detach() for t in targets],
                                                   learning_rate=self._lr_tensor())
            for p, t, new in zip(params, targets, new_targets):
                paddle.assign(new, output=t)
                if t is not p:   # a float32 master weight: the parameter is its rounded copy
                    paddle.assign(new.astype(p.dtype), output=p)
            for k in kernel.accumulators:
                for a, new in zip(accs, new_state[k]):
                    paddle.assign(new, output=a[k])

    def _target(self, param):
        """What the kernel updates: the parameter, or its float32 master weight (multi_precision)."""
        if not _is_low_precision(param.dtype):
            return param
        if not self._multi_precision:
            if self._supports_multi_precision and param.name not in self._low_precision_warned:
                self._low_precision_warned.add(param.name)
                warnings.warn("Accumulating with FP16/BF16 in optimizer can lead to poor accuracy or slow "
                              f"convergence. Consider using multi_precision=True option of the "
                              f"{type(self).__name__} optimizer.", stacklevel=4)
            return param
        master = self._master_weights.get(param.name)
        if master is None:
            master = param.detach().astype(paddle.float32)
            master.name = unique_name.generate(param.name + "_fp32_master")
            self._master_weights[param.name] = master
        return master

    def _accumulator_key(self, acc) -> str:
        return acc if self._name is None else f"{self._name}_{acc}"

    def _accumulators_of(self, kernel, target, fresh, index) -> dict:
        """The accumulators of one parameter (or master weight), created at its first update with Paddle's names
        (``<param>_<accumulator>_<n>``) from ``fresh[acc][index]`` (the kernel's init of the group), or taken from a
        loaded state_dict."""
        out = {}
        for acc in kernel.accumulators:
            key = self._accumulator_key(acc)
            table = self._accumulators.setdefault(key, {})
            if target.name in table:
                out[acc] = table[target.name]
                continue
            value = fresh[acc][index]
            var_name = unique_name.generate(f"{target.name}_{key}")
            if self._accumulators_holder:
                saved = self._saved_key(self._accumulators_holder, var_name)
                if saved is None:
                    raise MissingStateError(
                        f"{type(self).__name__}: the loaded state_dict has no entry {var_name!r} for the {acc} of "
                        f"parameter {target.name!r}; it holds {sorted(self._accumulators_holder)}")
                value = self._loaded(self._accumulators_holder.pop(saved), value, saved)
            value = value.detach().clone()  # its own storage: a kernel may give one Tensor to several accumulators
            value.name = var_name
            table[target.name] = value
            out[acc] = value
        return out

    @staticmethod
    def _saved_key(state_dict, var_name):
        """The entry of `state_dict` for the accumulator `var_name` (``<param>_<accumulator>_<n>``): that key, or
        the only key that differs from it in the counter ``<n>`` (an optimizer created again in the same process
        numbers its accumulators on, where Paddle would fail to load), else None."""
        if var_name in state_dict:
            return var_name
        prefix = var_name[:var_name.rindex("_") + 1]
        keys = [k for k in state_dict if k.startswith(prefix) and k[len(prefix):].isdigit()]
        return keys[0] if len(keys) == 1 else None

    def _loaded(self, value, like, key):
        t = _as_tensor(value, f"{type(self).__name__}.set_state_dict")
        if math.prod(t.shape) != math.prod(like.shape):
            raise ValueError(f"{type(self).__name__}.set_state_dict: {key!r} has shape {list(t.shape)}, but the "
                             f"optimizer's Tensor has shape {list(like.shape)}")
        return t.astype(like.dtype).reshape(like.shape)

    # ------------------------------------------------------------------------------------------ state_dict
    def state_dict(self) -> dict:
        """The optimizer's state under Paddle's names: every accumulator (``{param}_{accumulator}_0``, grouped by
        accumulator), ``'master_weights'`` when there are any and ``'LR_Scheduler'`` (the scheduler's
        ``state_dict()``) when the learning rate is a scheduler. Empty before the first step.

        Example:
            >>> import paddle_fn as paddle
            >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0]), name="w")
            >>> opt = paddle.optimizer.Momentum(0.1, parameters=[w])
            >>> opt.state_dict()
            {}
            >>> (w * w).sum().backward(); opt.step()
            >>> opt.state_dict()
            {'w_velocity_0': Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
                   [2.])}
        """
        if not self._accumulators and self._accumulators_holder:
            out = dict(self._accumulators_holder)
        else:
            out = {t.name: t for table in self._accumulators.values() for t in table.values()}
        if self._master_weights:
            out["master_weights"] = self._master_weights
        if isinstance(self._learning_rate, LRScheduler):
            out["LR_Scheduler"] = self._learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict) -> None:
        """Load a state from `state_dict` (this or another optimizer's, e.g. read back with ``paddle.load``).

        Accumulators that exist are overwritten; the others are taken from it when they are created at the next
        step, so loading before the first step resumes exactly. The scheduler's state is loaded from
        ``'LR_Scheduler'`` (required when the learning rate is a scheduler, except ``LambdaDecay``).

        Args:
            state_dict (dict): the state, as `state_dict` returns it.

        Example:
            >>> import paddle_fn as paddle
            >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0]), name="w1")
            >>> opt = paddle.optimizer.Adam(0.1, parameters=[w])
            >>> (w * w).sum().backward(); opt.step()
            >>> saved = {k: v.clone() for k, v in opt.state_dict().items()}
            >>> opt2 = paddle.optimizer.Adam(0.1, parameters=[w])
            >>> opt2.set_state_dict(saved)
            >>> opt2.step()      # creates its accumulators from the loaded state
            >>> [float(v) for k, v in opt2.state_dict().items() if "beta1_pow" in k]   # 0.9 ** 3: it went on
            [0.729]
        """
        if not isinstance(state_dict, dict):
            raise TypeError(f"{type(self).__name__}.set_state_dict: expected a dict, got {type(state_dict).__name__}")
        state_dict = dict(state_dict)
        lr_state = state_dict.pop("LR_Scheduler", None)
        if isinstance(self._learning_rate, LRScheduler):
            if lr_state is None and type(self._learning_rate).__name__ != "LambdaDecay":
                raise KeyError("LR_Scheduler state must be included in the state dict except LambdaDecay")
            if lr_state:
                self._learning_rate.set_state_dict(lr_state)
        masters = state_dict.pop("master_weights", None)
        if masters is not None:
            for pname, value in masters.items():
                t = _as_tensor(value, f"{type(self).__name__}.set_state_dict").astype(paddle.float32)
                if pname in self._master_weights:
                    paddle.assign(self._loaded(t, self._master_weights[pname], pname), output=self._master_weights[pname])
                else:
                    self._master_weights[pname] = t.detach()
        self._accumulators_holder = state_dict
        for table in self._accumulators.values():
            for var in table.values():
                saved = self._saved_key(state_dict, var.name)
                if saved is None:
                    raise KeyError(f"{type(self).__name__}.set_state_dict: optimizer Tensor {var.name} not found")
                paddle.assign(self._loaded(state_dict[saved], var, saved), output=var)

    load_state_dict = set_state_dict
