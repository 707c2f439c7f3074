"""`paddle.nn.initializer`: how Layers fill their parameters.

Pass one to a layer through ``ParamAttr(initializer=...)`` (or directly as ``weight_attr``/``bias_attr``), call
it on a parameter to re-initialize it in place (``init(param)``), or install defaults with
`set_global_initializer`. Random initializers draw from the global generator: ``paddle.seed(n)`` makes
initialization reproducible.

Example:
    >>> import paddle_fn as paddle
    >>> fc = paddle.nn.Linear(3, 2, weight_attr=paddle.nn.initializer.Constant(1.0),
    ...                       bias_attr=paddle.nn.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5)))
    >>> fc(paddle.ones([1, 3])).numpy()
    array([[3.5, 3.5]], dtype=float32)
"""
from paddle_fn.nn_compat.initializer.assign import Assign
from paddle_fn.nn_compat.initializer.bilinear import Bilinear
from paddle_fn.nn_compat.initializer.constant import Constant
from paddle_fn.nn_compat.initializer.dirac import Dirac
from paddle_fn.nn_compat.initializer.initializer import Initializer, calculate_gain, set_global_initializer
from paddle_fn.nn_compat.initializer.kaiming import KaimingNormal, KaimingUniform
from paddle_fn.nn_compat.initializer.normal import Normal, TruncatedNormal
from paddle_fn.nn_compat.initializer.orthogonal import Orthogonal
from paddle_fn.nn_compat.initializer.uniform import Uniform
from paddle_fn.nn_compat.initializer.xavier import XavierNormal, XavierUniform

__all__ = ["Assign", "Bilinear", "Constant", "Dirac", "Initializer", "KaimingNormal", "KaimingUniform", "Normal", "Orthogonal",
           "TruncatedNormal", "Uniform", "XavierNormal", "XavierUniform", "calculate_gain", "set_global_initializer"]
