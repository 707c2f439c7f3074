"""paddle_fn: a functional, JAX-style transformable array library with a Paddle-flavoured API.

    import paddle_fn as paddle
    paddle.grad(lambda x: (x ** 2).sum())(paddle.to_tensor([1.0, 2.0]))
"""
from paddle_fn import prims  # noqa: F401  (registers every primitive)
from paddle_fn import tensor as _tensor_api
from paddle_fn.tensor import *  # noqa: F401,F403  (the Paddle-level functions)
from paddle_fn.core.dtypes import (  # noqa: F401
    DType, bfloat16, bool_ as bool, complex64, complex128, float16, float32, float64, get_default_dtype, int8, int16,
    int32, int64,
    set_default_dtype, uint8, uint32)
from paddle_fn.core.errors import (  # noqa: F401
    ConcretizationError, DTypeError, EscapedTracerError, PaddleFnError, ShapeError, TransformError, UnsupportedError)
from paddle_fn.core.pytree import register_pytree_node, tree_flatten, tree_map, tree_unflatten  # noqa: F401
from paddle_fn.core.trace import Tensor, ensure_compile_time_eval  # noqa: F401
from paddle_fn.prims.control_flow import cond, fori_loop, scan, switch, while_loop  # noqa: F401
from paddle_fn.prims.custom_derivatives import custom_jvp, custom_vjp  # noqa: F401
from paddle_fn.prims.elementwise import stop_gradient  # noqa: F401
from paddle_fn.core.config import config, default_matmul_precision, get_flags, set_flags  # noqa: F401
from paddle_fn.core.tape import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from paddle_fn.transforms import (  # noqa: F401
    grad, hessian, jacfwd, jacobian, jacrev, jit, jvp, linearize, make_ir, value_and_grad, vjp, vmap)
from paddle_fn.transforms import (  # noqa: F401
    all_gather, all_to_all, axis_index, pmap, pmax, pmean, pmin, ppermute, psum, psum_scatter)
from paddle_fn.transforms.devices import (  # noqa: F401
    CPUPlace, CUDAPlace, device_put, devices, get_device, is_compiled_with_cuda, is_compiled_with_rocm,
    is_compiled_with_xpu, set_device)

from paddle_fn import random  # noqa: F401,E402  (functional: paddle_fn.random.key/split/uniform/...)
from paddle_fn.random import (  # noqa: F401,E402  (Paddle style, global seed)
    paddle_normal as normal, paddle_randint as randint, paddle_uniform as uniform, rand, randn, randperm, seed,
    standard_normal)

_tensor_api.methods.install()
from paddle_fn import autograd, device, incubate, linalg, nn  # noqa: F401,E402  (paddle.incubate.autograd, paddle.autograd)
from paddle_fn.linalg import cholesky, det, matrix_power, multi_dot, norm, slogdet  # noqa: F401,E402
from paddle_fn.linalg import inv as inverse  # noqa: F401,E402

__version__ = "0.1.0"
from paddle_fn import optimizer  # noqa: E402,F401
from paddle_fn import regularizer  # noqa: E402,F401  (paddle.regularizer.L1Decay / L2Decay)
from paddle_fn.nn_compat.param_attr import ParamAttr  # noqa: E402,F401
from paddle_fn.nn_compat.parameter import create_parameter  # noqa: E402,F401
from paddle_fn import framework, static  # noqa: E402,F401  (paddle.save/load, paddle.static.InputSpec)
from paddle_fn import base  # noqa: E402,F401  (paddle.base.framework.Variable)
from paddle_fn.framework import load, save  # noqa: E402,F401
from paddle_fn.static import disable_static, enable_static, in_dynamic_mode  # noqa: E402,F401
import paddle_fn.jit as jit  # noqa: E402,F401,F811  (the paddle.jit module; calling it is the jit transform)
from paddle_fn import callbacks, hapi, metric  # noqa: E402,F401  (paddle.callbacks, paddle.metric)
from paddle_fn.hapi import Model, summary  # noqa: E402,F401  (paddle.Model, paddle.summary)
from paddle_fn import io  # noqa: E402,F401  (paddle.io: Dataset, DataLoader, samplers)
from paddle_fn import vision  # noqa: E402,F401  (paddle.vision: datasets, transforms, models)
from paddle_fn import distributed  # noqa: E402,F401  (paddle.distributed: processes, collectives, launch, spawn)
from paddle_fn.distributed import DataParallel  # noqa: E402,F401
from paddle_fn import amp  # noqa: E402,F401  (paddle.amp)
