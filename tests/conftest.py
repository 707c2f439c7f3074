import os

# The suite checks compiled code: a jitted function's first call waits for its compile instead of running op by op
# meanwhile (tests/test_background_compile.py turns that on). Set before paddle_fn is imported, and inherited by
# the subprocesses tests start.
os.environ["PADDLE_FN_BACKGROUND_COMPILE"] = "0"

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

import paddle_fn  # noqa: E402
from paddle_fn.runtime import compiler  # noqa: E402
from paddle_fn.runtime import device as device_module  # noqa: E402

settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="module")
def cpus():
    """Four virtual CPU devices (for pmap), for the tests of one module."""
    mp = pytest.MonkeyPatch()
    mp.setenv("PADDLE_FN_NUM_CPU_DEVICES", "4")
    device_module._forget_devices()
    yield paddle_fn.devices("cpu")
    mp.undo()
    device_module._forget_devices()


@pytest.fixture
def compile_for():
    """compile_for(cpu) sets $PADDLE_FN_CPU_TARGET to `cpu` (None unsets it) as a program does after importing
    paddle_fn: the variable, then runtime.reload_cpu_target() (the runtime reads it once, not on every call). The
    variable and the runtime's CPU are restored after the test."""
    before = os.environ.get(compiler.CPU_TARGET_ENV)

    def set_cpu(cpu):
        if cpu is None:
            os.environ.pop(compiler.CPU_TARGET_ENV, None)
        else:
            os.environ[compiler.CPU_TARGET_ENV] = cpu
        compiler.reload_cpu_target()

    yield set_cpu
    set_cpu(before)


@pytest.fixture(scope="session")
def iree_parse():
    """Parse and verify StableHLO text with IREE's MLIR bindings (syntax + op verifiers)."""
    from iree.compiler import ir

    def parse(text):
        with ir.Context() as ctx:
            ctx.allow_unregistered_dialects = False
            module = ir.Module.parse(text)
            assert module.operation.verify()
        return True
    return parse


@pytest.fixture(scope="module")
def without_host_kernels():
    """jit programs compiled in the tests of one module build FFTs and decompositions from IREE's operations
    instead of calling the library routine (lowering/host_calls.py): the forms other targets, and multi-device
    programs, run."""
    saved, paddle_fn.config.jit_host_kernels = paddle_fn.config.jit_host_kernels, False
    yield
    paddle_fn.config.jit_host_kernels = saved
