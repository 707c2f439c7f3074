"""`paddle.ParamAttr` (also ``paddle.base.param_attr.ParamAttr``, ``paddle.framework.ParamAttr``): how a Layer
creates one of its parameters (name, initializer, learning rate, ...).

A plain record with no paddle_fn imports, so every layer of the library can name it (tests/test_layering.py gives
this module a layer of its own, below `paddle_fn.base` and `paddle_fn.framework`, which re-export it as Paddle
does). It recognises initializers and regularizers by what they do, not by their classes, which live in the
stateful layer (`paddle_fn.nn_compat`): a regularizer has a ``decay(param)`` method, an initializer is called
on a parameter.
"""
from __future__ import annotations

__all__ = ["ParamAttr"]


class ParamAttr:
    """The attributes of a parameter a Layer creates (Paddle's ``paddle.ParamAttr``).

    Args:
        name (str, optional): the parameter's name. Default: a unique name such as ``linear_0.w_0``.
        initializer (Initializer, optional): how to fill it, e.g. ``paddle.nn.initializer.Normal(0.0, 0.02)``.
            Default: the global initializer (`set_global_initializer`) or the layer's default (XavierUniform for
            weights, Constant(0) for biases).
        learning_rate (float, optional): multiplies the optimizer's learning rate for this parameter
            (``param.optimize_attr['learning_rate']``). Default: 1.0.
        regularizer (WeightDecayRegularizer, optional): overrides the optimizer's weight decay. Default: None.
        trainable (bool, optional): False makes ``stop_gradient=True`` (frozen). Default: True.
        do_model_average (bool, optional): for ModelAverage. Default: True.
        need_clip (bool, optional): whether gradient clipping applies to it. Default: True.

    Example:
        >>> import paddle_fn as paddle
        >>> attr = paddle.nn.ParamAttr(name="fc_w", initializer=paddle.nn.initializer.Constant(0.5),
        ...                            learning_rate=0.1)
        >>> fc = paddle.nn.Linear(2, 3, weight_attr=attr)
        >>> fc.weight.name, fc.weight.optimize_attr, float(fc.weight.sum())
        ('fc_w', {'learning_rate': 0.1}, 3.0)
    """

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None, trainable=True,
                 do_model_average=True, need_clip=True):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"ParamAttr: name must be a str or None, got {type(name).__name__}")
        if not isinstance(learning_rate, (int, float)) or isinstance(learning_rate, bool):
            raise TypeError(f"ParamAttr: learning_rate must be a float, got {learning_rate!r}")
        if not isinstance(trainable, bool):
            raise TypeError(f"ParamAttr: trainable must be a bool, got {trainable!r}")
        if not isinstance(need_clip, bool):
            raise TypeError(f"ParamAttr: need_clip must be a bool, got {need_clip!r}")
        if initializer is not None and not callable(initializer):
            raise TypeError(f"ParamAttr: initializer must be an Initializer such as paddle.nn.initializer.Normal(), "
                            f"got {initializer!r}")
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = trainable
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    def __repr__(self):
        return (f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, learning_rate={self.learning_rate}, "
                f"regularizer={self.regularizer!r}, trainable={self.trainable}, need_clip={self.need_clip})")

    def _set_default_initializer(self, initializer):
        if self.initializer is None:
            self.initializer = initializer

    @staticmethod
    def _to_attr(arg):
        """What Paddle layers accept as ``weight_attr`` / ``bias_attr``: None (defaults), a ParamAttr, a name, an
        initializer, a regularizer, True (defaults) or False (no parameter, returned as False); lists map."""
        if arg is None or arg is True:
            return ParamAttr()
        if arg is False:
            return False
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, (list, tuple)):
            return [ParamAttr._to_attr(a) for a in arg]
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if callable(getattr(arg, "decay", None)):  # a WeightDecayRegularizer (L1Decay, L2Decay, ...)
            return ParamAttr(regularizer=arg)
        if callable(arg):  # an Initializer
            return ParamAttr(initializer=arg)
        raise TypeError(f"{type(arg).__name__} cannot be cast to ParamAttr; pass a ParamAttr, a name, an "
                        "initializer, a regularizer, None or False")

    def _to_kwargs(self, with_initializer=False):
        kwargs = {"name": self.name, "optimize_attr": {"learning_rate": self.learning_rate},
                  "regularizer": self.regularizer, "trainable": self.trainable,
                  "do_model_average": self.do_model_average, "need_clip": self.need_clip}
        if with_initializer:
            kwargs["initializer"] = self.initializer
        return kwargs
