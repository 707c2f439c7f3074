"""paddle_fn: a functional, JAX-style transformable array library with a Paddle-flavoured API.

    import paddle_fn as paddle
    paddle.grad(lambda x: (x ** 2).sum())(paddle.to_tensor([1.0, 2.0]))
"""
import importlib as _importlib
import types as _types

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
from paddle_fn.core.size import Size  # noqa: F401
from paddle_fn.core.staging import named_scope  # noqa: F401
from paddle_fn.core.tensor_format import set_printoptions  # noqa: F401
from paddle_fn.core.trace import Tensor, Tracer, ensure_compile_time_eval  # noqa: F401
from paddle_fn.prims.control_flow import cond, fori_loop, scan, switch, while_loop  # noqa: F401
from paddle_fn.prims.custom_derivatives import custom_jvp, custom_vjp  # noqa: F401
from paddle_fn.prims import remat as checkpoint_policies  # noqa: F401  (nothing_saveable, dots_saveable, ...)
from paddle_fn.prims.remat import checkpoint, remat  # noqa: F401
from paddle_fn.prims.elementwise import stop_gradient  # noqa: F401
from paddle_fn.core.config import config, default_matmul_precision, get_flags, set_flags  # noqa: F401
from paddle_fn.core.tape import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from paddle_fn.prims.collectives import (  # noqa: F401
    all_gather, all_to_all, axis_index, pmax, pmean, pmin, ppermute, psum, psum_scatter)

from paddle_fn import tree  # noqa: F401,E402  (JAX's jax.tree functions)
from paddle_fn import random  # noqa: F401,E402  (functional: paddle_fn.random.key/split/uniform/...)
from paddle_fn.random import (  # noqa: F401,E402  (Paddle style, global seed)
    get_rng_state, get_rng_state as get_cuda_rng_state, paddle_bernoulli as bernoulli,
    paddle_binomial as binomial, paddle_multinomial as multinomial, paddle_poisson as poisson,
    paddle_randint as randint, rand_like, randint_like, randn_like, seed, set_rng_state,
    set_rng_state as set_cuda_rng_state, standard_gamma)
from paddle_fn.tensor.random import (  # noqa: F401,E402  (the same with Paddle 3.3's out=, device=, ...)
    normal, rand, randn, randperm, standard_normal, uniform)

__version__ = "0.1.0"

# The transforms, Paddle's other namespaces and the names the root takes from them load on first use (PEP 562), so
# that `import paddle_fn` costs what eager code needs only (at most 2.5x `import numpy`, bench_import.py); vision
# pulls in PIL, distributed sockets and subprocesses, jit the dy2static translator. name -> "module" or
# "module:attribute".
# tests/test_layering.py reads this table as the root's imports; tests/test_import_time.py checks that none of it
# loads with the root.
_LAZY = {
    # the transforms: jit and pmap bring the runtime (the IREE compiler driver, the disk cache)
    "transforms": "paddle_fn.transforms",
    "grad": "paddle_fn.transforms:grad",
    "hessian": "paddle_fn.transforms:hessian",
    "jacfwd": "paddle_fn.transforms:jacfwd",
    "jacobian": "paddle_fn.transforms:jacobian",
    "jacrev": "paddle_fn.transforms:jacrev",
    "jvp": "paddle_fn.transforms:jvp",
    "linearize": "paddle_fn.transforms:linearize",
    "make_ir": "paddle_fn.transforms:make_ir",
    "pmap": "paddle_fn.transforms:pmap",
    "value_and_grad": "paddle_fn.transforms:value_and_grad",
    "vjp": "paddle_fn.transforms:vjp",
    "vmap": "paddle_fn.transforms:vmap",
    "CPUPlace": "paddle_fn.transforms.devices:CPUPlace",
    "CUDAPlace": "paddle_fn.transforms.devices:CUDAPlace",
    "block_until_ready": "paddle_fn.transforms.devices:block_until_ready",
    "device_count": "paddle_fn.transforms.devices:device_count",
    "device_get": "paddle_fn.transforms.devices:device_get",
    "debug": "paddle_fn.transforms.debug",  # debug.print / debug.callback (JAX's)
    "device_put": "paddle_fn.transforms.devices:device_put",
    "local_device_count": "paddle_fn.transforms.devices:local_device_count",
    "devices": "paddle_fn.transforms.devices:devices",
    "get_device": "paddle_fn.transforms.devices:get_device",
    "is_compiled_with_cuda": "paddle_fn.transforms.devices:is_compiled_with_cuda",
    "is_compiled_with_rocm": "paddle_fn.transforms.devices:is_compiled_with_rocm",
    "is_compiled_with_xpu": "paddle_fn.transforms.devices:is_compiled_with_xpu",
    "set_device": "paddle_fn.transforms.devices:set_device",
    # Paddle's namespaces
    "amp": "paddle_fn.amp",
    "audio": "paddle_fn.audio",  # paddle.audio.functional.get_window
    "autograd": "paddle_fn.autograd",  # paddle.autograd; paddle.incubate.autograd
    "base": "paddle_fn.base",  # paddle.base.framework.Variable
    "disable_signal_handler": "paddle_fn.base.framework:disable_signal_handler",
    "batch": "paddle_fn.io.batch:batch",  # Paddle's reader decorator
    "callbacks": "paddle_fn.callbacks",
    "device": "paddle_fn.device",
    "distributed": "paddle_fn.distributed",  # processes, collectives, launch, spawn
    "distribution": "paddle_fn.distribution",  # probability distributions, transforms, kl_divergence
    "framework": "paddle_fn.framework",
    "geometric": "paddle_fn.geometric",  # segment reductions, graph message passing
    "hapi": "paddle_fn.hapi",
    "incubate": "paddle_fn.incubate",
    "io": "paddle_fn.io",  # Dataset, DataLoader, samplers
    "jit": "paddle_fn.jit",  # the paddle.jit module; calling it is the jit transform
    "fft": "paddle_fn.fft",  # paddle.fft: discrete Fourier transforms
    "linalg": "paddle_fn.linalg",
    "metric": "paddle_fn.metric",
    "nn": "paddle_fn.nn",
    "optimizer": "paddle_fn.optimizer",
    "signal": "paddle_fn.signal",  # paddle.signal: stft, istft
    "utils": "paddle_fn.utils",  # try_import, deprecated, download (pretrained weights), unique_name, dlpack
    "to_dlpack": "paddle_fn.utils.dlpack:to_dlpack",
    "from_dlpack": "paddle_fn.utils.dlpack:from_dlpack",
    "regularizer": "paddle_fn.regularizer",  # L1Decay / L2Decay
    "static": "paddle_fn.static",  # InputSpec
    "test_util": "paddle_fn.test_util",  # check_grads (JAX's)
    "sparse": "paddle_fn.sparse",  # COO / CSR Tensors, paddle.sparse.nn
    "vision": "paddle_fn.vision",  # datasets, transforms, models
    "cholesky": "paddle_fn.linalg:cholesky",
    "det": "paddle_fn.linalg:det",
    "eigvalsh": "paddle_fn.linalg:eigvalsh",
    # Paddle 3.3 also exports these functional ops at the root (the same functions as paddle.nn.functional's)
    "adaptive_avg_pool1d": "paddle_fn.nn.functional:adaptive_avg_pool1d",
    "conv1d": "paddle_fn.nn.functional:conv1d",
    "conv2d": "paddle_fn.nn.functional:conv2d",
    "conv3d": "paddle_fn.nn.functional:conv3d",
    "group_norm": "paddle_fn.nn.functional:group_norm",
    "layer_norm": "paddle_fn.nn.functional:layer_norm",
    "inverse": "paddle_fn.linalg:inv",
    "matrix_power": "paddle_fn.linalg:matrix_power",
    "multi_dot": "paddle_fn.linalg:multi_dot",
    "norm": "paddle_fn.linalg:norm",
    "slogdet": "paddle_fn.linalg:slogdet",
    "ParamAttr": "paddle_fn.base.param_attr:ParamAttr",
    "LazyGuard": "paddle_fn.nn_compat.initializer.lazy_init:LazyGuard",
    "compat": "paddle_fn.compat",  # enable_compat's torch proxy, PyTorch-signature functions
    "enable_compat": "paddle_fn.compat.proxy:enable_compat",
    "disable_compat": "paddle_fn.compat.proxy:disable_compat",
    "create_parameter": "paddle_fn.nn_compat.parameter:create_parameter",
    "load": "paddle_fn.framework:load",
    "save": "paddle_fn.framework:save",
    "disable_static": "paddle_fn.static:disable_static",
    "enable_static": "paddle_fn.static:enable_static",
    "in_dynamic_mode": "paddle_fn.static:in_dynamic_mode",
    "Model": "paddle_fn.hapi:Model",
    "summary": "paddle_fn.hapi:summary",
    "DataParallel": "paddle_fn.distributed:DataParallel",
}


# Tensor methods whose functions live in namespaces that load on first use: x.cholesky() is paddle.linalg.cholesky(x),
# as in Paddle 3.3, and x.to_sparse_coo(2) converts through paddle.sparse. method name -> "module:attribute", loaded
# by the method's first call (so a script that never calls one does not import the namespace). tests/test_layering.py
# reads this table as the root's imports, as it reads _LAZY.
_LAZY_METHODS = {
    "cholesky": "paddle_fn.linalg:cholesky", "cholesky_solve": "paddle_fn.linalg:cholesky_solve",
    "cond": "paddle_fn.linalg:cond", "corrcoef": "paddle_fn.linalg:corrcoef", "cov": "paddle_fn.linalg:cov",
    "eig": "paddle_fn.linalg:eig", "eigvals": "paddle_fn.linalg:eigvals", "eigvalsh": "paddle_fn.linalg:eigvalsh",
    "lstsq": "paddle_fn.linalg:lstsq", "lu": "paddle_fn.linalg:lu", "lu_unpack": "paddle_fn.linalg:lu_unpack",
    "matrix_power": "paddle_fn.linalg:matrix_power", "multi_dot": "paddle_fn.linalg:multi_dot",
    "norm": "paddle_fn.linalg:norm", "pinv": "paddle_fn.linalg:pinv", "qr": "paddle_fn.linalg:qr",
    "slogdet": "paddle_fn.linalg:slogdet", "solve": "paddle_fn.linalg:solve", "inverse": "paddle_fn.linalg:inv",
    "to_sparse_coo": "paddle_fn.sparse.tensor:to_sparse_coo",
    "to_sparse_csr": "paddle_fn.sparse.tensor:to_sparse_csr",
}


def _load(target):
    """The module or attribute that `target` ("module" or "module:attribute") names, imported."""
    module, _, attribute = target.partition(":")
    value = _importlib.import_module(module)
    return getattr(value, attribute) if attribute else value


_tensor_api.methods.install(_LAZY_METHODS, _load)


def __getattr__(name):
    """Import the target of `name` in `_LAZY` on its first lookup, and bind it here for the next ones."""
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'paddle_fn' has no attribute {name!r}")
    value = globals()[name] = _load(target)
    return value


def __dir__():
    """The bound names and those of `_LAZY`, which tab completion offers before they are loaded."""
    return sorted(set(globals()) | set(_LAZY))


# What `from paddle_fn import *` binds: every public function, class and constant, the deferred ones included (the
# star import loads them); as in Paddle, not the namespaces (import paddle_fn.nn as nn).
__all__ = sorted({name for name, value in globals().items()
                  if not name.startswith("_") and not isinstance(value, _types.ModuleType)} |
                 {name for name, target in _LAZY.items() if ":" in target})
