"""Pure, functional forms of Paddle's optimizers: state in, state out.

Each factory (``sgd``, ``momentum``, ``adam``, ``adamw``, ``adamax``, ``rmsprop``, ``adagrad``, ``adadelta``,
``lamb``) takes Paddle's hyperparameters, with Paddle's names and defaults, and returns a ``FunctionalOptimizer``
with two pure methods:

- ``init(params) -> state``: the accumulators for a pytree of parameters, a dict ``{accumulator: pytree}`` keyed
  by Paddle's accumulator names (``"moment1"``, ``"beta1_pow_acc"``, ...), each pytree shaped like ``params``;
- ``update(grads, state, params, *, learning_rate=None) -> (new_params, new_state)``: one optimizer step, with
  Paddle's order of work: gradient clipping (``grad_clip``), then weight decay added to the gradient
  (``weight_decay`` / per-parameter ``regularizer``), then the optimizer's own kernel.

Nothing is mutated and no Python branch depends on a Tensor's value, so ``update`` runs eagerly and inside
``paddle.jit``, ``paddle.vmap`` and ``pmap``. ``learning_rate`` may be a float or a 0-D Tensor: passing a scheduler's
value as a jit argument changes the number without retracing.

The stateful ``paddle.optimizer.*`` classes are built on these forms: one ``FunctionalOptimizer`` per parameter
group, per-parameter exceptions passed as pytrees with the structure of ``params`` (``need_clip``, ``param_lr``
for ``ParamAttr.learning_rate``, ``regularizer`` for ``ParamAttr.regularizer``, AdamW's per-parameter
``weight_decay`` for ``apply_decay_param_fun`` and ``lr_ratio``, Lamb's ``lamb_weight_decay`` for
``exclude_from_weight_decay_fn``), and ``state_dict`` / ``set_state_dict`` map the state to Paddle's names
(``<param>_moment1_0``, ``<param>_beta1_pow_acc_0``, ...).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

import paddle_fn as paddle
from paddle_fn.nn_compat.regularizer import L1Decay, L2Decay, WeightDecayRegularizer, as_regularizer

__all__ = ["FunctionalOptimizer", "sgd", "momentum", "adam", "adamw", "adamax", "rmsprop", "adagrad", "adadelta",
           "lamb", "accumulator_name"]


# --------------------------------------------------------------------------------------------------- helpers

def _is_option_leaf(x):
    return x is None or isinstance(x, (numbers.Number, WeightDecayRegularizer, paddle.Tensor))


def _per_leaf(value, treedef, n, what):
    """One entry per parameter: a single value is shared; otherwise a pytree with the parameters' structure."""
    if _is_option_leaf(value):
        return [value] * n
    leaves, vdef = paddle.tree_flatten(value, is_leaf=_is_option_leaf)
    if vdef != treedef:
        raise ValueError(f"{what}: got a pytree with structure {vdef}, but the parameters have structure {treedef}; "
                         "give one value for all parameters, or one per parameter in the same structure")
    return leaves


def _np_dtype(dtype):
    return dtype.np


def _c(x, dtype):
    """A hyperparameter rounded to the compute dtype (Paddle's kernels cast their float attributes to T)."""
    if isinstance(x, paddle.Tensor):
        return _scalar_tensor(x, dtype)
    return float(np.asarray(x, dtype=_np_dtype(dtype)))


def _scalar_tensor(x, dtype):
    """A one-element Tensor hyperparameter as a 0-D Tensor of `dtype`."""
    x = x.astype(dtype)
    return x if x.ndim == 0 else x.reshape([])


def _one_minus(x, dtype):
    """``1 - x`` computed in the compute dtype, as ``1 - beta`` is in Paddle's kernels."""
    if isinstance(x, paddle.Tensor):
        return 1.0 - _scalar_tensor(x, dtype)
    d = _np_dtype(dtype)
    return float(np.asarray(1, dtype=d) - np.asarray(x, dtype=d))


def _check_lr(lr, what):
    if isinstance(lr, paddle.Tensor):
        if math.prod(lr.shape) != 1:
            raise ValueError(f"{what}: learning_rate must be a float or a one-element Tensor, got shape {lr.shape}")
        return lr
    if isinstance(lr, numbers.Real) and not isinstance(lr, bool):
        return float(lr)
    raise TypeError(f"{what}: learning_rate must be a float or a 0-D Tensor, got {type(lr).__name__}. For a learning "
                    "rate scheduler pass its current value (scheduler() or scheduler.last_lr); under paddle.jit pass "
                    "it as an argument so that a new value does not retrace")


def _lr_value(lr, param_lr, dtype):
    """The learning rate of one parameter in its compute dtype: global rate times ``ParamAttr.learning_rate``."""
    if isinstance(param_lr, paddle.Tensor):
        return _c(lr, dtype) * _scalar_tensor(param_lr, dtype)
    if isinstance(lr, paddle.Tensor):
        lr = _scalar_tensor(lr, dtype)
        return lr if param_lr == 1.0 else lr * _c(param_lr, dtype)
    lr = _c(lr, dtype)
    return lr if param_lr == 1.0 else _c(lr * param_lr, dtype)


def _pow_scalar(t):
    """A beta-power accumulator (Paddle keeps shape [1]) as a 0-D value for elementwise use."""
    return t.reshape([])


def _check_floats(what, **values):
    for k, v in values.items():
        if isinstance(v, paddle.Tensor):
            continue
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"{what}: {k} must be a float, got {type(v).__name__}")


def accumulator_name(param_name, accumulator, name=None, index=0):
    """The name Paddle gives an optimizer accumulator in ``state_dict()``: ``<param>_<accumulator>_<index>``, with the
    optimizer's ``name`` in front of the accumulator when it has one (Paddle's ``_add_accumulator`` with
    ``unique_name.generate``; ``index`` is that generator's counter, 0 for the first optimizer of a parameter).

    >>> from paddle_fn.nn_compat.optimizer.functional import accumulator_name
    >>> accumulator_name("linear_0.w_0", "moment1")
    'linear_0.w_0_moment1_0'
    >>> accumulator_name("linear_0.w_0", "_avg_squared_grad", name="opt")
    'linear_0.w_0_opt__avg_squared_grad_0'
    """
    acc = accumulator if name is None else f"{name}_{accumulator}"
    return f"{param_name}_{acc}_{index}"


# --------------------------------------------------------------------------------------------------- base

class FunctionalOptimizer:
    """A Paddle optimizer as a pair of pure functions (``init``, ``update``); build one with a factory of this
    module (``adam(...)``, ``sgd(...)``, ...).

    Common arguments of every factory (besides the optimizer's own hyperparameters):

    - ``learning_rate`` (float or 0-D Tensor): the default rate, used when ``update`` gets none.
    - ``weight_decay``: None, a float (``L2Decay(float)``), ``L1Decay`` or ``L2Decay``, added to the gradient
      (AdamW's and Lamb's decay are decoupled and documented there). May be a pytree with the structure of
      ``params`` (one value per parameter).
    - ``grad_clip``: None or a ``ClipGradByValue`` / ``ClipGradByNorm`` / ``ClipGradByGlobalNorm``, applied to the
      gradients of ``update`` before anything else (one clip over all of this optimizer's parameters).
    - ``need_clip``: None (clip all), a bool, or a pytree of bools with the structure of ``params``
      (``ParamAttr(need_clip=False)``).
    - ``param_lr``: float or pytree of floats, each parameter's learning-rate multiplier (``ParamAttr.learning_rate``).
    - ``regularizer``: None or a pytree of per-parameter regularizers (``ParamAttr.regularizer``); an entry that is
      not None replaces ``weight_decay`` for that parameter.
    - ``name``: the optimizer's name, which Paddle puts into the accumulators' ``state_dict`` names.

    Attributes:
        type (str): Paddle's op type (``"adam"``, ...).
        accumulators (tuple of str): the keys of the state, Paddle's accumulator names, in Paddle's order.
        learning_rate: the default learning rate.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.optimizer import functional as F
    >>> opt = F.sgd(learning_rate=0.1)
    >>> params = {"w": paddle.to_tensor([1.0, 2.0])}
    >>> state = opt.init(params)
    >>> params, state = opt.update({"w": paddle.to_tensor([1.0, -1.0])}, state, params)
    >>> params["w"].numpy()
    array([0.9, 2.1], dtype=float32)
    """

    type = ""
    _accumulators: tuple = ()
    # Paddle keeps the accumulators of float16 / bfloat16 parameters in float32 for these optimizers
    _fp32_accumulators_for_low_precision = False

    def __init__(self, learning_rate=0.001, *, weight_decay=None, grad_clip=None, need_clip=None, param_lr=1.0,
                 regularizer=None, name=None):
        self.learning_rate = _check_lr(learning_rate, self.type)
        for what, value in (("weight_decay", weight_decay), ("regularizer", regularizer)):
            leaves = [value] if _is_option_leaf(value) else paddle.tree_flatten(value, is_leaf=_is_option_leaf)[0]
            for v in leaves:  # type check now rather than at the first step
                as_regularizer(v, f"{self.type}: {what}")
        self.weight_decay = weight_decay
        if grad_clip is not None and not hasattr(grad_clip, "clip"):
            raise TypeError(f"{self.type}: grad_clip must be None or a ClipGradByValue / ClipGradByNorm / "
                            f"ClipGradByGlobalNorm, got {type(grad_clip).__name__}")
        self.grad_clip = grad_clip
        self.need_clip = need_clip
        self.param_lr = param_lr
        self.regularizer = regularizer
        self.name = name

    # -- description
    @property
    def accumulators(self) -> tuple:
        """The state's keys: Paddle's accumulator names for this configuration, in Paddle's creation order."""
        return self._accumulators

    def hyperparameters(self) -> dict:
        """The optimizer's own hyperparameters (Paddle's constructor arguments)."""
        return {}

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in {"learning_rate": self.learning_rate,
                                                   **self.hyperparameters()}.items())
        return f"{type(self).__name__}({args})"

    # -- pure API
    def init(self, params):
        """The initial state for a pytree of parameters: ``{accumulator: pytree shaped like params}``.

        Vector accumulators have the parameter's shape; Paddle's scalar accumulators (``beta1_pow_acc``, ...) have
        shape ``[1]``. Accumulators take the parameter's dtype (float32 for float16 / bfloat16 parameters of Adam,
        AdamW and Lamb, as in Paddle). Under ``paddle.vmap`` it builds one state per ensemble member.
        """
        leaves, treedef = paddle.tree_flatten(params)
        opts = self._leaf_options(treedef, len(leaves))
        per_leaf = [self._init_leaf(p, self._acc_dtype(p.dtype), o) for p, o in zip(leaves, opts)]
        return {k: paddle.tree_unflatten(treedef, [d[k] for d in per_leaf]) for k in self.accumulators}

    def update(self, grads, state, params, *, learning_rate=None):
        """One optimizer step: ``(new_params, new_state)``.

        Args:
            grads: the gradients, a pytree with the structure of ``params``; a None gradient leaves its parameter
                and accumulators unchanged (Paddle skips parameters without a gradient).
            state: the state from ``init`` or a previous ``update``.
            params: the parameters.
            learning_rate (float or 0-D Tensor, optional): this step's learning rate; default: the optimizer's.

        Returns:
            ``(new_params, new_state)``, with the structures of ``params`` and ``state``.
        """
        what = f"{self.type}.update"
        p_leaves, treedef = paddle.tree_flatten(params)
        g_leaves, g_def = paddle.tree_flatten(grads, is_leaf=lambda x: x is None)
        if g_def != treedef:
            raise ValueError(f"{what}: grads have structure {g_def}, but params have structure {treedef}")
        n = len(p_leaves)
        if not isinstance(state, dict) or set(state) != set(self.accumulators):
            raise ValueError(f"{what}: state must be a dict with keys {list(self.accumulators)} (from init), got "
                             f"{sorted(state) if isinstance(state, dict) else type(state).__name__}")
        acc_leaves = {}
        for k in self.accumulators:
            leaves, a_def = paddle.tree_flatten(state[k])
            if a_def != treedef:
                raise ValueError(f"{what}: state[{k!r}] has structure {a_def}, but params have structure {treedef}")
            acc_leaves[k] = leaves
        lr = self.learning_rate if learning_rate is None else _check_lr(learning_rate, what)
        opts = self._leaf_options(treedef, n)

        if self.grad_clip is not None:
            flags = [o["need_clip"] for o in opts]
            g_leaves = list(self.grad_clip.clip(list(g_leaves), [True if f is None else bool(f) for f in flags]))

        new_p, new_acc = [], {k: [] for k in self.accumulators}
        leaf_lrs = {}  # (compute dtype, ParamAttr learning rate) -> the rate: most parameters share one
        for i, (p, g, o) in enumerate(zip(p_leaves, g_leaves, opts)):
            accs = {k: acc_leaves[k][i] for k in self.accumulators}
            if g is None:
                new_p.append(p)
                for k in self.accumulators:
                    new_acc[k].append(accs[k])
                continue
            dtype = self._acc_dtype(p.dtype)
            pc, gc = p.astype(dtype), g.astype(dtype)
            gc = self._regularize(pc, gc, o, dtype)
            param_lr = o["param_lr"]
            key = None if isinstance(param_lr, paddle.Tensor) else (dtype, param_lr)
            lr_i = leaf_lrs.get(key)
            if lr_i is None:
                lr_i = _lr_value(lr, param_lr, dtype)
                if key is not None:
                    leaf_lrs[key] = lr_i
            p_out, acc_out = self._update_leaf(pc, gc, accs, lr_i, o, dtype)
            new_p.append(p_out.astype(p.dtype))
            for k in self.accumulators:
                new_acc[k].append(acc_out[k].astype(accs[k].dtype).reshape(accs[k].shape))
        return (paddle.tree_unflatten(treedef, new_p),
                {k: paddle.tree_unflatten(treedef, new_acc[k]) for k in self.accumulators})

    # -- Paddle state_dict names
    def state_dict(self, state, param_names, name=None):
        """The state as Paddle's optimizer ``state_dict()`` holds it: ``{"<param>_<accumulator>_0": Tensor}``,
        grouped by accumulator in Paddle's order.

        Args:
            state: the state.
            param_names: the parameters' Paddle names (``Parameter.name``), a pytree with the parameters' structure
                or a list in the order of their leaves.
            name (str, optional): the optimizer's name (default: the one given to the factory).
        """
        names = self._names(param_names, state)
        out = {}
        for k in self.accumulators:
            for pname, t in zip(names, paddle.tree_flatten(state[k])[0]):
                out[accumulator_name(pname, k, name if name is not None else self.name)] = t
        return out

    def set_state_dict(self, state_dict, params, param_names, name=None):
        """A state built from a Paddle-style ``state_dict`` (the inverse of ``state_dict``): each accumulator is read
        from ``"<param>_<accumulator>_0"`` (Paddle's numbering, any counter suffix accepted when exactly one
        matches), reshaped and cast like ``init(params)`` would make it; a missing entry raises ``KeyError``."""
        fresh = self.init(params)
        treedef = paddle.tree_flatten(params)[1]
        names = self._names(param_names, fresh)
        oname = name if name is not None else self.name
        out = {}
        for k in self.accumulators:
            leaves = []
            for pname, ref in zip(names, paddle.tree_flatten(fresh[k])[0]):
                key = accumulator_name(pname, k, oname)
                if key not in state_dict:
                    prefix = key[:-1]
                    cands = [s for s in state_dict if s.startswith(prefix) and s[len(prefix):].isdigit()]
                    if len(cands) != 1:
                        raise KeyError(f"{self.type}.set_state_dict: no entry {key!r} for accumulator {k!r} of "
                                       f"parameter {pname!r}")
                    key = cands[0]
                value = state_dict[key]
                t = value if isinstance(value, paddle.Tensor) else paddle.to_tensor(np.asarray(value))
                if math.prod(t.shape) != math.prod(ref.shape):
                    raise ValueError(f"{self.type}.set_state_dict: {key!r} has shape {t.shape}, expected {ref.shape}")
                leaves.append(t.astype(ref.dtype).reshape(ref.shape))
            out[k] = paddle.tree_unflatten(treedef, leaves)
        return out

    def _names(self, param_names, state):
        names = paddle.tree_flatten(param_names, is_leaf=lambda x: isinstance(x, str))[0]
        if not self.accumulators:
            return [str(s) for s in names]
        n = len(paddle.tree_flatten(state[self.accumulators[0]])[0])
        if len(names) != n:
            raise ValueError(f"{self.type}: got {len(names)} parameter names for {n} parameters")
        return [str(s) for s in names]

    # -- per-optimizer pieces
    def _acc_dtype(self, dtype):
        if self._fp32_accumulators_for_low_precision and dtype in (paddle.float16, paddle.bfloat16):
            return paddle.float32
        return dtype

    def _extra_leaf_options(self):
        """Per-parameter hyperparameters of this optimizer: {option name: value or pytree}."""
        return {}

    def _leaf_options(self, treedef, n):
        spec = {"need_clip": self.need_clip, "param_lr": self.param_lr, "regularizer": self.regularizer,
                "weight_decay": self.weight_decay, **self._extra_leaf_options()}
        columns = {k: _per_leaf(v, treedef, n, f"{self.type}: {k}") for k, v in spec.items()}
        return [{k: columns[k][i] for k in spec} for i in range(n)]

    def _effective_regularizer(self, o):
        reg = as_regularizer(o["regularizer"], "regularizer")
        return reg if reg is not None else as_regularizer(o["weight_decay"])

    def _regularize(self, p, g, o, dtype):
        reg = self._effective_regularizer(o)
        return g if reg is None else g + reg.decay(p).astype(dtype)

    def _init_leaf(self, p, dtype, o):
        return {}

    def _update_leaf(self, p, g, accs, lr, o, dtype):
        raise NotImplementedError


def _scalar_like(value, dtype, like):
    """A shape-[1] accumulator (Paddle's beta powers) holding ``value`` (under vmap it is broadcast per member)."""
    return paddle.full([1], _c(value, dtype), dtype=dtype)


# --------------------------------------------------------------------------------------------------- optimizers

class _SGD(FunctionalOptimizer):
    type = "sgd"

    def _update_leaf(self, p, g, accs, lr, o, dtype):
        return p - lr * g, {}


def sgd(learning_rate=0.001, *, weight_decay=None, grad_clip=None, need_clip=None, param_lr=1.0, regularizer=None,
        name=None):
    """Stochastic gradient descent (Paddle's ``paddle.optimizer.SGD``): ``param = param - learning_rate * grad``.

    No accumulators (the state is ``{}``). See ``FunctionalOptimizer`` for the common arguments.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.optimizer import functional as F
    >>> from paddle_fn.regularizer import L2Decay
    >>> opt = F.sgd(learning_rate=0.5, weight_decay=L2Decay(0.1))
    >>> w = paddle.to_tensor([1.0, -2.0])
    >>> w, state = opt.update(paddle.to_tensor([0.2, 0.2]), opt.init(w), w)
    >>> w.numpy()   # w - 0.5 * (g + 0.1 * w)
    array([ 0.85, -2.  ], dtype=float32)
    """
    return _SGD(learning_rate, weight_decay=weight_decay, grad_clip=grad_clip, need_clip=need_clip,
                param_lr=param_lr, regularizer=regularizer, name=name)


class _Momentum(FunctionalOptimizer):
    type = "momentum"
    _accumulators = ("velocity",)

    def __init__(self, learning_rate, momentum, use_nesterov, rescale_grad, **kw):
        super().__init__(learning_rate, **kw)
        _check_floats("momentum", momentum=momentum, rescale_grad=rescale_grad)
        self.momentum, self.use_nesterov, self.rescale_grad = momentum, bool(use_nesterov), rescale_grad

    def hyperparameters(self):
        return {"momentum": self.momentum, "use_nesterov": self.use_nesterov, "rescale_grad": self.rescale_grad}

    def _init_leaf(self, p, dtype, o):
        return {"velocity": paddle.zeros_like(p, dtype=dtype)}

    def _regularize(self, p, g, o, dtype):
        # Paddle fuses L2 decay into the momentum kernel (after rescale_grad); other regularizers (L1) are added to
        # the gradient before the kernel, so before rescale_grad
        reg = self._effective_regularizer(o)
        if isinstance(reg, L1Decay):
            return g + reg.decay(p).astype(dtype)
        return g

    def _update_leaf(self, p, g, accs, lr, o, dtype):
        mu = _c(self.momentum, dtype)
        if self.rescale_grad != 1.0:
            g = g * _c(self.rescale_grad, dtype)
        reg = self._effective_regularizer(o)
        if isinstance(reg, L2Decay):
            g = g + p * _c(reg.coeff, dtype)
        v = accs["velocity"] * mu + g
        if self.use_nesterov:
            p = p - (g + v * mu) * lr
        else:
            p = p - lr * v
        return p, {"velocity": v}


def momentum(learning_rate=0.001, momentum=0.9, *, use_nesterov=False, weight_decay=None, grad_clip=None,
             rescale_grad=1.0, need_clip=None, param_lr=1.0, regularizer=None, name=None):
    """Momentum SGD (Paddle's ``paddle.optimizer.Momentum``), accumulator ``velocity``::

        grad = grad * rescale_grad + coeff * param        # L2 weight decay, fused as in Paddle
        velocity = momentum * velocity + grad
        param = param - (grad + momentum * velocity) * learning_rate   # use_nesterov=True
        param = param - learning_rate * velocity                       # otherwise

    Args:
        learning_rate (float or 0-D Tensor): default 0.001.
        momentum (float): the momentum factor ``mu``, default 0.9.
        use_nesterov (bool): Nesterov momentum, default False.
        rescale_grad (float): multiply the gradient by this before the update (``1 / batch_size`` ...), default 1.0.
        weight_decay, grad_clip, need_clip, param_lr, regularizer, name: see ``FunctionalOptimizer``.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.optimizer import functional as F
    >>> opt = F.momentum(learning_rate=0.1, momentum=0.9, use_nesterov=True)
    >>> w = paddle.to_tensor([1.0])
    >>> state = opt.init(w)
    >>> for _ in range(2):
    ...     w, state = opt.update(paddle.to_tensor([1.0]), state, w)
    >>> w.numpy().round(4), state["velocity"].numpy().round(4)
    (array([0.539], dtype=float32), array([1.9], dtype=float32))
    """
    return _Momentum(learning_rate, momentum, use_nesterov, rescale_grad, weight_decay=weight_decay,
                     grad_clip=grad_clip, need_clip=need_clip, param_lr=param_lr, regularizer=regularizer, name=name)


class _Adam(FunctionalOptimizer):
    type = "adam"
    _fp32_accumulators_for_low_precision = True

    def __init__(self, learning_rate, beta1, beta2, epsilon, amsgrad, **kw):
        super().__init__(learning_rate, **kw)
        _check_floats(self.type, beta1=beta1, beta2=beta2, epsilon=epsilon)
        for k, v in (("beta1", beta1), ("beta2", beta2)):
            if not isinstance(v, paddle.Tensor) and not 0 <= v < 1:
                raise ValueError(f"{self.type}: invalid value of {k} {v}, expect {k} in [0, 1)")
        if not isinstance(epsilon, paddle.Tensor) and not epsilon >= 0:
            raise ValueError(f"{self.type}: invalid value of epsilon {epsilon}, expect epsilon >= 0")
        self.beta1, self.beta2, self.epsilon, self.amsgrad = beta1, beta2, epsilon, bool(amsgrad)

    @property
    def accumulators(self):
        if self.amsgrad:
            return ("moment1", "moment2", "moment2_max", "beta1_pow_acc", "beta2_pow_acc")
        return ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")

    def hyperparameters(self):
        return {"beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon, "amsgrad": self.amsgrad}

    def _init_leaf(self, p, dtype, o):
        out = {"moment1": paddle.zeros_like(p, dtype=dtype), "moment2": paddle.zeros_like(p, dtype=dtype),
               "beta1_pow_acc": _scalar_like(self._beta_value(self.beta1), dtype, p),
               "beta2_pow_acc": _scalar_like(self._beta_value(self.beta2), dtype, p)}
        if self.amsgrad:
            out["moment2_max"] = paddle.zeros_like(p, dtype=dtype)
        return out

    @staticmethod
    def _beta_value(beta):
        return float(beta.item()) if isinstance(beta, paddle.Tensor) else beta

    def _adam_step(self, p, g, accs, lr, dtype):
        """Paddle's adam kernel on one parameter (the part AdamW shares)."""
        b1, b2 = _c(self.beta1, dtype), _c(self.beta2, dtype)
        b1p, b2p = _pow_scalar(accs["beta1_pow_acc"]), _pow_scalar(accs["beta2_pow_acc"])
        lr_t = lr * paddle.sqrt(1.0 - b2p) / (1.0 - b1p)
        m = accs["moment1"] * b1 + g * _one_minus(self.beta1, dtype)
        v = accs["moment2"] * b2 + g * g * _one_minus(self.beta2, dtype)
        out = {"moment1": m, "moment2": v}
        if self.amsgrad:
            v = paddle.maximum(v, accs["moment2_max"])
            out["moment2_max"] = v
        p = p - lr_t * (m / (paddle.sqrt(v) + _c(self.epsilon, dtype) * paddle.sqrt(1.0 - b2p)))
        out["beta1_pow_acc"] = accs["beta1_pow_acc"] * b1
        out["beta2_pow_acc"] = accs["beta2_pow_acc"] * b2
        return p, out

    def _update_leaf(self, p, g, accs, lr, o, dtype):
        return self._adam_step(p, g, accs, lr, dtype)


def adam(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, *, weight_decay=None, grad_clip=None,
         amsgrad=False, need_clip=None, param_lr=1.0, regularizer=None, name=None):
    """Adam (Paddle's ``paddle.optimizer.Adam``), accumulators ``moment1``, ``moment2`` (``moment2_max`` with
    ``amsgrad``), ``beta1_pow_acc``, ``beta2_pow_acc`` (shape [1], start at ``beta1`` / ``beta2``)::

        moment1 = beta1 * moment1 + (1 - beta1) * grad
        moment2 = beta2 * moment2 + (1 - beta2) * grad * grad
        lr_t = learning_rate * sqrt(1 - beta2_pow) / (1 - beta1_pow)
        param = param - lr_t * moment1 / (sqrt(moment2) + epsilon * sqrt(1 - beta2_pow))
        beta1_pow, beta2_pow = beta1_pow * beta1, beta2_pow * beta2

    (``epsilon`` is scaled by ``sqrt(1 - beta2_pow)`` as in Paddle's kernel, which is the textbook
    ``m_hat / (sqrt(v_hat) + epsilon)``.) ``weight_decay`` is L2 decay added to the gradient; for decoupled decay use
    ``adamw``.

    Args:
        learning_rate (float or 0-D Tensor): default 0.001.
        beta1, beta2 (float): decay rates of the moment estimates, defaults 0.9 and 0.999.
        epsilon (float): default 1e-8.
        amsgrad (bool): use the running maximum of ``moment2`` (Paddle 3's ``amsgrad``), default False.
        weight_decay, grad_clip, need_clip, param_lr, regularizer, name: see ``FunctionalOptimizer``.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.optimizer import functional as F
    >>> opt = F.adam(learning_rate=0.1)
    >>> params = {"w": paddle.to_tensor([1.0, -1.0])}
    >>> state = opt.init(params)
    >>> sorted(state)
    ['beta1_pow_acc', 'beta2_pow_acc', 'moment1', 'moment2']
    >>> params, state = opt.update({"w": paddle.to_tensor([0.5, -2.0])}, state, params)
    >>> params["w"].numpy().round(4), state["beta1_pow_acc"]["w"].numpy().round(4)
    (array([ 0.9, -0.9], dtype=float32), array([0.81], dtype=float32))
    """
    return _Adam(learning_rate, beta1, beta2, epsilon, amsgrad, weight_decay=weight_decay, grad_clip=grad_clip,
                 need_clip=need_clip, param_lr=param_lr, regularizer=regularizer, name=name)


class _AdamW(_Adam):
    type = "adamw"

    def __init__(self, learning_rate, beta1, beta2, epsilon, amsgrad, coeff, lr_ratio, **kw):
        for c in ([coeff] if _is_option_leaf(coeff) else paddle.tree_flatten(coeff, is_leaf=_is_option_leaf)[0]):
            if not (isinstance(c, paddle.Tensor) or (isinstance(c, numbers.Real) and not isinstance(c, bool))):
                raise TypeError(f"adamw: weight_decay (the decoupled decay coefficient) must be a float or a Tensor, "
                                f"got {type(c).__name__}; AdamW does not take L1Decay / L2Decay")
        super().__init__(learning_rate, beta1, beta2, epsilon, amsgrad, **kw)
        self.coeff, self.lr_ratio = coeff, lr_ratio

    def hyperparameters(self):
        return {**super().hyperparameters(), "weight_decay": self.coeff, "lr_ratio": self.lr_ratio}

    def _extra_leaf_options(self):
        return {"coeff": self.coeff, "lr_ratio": self.lr_ratio}

    def _effective_regularizer(self, o):
        # the optimizer's weight_decay is the decoupled coefficient; only a parameter's own regularizer is coupled
        return as_regularizer(o["regularizer"], "regularizer")

    def _update_leaf(self, p, g, accs, lr, o, dtype):
        ratio = o["lr_ratio"]
        if ratio is not None and not (isinstance(ratio, numbers.Real) and ratio == 1.0):
            lr = lr * _c(ratio, dtype)
        coeff = o["coeff"]
        if isinstance(coeff, paddle.Tensor) or coeff != 0.0:
            p = p - lr * _c(coeff, dtype) * p   # decoupled decay first, with the step's learning rate
        return self._adam_step(p, g, accs, lr, dtype)


def adamw(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, *, weight_decay=0.01, lr_ratio=None,
          grad_clip=None, amsgrad=False, need_clip=None, param_lr=1.0, regularizer=None, name=None):
    """AdamW (Paddle's ``paddle.optimizer.AdamW``): Adam with decoupled weight decay. Before the Adam step of
    ``adam``::

        lr = learning_rate * lr_ratio
        param = param - lr * weight_decay * param

    then the Adam update with ``lr``. Same accumulators as ``adam``.

    Args:
        weight_decay (float or Tensor): the decay coefficient ``coeff``, default 0.01 (not a regularizer). One
            value per parameter (a pytree shaped like ``params``) expresses Paddle's ``apply_decay_param_fun``:
            give 0.0 to the parameters it excludes.
        lr_ratio (float, optional): per-parameter learning-rate ratio (Paddle's ``lr_ratio(param)``, which Paddle
            implements on GPU only), a float or a pytree of floats; default None (1.0).
        learning_rate, beta1, beta2, epsilon, amsgrad: as for ``adam``.
        grad_clip, need_clip, param_lr, regularizer, name: see ``FunctionalOptimizer``; a per-parameter
            ``regularizer`` is still added to the gradient, as in Paddle.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.optimizer import functional as F
    >>> opt = F.adamw(learning_rate=0.1, weight_decay={"w": 0.5, "b": 0.0})
    >>> params = {"w": paddle.to_tensor([1.0]), "b": paddle.to_tensor([1.0])}
    >>> params, state = opt.update({"w": paddle.to_tensor([0.0]), "b": paddle.to_tensor([0.0])},
    ...                            opt.init(params), params)
    >>> params["w"].numpy(), params["b"].numpy()   # w decays by lr * coeff; b has no decay
    (array([0.95], dtype=float32), array([1.], dtype=float32))
    """
    return _AdamW(learning_rate, beta1, beta2, epsilon, amsgrad, weight_decay, lr_ratio, grad_clip=grad_clip,
                  need_clip=need_clip, param_lr=param_lr, regularizer=regularizer, name=name)


class _Adamax(FunctionalOptimizer):
    type = "adamax"
    _accumulators = ("moment", "inf_norm", "beta1_pow_acc")

    def __init__(self, learning_rate, beta1, beta2, epsilon, **kw):
        super().__init__(learning_rate, **kw)
        _check_floats("adamax", beta1=beta1, beta2=beta2, epsilon=epsilon)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def hyperparameters(self):
        return {"beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon}

    def _init_leaf(self, p, dtype, o):
        return {"moment": paddle.zeros_like(p, dtype=dtype), "inf_norm": paddle.zeros_like(p, dtype=dtype),
                "beta1_pow_acc": _scalar_like(self.beta1, dtype, p)}

    def _update_leaf(self, p, g, accs, lr, o, dtype):
        b1 = _c(self.beta1, dtype)
        m = accs["moment"] * b1 + g * _one_minus(self.beta1, dtype)
        u = paddle.maximum(paddle.abs(g), accs["inf_norm"] * _c(self.beta2, dtype) + _c(self.epsilon, dtype))
        lr_t = lr / (1.0 - _pow_scalar(accs["beta1_pow_acc"]))
        p = p - lr_t * (m / u)
        return p, {"moment": m, "inf_norm": u, "beta1_pow_acc": accs["beta1_pow_acc"] * b1}


def adamax(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, *, weight_decay=None, grad_clip=None,
           need_clip=None, param_lr=1.0, regularizer=None, name=None):
    """Adamax (Paddle's ``paddle.optimizer.Adamax``), accumulators ``moment``, ``inf_norm``, ``beta1_pow_acc``::

        moment = beta1 * moment + (1 - beta1) * grad
        inf_norm = max(|grad|, beta2 * inf_norm + epsilon)
        param = param - learning_rate / (1 - beta1_pow) * moment / inf_norm
        beta1_pow = beta1_pow * beta1

    Args:
        learning_rate (float or 0-D Tensor): default 0.001.
        beta1, beta2 (float): defaults 0.9, 0.999.
        epsilon (float): default 1e-8 (added to the decayed infinity norm, as in Paddle).
        weight_decay, grad_clip, need_clip, param_lr, regularizer, name: see ``FunctionalOptimizer``.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.optimizer import functional as F
    >>> opt = F.adamax(learning_rate=0.1)
    >>> w = paddle.to_tensor([1.0, 1.0])
    >>> w, state = opt.update(paddle.to_tensor([2.0, -0.5]), opt.init(w), w)
    >>> w.numpy().round(4), state["inf_norm"].numpy()
    (array([0.9, 1.1], dtype=float32), array([2. , 0.5], dtype=float32))
    """
    return _Adamax(learning_rate, beta1, beta2, epsilon, weight_decay=weight_decay, grad_clip=grad_clip,
                   need_clip=need_clip, param_lr=param_lr, regularizer=regularizer, name=name)


class _RMSProp(FunctionalOptimizer):
    type = "rmsprop"
    _accumulators = ("momentum", "mean_square", "mean_grad")

    def __init__(self, learning_rate, rho, epsilon, momentum, centered, **kw):
        super().__init__(learning_rate, **kw)
        _check_floats("rmsprop", rho=rho, epsilon=epsilon, momentum=momentum)
        for k, v in (("epsilon", epsilon), ("momentum", momentum), ("rho", rho)):
            if not v >= 0.0:
                raise ValueError(f"rmsprop: invalid value of {k} {v}, expect {k} >= 0")
        self.rho, self.epsilon, self.momentum, self.centered = rho, epsilon, momentum, bool(centered)

    def hyperparameters(self):
        return {"rho": self.rho, "epsilon": self.epsilon, "momentum": self.momentum, "centered": self.centered}

    def _init_leaf(self, p, dtype, o):
        return {k: paddle.zeros_like(p, dtype=dtype) for k in self._accumulators}

    def _update_leaf(self, p, g, accs, lr, o, dtype):
        rho, one_m_rho, eps = _c(self.rho, dtype), _one_minus(self.rho, dtype), _c(self.epsilon, dtype)
        ms = accs["mean_square"] * rho + g * g * one_m_rho
        mg = accs["mean_grad"]
        if self.centered:
            mg = mg * rho + g * one_m_rho
            denom = paddle.sqrt(ms - mg * mg + eps)
        else:
            denom = paddle.sqrt(ms + eps)
        mom = accs["momentum"] * _c(self.momentum, dtype) + lr * g / denom
        return p - mom, {"momentum": mom, "mean_square": ms, "mean_grad": mg}


def rmsprop(learning_rate, rho=0.95, epsilon=1e-6, momentum=0.0, centered=False, *, weight_decay=None,
            grad_clip=None, need_clip=None, param_lr=1.0, regularizer=None, name=None):
    """RMSProp (Paddle's ``paddle.optimizer.RMSProp``), accumulators ``momentum``, ``mean_square``,
    ``mean_grad``::

        mean_square = rho * mean_square + (1 - rho) * grad * grad
        mean_grad = rho * mean_grad + (1 - rho) * grad                 # centered=True only
        denom = sqrt(mean_square - mean_grad ** 2 + epsilon)           # centered=True
        denom = sqrt(mean_square + epsilon)                            # otherwise
        momentum = momentum_factor * momentum + learning_rate * grad / denom
        param = param - momentum

    (``epsilon`` is inside the square root, as in Paddle.)

    Args:
        learning_rate (float or 0-D Tensor): required, as in Paddle.
        rho (float): default 0.95.
        epsilon (float): default 1e-6.
        momentum (float): the momentum factor, default 0.0.
        centered (bool): normalize by the estimated variance, default False.
        weight_decay, grad_clip, need_clip, param_lr, regularizer, name: see ``FunctionalOptimizer``.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.optimizer import functional as F
    >>> opt = F.rmsprop(learning_rate=0.01, rho=0.9, momentum=0.5, centered=True)
    >>> w = paddle.to_tensor([1.0])
    >>> w, state = opt.update(paddle.to_tensor([1.0]), opt.init(w), w)
    >>> w.numpy().round(4), state["mean_grad"].numpy().round(4)
    (array([0.9667], dtype=float32), array([0.1], dtype=float32))
    """
    return _RMSProp(learning_rate, rho, epsilon, momentum, centered, weight_decay=weight_decay, grad_clip=grad_clip,
                    need_clip=need_clip, param_lr=param_lr, regularizer=regularizer, name=name)


class _Adagrad(FunctionalOptimizer):
    type = "adagrad"
    _accumulators = ("moment",)

    def __init__(self, learning_rate, epsilon, initial_accumulator_value, **kw):
        super().__init__(learning_rate, **kw)
        _check_floats("adagrad", epsilon=epsilon, initial_accumulator_value=initial_accumulator_value)
        self.epsilon, self.initial_accumulator_value = epsilon, initial_accumulator_value

    def hyperparameters(self):
        return {"epsilon": self.epsilon, "initial_accumulator_value": self.initial_accumulator_value}

    def _init_leaf(self, p, dtype, o):
        return {"moment": paddle.zeros_like(p, dtype=dtype) + _c(self.initial_accumulator_value, dtype)}

    def _update_leaf(self, p, g, accs, lr, o, dtype):
        mom = accs["moment"] + g * g
        return p - lr * g / (paddle.sqrt(mom) + _c(self.epsilon, dtype)), {"moment": mom}


def adagrad(learning_rate, epsilon=1e-6, *, weight_decay=None, grad_clip=None, initial_accumulator_value=0.0,
            need_clip=None, param_lr=1.0, regularizer=None, name=None):
    """Adagrad (Paddle's ``paddle.optimizer.Adagrad``), accumulator ``moment`` (starts at
    ``initial_accumulator_value``)::

        moment = moment + grad * grad
        param = param - learning_rate * grad / (sqrt(moment) + epsilon)

    Args:
        learning_rate (float or 0-D Tensor): required, as in Paddle.
        epsilon (float): default 1e-6.
        initial_accumulator_value (float): the moment's initial value, default 0.0.
        weight_decay, grad_clip, need_clip, param_lr, regularizer, name: see ``FunctionalOptimizer``.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.optimizer import functional as F
    >>> opt = F.adagrad(learning_rate=0.1, initial_accumulator_value=1.0)
    >>> w = paddle.to_tensor([1.0])
    >>> state = opt.init(w)
    >>> state["moment"].numpy()
    array([1.], dtype=float32)
    >>> w, state = opt.update(paddle.to_tensor([3.0]), state, w)
    >>> w.numpy().round(4)   # 1 - 0.1 * 3 / sqrt(1 + 9)
    array([0.9051], dtype=float32)
    """
    return _Adagrad(learning_rate, epsilon, initial_accumulator_value, weight_decay=weight_decay,
                    grad_clip=grad_clip, need_clip=need_clip, param_lr=param_lr, regularizer=regularizer, name=name)


class _Adadelta(FunctionalOptimizer):
    type = "adadelta"
    _accumulators = ("_avg_squared_grad", "_avg_squared_update")

    def __init__(self, learning_rate, epsilon, rho, **kw):
        super().__init__(learning_rate, **kw)
        _check_floats("adadelta", epsilon=epsilon, rho=rho)
        self.epsilon, self.rho = epsilon, rho

    def hyperparameters(self):
        return {"epsilon": self.epsilon, "rho": self.rho}

    def _init_leaf(self, p, dtype, o):
        return {k: paddle.zeros_like(p, dtype=dtype) for k in self._accumulators}

    def _update_leaf(self, p, g, accs, lr, o, dtype):
        rho, one_m_rho, eps = _c(self.rho, dtype), _one_minus(self.rho, dtype), _c(self.epsilon, dtype)
        asg = accs["_avg_squared_grad"] * rho + g * g * one_m_rho
        upd = -(paddle.sqrt(accs["_avg_squared_update"] + eps) / paddle.sqrt(asg + eps) * g)
        asu = accs["_avg_squared_update"] * rho + upd * upd * one_m_rho
        return p + lr * upd, {"_avg_squared_grad": asg, "_avg_squared_update": asu}


def adadelta(learning_rate=0.001, epsilon=1e-6, rho=0.95, *, weight_decay=None, grad_clip=None, need_clip=None,
             param_lr=1.0, regularizer=None, name=None):
    """Adadelta (Paddle's ``paddle.optimizer.Adadelta``), accumulators ``_avg_squared_grad``,
    ``_avg_squared_update`` (Paddle's names, with the leading underscore)::

        avg_squared_grad = rho * avg_squared_grad + (1 - rho) * grad * grad
        update = -sqrt((avg_squared_update + epsilon) / (avg_squared_grad + epsilon)) * grad
        param = param + learning_rate * update
        avg_squared_update = rho * avg_squared_update + (1 - rho) * update * update

    This is Paddle >= 2.5's kernel; Paddle <= 2.4 ignored the learning rate (pass ``learning_rate=1.0`` to get it).

    Args:
        learning_rate (float or 0-D Tensor): default 0.001.
        epsilon (float): default 1e-6.
        rho (float): default 0.95.
        weight_decay, grad_clip, need_clip, param_lr, regularizer, name: see ``FunctionalOptimizer``.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.optimizer import functional as F
    >>> opt = F.adadelta(learning_rate=1.0, epsilon=1e-2, rho=0.5)
    >>> w = paddle.to_tensor([1.0])
    >>> w, state = opt.update(paddle.to_tensor([1.0]), opt.init(w), w)
    >>> w.numpy().round(4)   # 1 - sqrt(0.01 / 0.51)
    array([0.86], dtype=float32)
    """
    return _Adadelta(learning_rate, epsilon, rho, weight_decay=weight_decay, grad_clip=grad_clip,
                     need_clip=need_clip, param_lr=param_lr, regularizer=regularizer, name=name)


class _Lamb(_Adam):
    type = "lamb"

    def __init__(self, learning_rate, lamb_weight_decay, beta1, beta2, epsilon, always_adapt, **kw):
        super().__init__(learning_rate, beta1, beta2, epsilon, False, **kw)
        self.lamb_weight_decay, self.always_adapt = lamb_weight_decay, bool(always_adapt)

    def hyperparameters(self):
        return {"lamb_weight_decay": self.lamb_weight_decay, "beta1": self.beta1, "beta2": self.beta2,
                "epsilon": self.epsilon, "always_adapt": self.always_adapt}

    def _extra_leaf_options(self):
        return {"lamb_weight_decay": self.lamb_weight_decay}

    def _effective_regularizer(self, o):
        return as_regularizer(o["regularizer"], "regularizer")

    def _update_leaf(self, p, g, accs, lr, o, dtype):
        b1, b2 = _c(self.beta1, dtype), _c(self.beta2, dtype)
        b1p, b2p = _pow_scalar(accs["beta1_pow_acc"]), _pow_scalar(accs["beta2_pow_acc"])
        m = accs["moment1"] * b1 + g * _one_minus(self.beta1, dtype)
        v = accs["moment2"] * b2 + g * g * _one_minus(self.beta2, dtype)
        m_hat = m / (1.0 - b1p)
        v_hat = v / (1.0 - b2p)
        wd = o["lamb_weight_decay"]
        r = m_hat / (paddle.sqrt(v_hat) + _c(self.epsilon, dtype)) + _c(wd, dtype) * p
        if isinstance(wd, paddle.Tensor) or wd > 0 or self.always_adapt:
            pn = paddle.sqrt(paddle.sum(p * p)).reshape([])
            tn = paddle.sqrt(paddle.sum(r * r)).reshape([])
            ok = paddle.logical_and(pn > 0, tn > 0)
            ratio = paddle.where(ok, pn / paddle.where(ok, tn, paddle.ones_like(tn)), paddle.ones_like(pn))
            lr = lr * ratio
        p = p - lr * r
        return p, {"moment1": m, "moment2": v, "beta1_pow_acc": accs["beta1_pow_acc"] * b1,
                   "beta2_pow_acc": accs["beta2_pow_acc"] * b2}


def lamb(learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999, epsilon=1e-6, *, grad_clip=None,
         always_adapt=False, need_clip=None, param_lr=1.0, regularizer=None, name=None):
    """LAMB (Paddle's ``paddle.optimizer.Lamb``), same accumulators as ``adam``::

        moment1 = beta1 * moment1 + (1 - beta1) * grad
        moment2 = beta2 * moment2 + (1 - beta2) * grad * grad
        r = (moment1 / (1 - beta1_pow)) / (sqrt(moment2 / (1 - beta2_pow)) + epsilon) + lamb_weight_decay * param
        ratio = ||param|| / ||r||   (1 when either norm is 0, or when lamb_weight_decay is 0 and not always_adapt)
        param = param - learning_rate * ratio * r

    Args:
        learning_rate (float or 0-D Tensor): default 0.001.
        lamb_weight_decay (float): default 0.01. One value per parameter (a pytree shaped like ``params``)
            expresses Paddle's ``exclude_from_weight_decay_fn``: give 0.0 to the excluded parameters.
        beta1, beta2 (float): defaults 0.9, 0.999.
        epsilon (float): default 1e-6.
        always_adapt (bool): apply the trust ratio even without weight decay (Paddle >= 2.4), default False.
        grad_clip, need_clip, param_lr, regularizer, name: see ``FunctionalOptimizer`` (Lamb takes no
            ``weight_decay``).

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.optimizer import functional as F
    >>> opt = F.lamb(learning_rate=0.1, lamb_weight_decay=0.01)
    >>> w = paddle.to_tensor([3.0, 4.0])
    >>> w, state = opt.update(paddle.to_tensor([1.0, 1.0]), opt.init(w), w)
    >>> w.numpy().round(4)   # the step has length lr * ||w|| = 0.5
    array([2.6482, 3.6447], dtype=float32)
    """
    return _Lamb(learning_rate, lamb_weight_decay, beta1, beta2, epsilon, always_adapt, grad_clip=grad_clip,
                 need_clip=need_clip, param_lr=param_lr, regularizer=regularizer, name=name)
