"""paddle_fn on an NVIDIA GPU (marker `gpu`): op-table rows compiled for CUDA, jit of grad / vmap / hessian, a
Layer training step and a to_static step, and the to_static training steps of Paddle's ResNet-18 and of a classifier
with dropout, each compared with the CPU's eager results, float64 included.

These run where a CUDA device exists: on a GPU machine through `benchmarks/gpu_check.py run` (with the disk cache
prepared elsewhere, no IREE compiler needed), and while `benchmarks/gpu_check.py prepare` fills that cache with a
stand-in CUDA device ($PADDLE_FN_STAND_IN_GPU=cuda: programs are compiled for CUDA and evaluated op by op on the CPU,
so the comparisons there check the preparation, not the GPU). Anywhere else they are skipped, with the reason.
"""
import contextlib

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.runtime import compile_stablehlo, CompileError
from paddle_fn.runtime._iree import rt
from paddle_fn.runtime.device import vm_instance
from paddle_fn.transforms.jit import lowering_target

from optable.iree_rows import mismatches, rows_module, rows_with_programs

pytestmark = pytest.mark.gpu

# the op-table rows go to IREE in modules of this many functions: a row that fails to compile takes its module's
# rows with it, and one module of all ~230 rows compiles for minutes
ROWS_PER_MODULE = 40


@pytest.fixture(scope="module")
def gpu():
    found = paddle.devices("cuda")
    if not found:
        pytest.skip("no CUDA device here (no NVIDIA GPU, driver or CUDA-enabled IREE runtime); these tests run on a "
                    "GPU machine: see docs/gpu.md (benchmarks/gpu_check.py)")
    return found[0]


@contextlib.contextmanager
def default_device(device):
    """jit and device_put use `device` inside the block."""
    before = paddle.config.default_device
    paddle.config.update("default_device", device)
    try:
        yield device
    finally:
        paddle.config.update("default_device", before)


def _compiled(cases, target):
    """[(cases, CUDA module of them)] and the rows that fail to compile: each module of ROWS_PER_MODULE rows that
    fails is compiled again row by row, so that one row takes only itself out."""
    modules, failures = [], []
    for start in range(0, len(cases), ROWS_PER_MODULE):
        pending = [cases[start:start + ROWS_PER_MODULE]]
        while pending:
            chunk = pending.pop()
            try:
                modules.append((chunk, compile_stablehlo(rows_module(chunk, target), target="cuda")))
            except CompileError as error:
                if len(chunk) > 1:
                    pending += [[case] for case in chunk]
                    continue
                found = [line for line in error.diagnostics.splitlines() if "error" in line] or [str(error)]
                failures.append(f"{chunk[0][0].name} ({', '.join(str(a.dtype) for a in chunk[0][2])}): "
                                f"{found[0][:300]}")
    return modules, failures


@pytest.fixture(scope="module")
def cuda_rows(gpu):
    """The op-table rows (float64 and the rows' other dtypes) compiled for CUDA, from the disk cache on a GPU
    machine (see `_compiled`)."""
    cases = rows_with_programs()
    return (len(cases),) + _compiled(cases, lowering_target("cuda"))


def test_op_table_rows_compile_for_cuda(cuda_rows):
    count, _, failures = cuda_rows
    assert not failures, f"{len(failures)} of {count} rows do not compile for CUDA:\n" + "\n".join(failures)


def test_op_table_rows_compiled_for_cuda_match_eager(gpu, cuda_rows):
    count, modules, _ = cuda_rows
    if gpu.stand_in:
        return  # preparing the cache: the CPU cannot run CUDA code
    failures = []
    for chunk, artifact in modules:
        module = rt.VmModule.copy_buffer(vm_instance(), artifact.vmfb)
        context = rt.VmContext(vm_instance(), modules=[gpu.hal_module(), module])

        def call(i, args):
            function = rt.FunctionInvoker(context, gpu.hal_device, module.lookup_function(f"row{i}"))
            results = function(*[np.asarray(a) for a in args])
            return [r.to_host() for r in (results if isinstance(results, (tuple, list)) else [results])]
        failures += mismatches(chunk, call)
    assert not failures, f"{len(failures)} of the rows compiled for CUDA differ from eager:\n" + "\n".join(failures)


def _loss(x, A):
    return paddle.sum(paddle.tanh(paddle.matmul(A, x)) ** 2) + 0.5 * paddle.sum(x ** 2)


@pytest.mark.parametrize("dtype, tol", [("float32", 2e-5), ("float64", 1e-12)])
def test_jit_of_grad_vmap_and_hessian_match_cpu_eager(gpu, dtype, tol):
    rng = np.random.default_rng(0)
    A = (rng.standard_normal((64, 64)) / 8).astype(dtype)
    xs = rng.standard_normal((5, 64)).astype(dtype)
    transforms = {"grad": lambda x, A: paddle.grad(_loss)(x[0], A),
                  "vmap(grad)": lambda x, A: paddle.vmap(paddle.grad(_loss), in_axes=(0, None))(x, A),
                  "hessian": lambda x, A: paddle.hessian(_loss)(x[0], A)}
    for name, f in transforms.items():
        want = f(paddle.to_tensor(xs), paddle.to_tensor(A)).numpy()
        with default_device(gpu):
            got = paddle.jit(f)(paddle.device_put(paddle.to_tensor(xs)), paddle.device_put(paddle.to_tensor(A)))
            assert got.numpy().dtype == np.dtype(dtype), name
            np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol, err_msg=name)


def _training_data(steps=3, batch=16):
    rng = np.random.default_rng(1)
    return [(rng.standard_normal((batch, 8)).astype("float32"), rng.integers(0, 4, batch).astype("int64"))
            for _ in range(steps)]


def _model():
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(8, 32), paddle.nn.ReLU(), paddle.nn.Linear(32, 4))
    return net, paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())


def _losses(data, compile_forward=False):
    """The losses of training a fresh `_model` on `data` eagerly: loss.backward(), opt.step(); with
    `compile_forward`, the forward compiled by to_static (the eager tape records one node for it)."""
    net, opt = _model()
    forward = paddle.jit.to_static(net) if compile_forward else net
    losses = []
    for x, y in data:
        loss = paddle.nn.functional.cross_entropy(forward(paddle.to_tensor(x)), paddle.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses


def test_layer_training_step_with_a_compiled_forward_matches_cpu_eager(gpu):
    data = _training_data()
    want = _losses(data)
    with default_device(gpu):
        got = _losses(data, compile_forward=True)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_to_static_training_step_matches_cpu_eager(gpu):
    data = _training_data()
    want = _losses(data)
    with default_device(gpu):
        net, opt = _model()

        @paddle.jit.to_static
        def train_step(x, y):
            loss = paddle.nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            return loss

        got = [float(train_step(paddle.to_tensor(x), paddle.to_tensor(y))) for x, y in data]
    np.testing.assert_allclose(got, want, rtol=1e-5)


def _model_losses(build, data, compiled, steps=3):
    """The losses of `steps` AdamW steps of the Layer `build()` on (x, label) (cross-entropy), eager or, with
    `compiled`, each step under to_static."""
    paddle.seed(0)
    model = build()
    opt = paddle.optimizer.AdamW(learning_rate=1e-4, parameters=model.parameters())

    def step(x, y):
        loss = paddle.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    step = paddle.jit.to_static(step) if compiled else step
    x, y = (paddle.to_tensor(a) for a in data)
    return [float(step(x, y)) for _ in range(steps)]


MODELS = {
    # 3x3 kernels of 256 and 512 channels (their input gradients reverse the kernels: the GPU row of rev)
    "ResNet-18": lambda: paddle.vision.models.resnet18(num_classes=10),
    # dropout's random bits beside a product 4096 wide (the GPU row of threefry2x32)
    "a classifier with dropout": lambda: paddle.nn.Sequential(
        paddle.nn.Flatten(), paddle.nn.Linear(3 * 32 * 32, 4096), paddle.nn.ReLU(), paddle.nn.Dropout(),
        paddle.nn.Linear(4096, 10)),
}


@pytest.mark.parametrize("name", MODELS)
def test_paddle_model_training_steps_match_cpu_eager(gpu, name):
    rng = np.random.default_rng(2)
    # a batch of 8: over 2 images ResNet's last batch norms (1 x 1 positions) are too ill-conditioned to compare
    data = (rng.standard_normal((8, 3, 32, 32)).astype("float32"), rng.integers(0, 10, 8).astype("int64"))
    want = _model_losses(MODELS[name], data, compiled=False)
    with default_device(gpu):
        got = _model_losses(MODELS[name], data, compiled=True)
    np.testing.assert_allclose(got, want, rtol=1e-3)
