"""paddle_fn.runtime: compile StableHLO text with IREE, cache it on disk, run it on devices.

Real compiles cost 0.3-0.8 s each, so one multi-function module compiled once serves the numerics tests, and the
cache tests replace the compiler with one that hands back those bytes.
"""
import math
import os
import subprocess
import sys
import threading
import time

import ml_dtypes
import numpy as np
import pytest

import paddle_fn as pf
import paddle_fn.runtime as runtime
from paddle_fn.runtime import compiler, device as device_module, disk_cache, executable as executable_module

MODULE = """module {
  func.func @add_f32(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.add %a, %b : tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
  func.func @add_f64(%a: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<3xf64> {
    %0 = stablehlo.add %a, %b : tensor<3xf64>
    return %0 : tensor<3xf64>
  }
  func.func @mul_i64(%a: tensor<2xi64>, %b: tensor<2xi64>) -> tensor<2xi64> {
    %0 = stablehlo.multiply %a, %b : tensor<2xi64>
    return %0 : tensor<2xi64>
  }
  func.func @not_bool(%a: tensor<3xi1>) -> tensor<3xi1> {
    %0 = stablehlo.not %a : tensor<3xi1>
    return %0 : tensor<3xi1>
  }
  func.func @add_bf16(%a: tensor<3xbf16>, %b: tensor<3xbf16>) -> tensor<3xbf16> {
    %0 = stablehlo.add %a, %b : tensor<3xbf16>
    return %0 : tensor<3xbf16>
  }
  func.func @scalar_f64(%a: tensor<f64>, %b: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
    %0 = stablehlo.multiply %a, %b : tensor<f64>
    %1 = stablehlo.subtract %a, %b : tensor<f64>
    return %0, %1 : tensor<f64>, tensor<f64>
  }
}
"""


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """The shared module, compiled once into a fresh cache directory."""
    directory = str(tmp_path_factory.mktemp("iree_cache"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PADDLE_FN_CACHE_DIR", directory)
        patch.delenv("PADDLE_FN_DISK_CACHE", raising=False)
        artifact = runtime.compile_stablehlo(MODULE)
    return artifact, directory


@pytest.fixture
def cpu():
    return runtime.default_device()


def load(compiled, function, device=None):
    return runtime.load_executable(compiled[0], device or runtime.default_device(), function)


@pytest.fixture
def fake_compiler(monkeypatch, compiled):
    """Replace the iree-compile call with one that returns the shared module's bytes and records each call."""
    calls = []

    def run(text, target, flags):
        calls.append(flags)
        return compiled[0].vmfb
    monkeypatch.setattr(compiler, "_run_compiler", run)
    return calls


# ---- numerics -------------------------------------------------------------------------------------------------

def test_f32_matches_numpy_for_any_input_layout(compiled):
    exe = load(compiled, "add_f32")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(6, dtype=np.float32).reshape(3, 2).T  # not C-contiguous
    (out,) = exe(a, b)
    assert out.shape == (2, 3) and out.dtype == np.float32 and out.nbytes == 24
    np.testing.assert_array_equal(out.to_numpy(), a + b)
    assert (exe.num_inputs, exe.num_outputs) == (2, 1)


def test_f64_is_exact(compiled):
    assert compiled[0].flags[:len(runtime.STANDARD_FLAGS)] == runtime.STANDARD_FLAGS
    (out,) = load(compiled, "add_f64")(np.ones(3), np.full(3, 1e-12))
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out.to_numpy(), np.ones(3) + 1e-12)
    assert out.to_numpy()[0] != 1.0


def test_int64_bool_bf16(compiled):
    big = np.array([2 ** 40, -3], np.int64)
    (product,) = load(compiled, "mul_i64")(big, np.array([3, 5], np.int64))
    assert product.dtype == np.int64
    np.testing.assert_array_equal(product.to_numpy(), big * [3, 5])

    (negated,) = load(compiled, "not_bool")(np.array([True, False, True]))
    assert negated.dtype == np.bool_
    np.testing.assert_array_equal(negated.to_numpy(), [False, True, False])

    halves = np.array([1.5, -2.25, 3.0], ml_dtypes.bfloat16)
    (total,) = load(compiled, "add_bf16")(halves, halves)
    assert total.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(total.to_numpy(), halves + halves)


def test_zero_dimensional_inputs_and_outputs(compiled):
    exe = load(compiled, "scalar_f64")
    assert exe.num_outputs == 2
    product, difference = exe(np.array(3.0), np.float64(0.5))
    assert product.shape == () and difference.shape == ()
    assert product.to_numpy().shape == () and float(product.to_numpy()) == 1.5
    assert float(np.asarray(difference)) == 2.5


def test_device_arrays_chain_without_host_round_trip(compiled, cpu):
    exe = load(compiled, "add_f32")
    x = runtime.device_put(np.ones((2, 3), np.float32), cpu)
    (y,) = exe(x, x)
    (z,) = exe(y, x)
    np.testing.assert_array_equal(z.to_numpy(), np.full((2, 3), 3.0, np.float32))


def test_result_shapes_and_dtypes_read_from_the_declaration_match_the_buffers(compiled):
    """Results carry the shape and dtype declared by the compiled function (no per-call query of the buffer);
    they must be what the buffers hold."""
    calls = {"add_f32": (np.ones((2, 3), np.float32),) * 2, "mul_i64": (np.ones(2, np.int64),) * 2,
             "not_bool": (np.ones(3, bool),), "add_bf16": (np.ones(3, ml_dtypes.bfloat16),) * 2,
             "scalar_f64": (np.array(1.0), np.array(2.0))}
    for name, args in calls.items():
        for out in load(compiled, name)(*args):
            declared = (out.shape, out.dtype)
            view = out.buffer_view
            assert declared == (tuple(view.shape), device_module.dtype_of(view.element_type)), name
    assert executable_module._result_types(
        "sync func @main(%input0: tensor<4xf32>) -> (%output0: tensor<?x3xf32>, %output1: !hal.buffer_view, "
        "%output2: tensor<2xcomplex<f32>>, %output3: tensor<1x2xi8> {iree.abi.encoding = tensor<1x2xui8>}, "
        "%output4: tensor<5xi32> {iree.abi.encoding = tensor<5xui32>})") == [
        (0, None, None), (1, None, None), (2, (2,), np.dtype(np.complex64)), (3, (1, 2), np.dtype(np.uint8)),
        (4, (5,), np.dtype(np.uint32))]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint32])
def test_unsigned_results_keep_their_dtype_and_values(dtype):
    # IREE's ABI passes them as signless integers, naming the unsigned type in an encoding attribute
    big = np.array([np.iinfo(dtype).max, np.iinfo(dtype).max - 1, 0, 1], dtype=dtype)
    out = pf.jit(lambda x: x + 0)(pf.to_tensor(big)).numpy()
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, big)


def test_each_call_returns_its_own_results(compiled):
    """The executable reuses one results list; the arrays it returned earlier keep their values."""
    exe = load(compiled, "scalar_f64")
    first = exe(np.array(3.0), np.array(1.0))
    second = exe(np.array(5.0), np.array(2.0))
    assert [float(a.to_numpy()) for a in first + second] == [3.0, 2.0, 10.0, 3.0]


def test_device_put_before_any_program_is_loaded(compiled):
    """An array made before the first executable (in a fresh process) is a valid program input: its VM reference
    needs the VM instance's type registry, which device_put must create."""
    script = ("import numpy as np, paddle_fn.runtime as r\n"
              "x = r.device_put(np.ones((2, 3), np.float32))\n"
              "exe = r.load_executable(r.compile_stablehlo(open(0).read()), r.default_device(), 'add_f32')\n"
              "print(exe(x, x)[0].to_numpy().sum())\n")
    env = dict(os.environ, PADDLE_FN_CACHE_DIR=compiled[1])
    done = subprocess.run([sys.executable, "-c", script], input=MODULE, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "12.0"


EXIT_SCRIPT = """
import numpy as np
import paddle_fn as pf
rng = np.random.default_rng(0)
params = [{"W": (rng.normal(size=(256, 512)) * 0.05).astype(np.float32), "b": np.zeros(512, np.float32)},
          {"W": (rng.normal(size=(512, 10)) * 0.05).astype(np.float32), "b": np.zeros(10, np.float32)}]
x = pf.to_tensor(rng.normal(size=(64, 256)).astype(np.float32))
y = pf.to_tensor(np.eye(10, dtype=np.float32)[rng.integers(0, 10, 64)])

def loss(params, x, y):
    h = pf.relu(pf.matmul(x, params[0]["W"]) + params[0]["b"])
    return -pf.mean(pf.sum(y * pf.log_softmax(pf.matmul(h, params[1]["W"]) + params[1]["b"], axis=-1), axis=-1))

@pf.jit
def step(params, x, y):
    value, grads = pf.value_and_grad(loss)(params, x, y)
    return pf.tree_map(lambda p, g: p - 0.01 * g, params, grads), value

params, value = step(pf.device_put(pf.tree_map(pf.to_tensor, params)), x, y)
print(float(value), np.median([1.0]))
"""


def test_a_script_exits_cleanly_with_device_results_in_its_globals(compiled):
    """Module teardown at exit frees a script's globals in an order of its own; results read back through a
    mapping of a device buffer must not outlive their device there (this script crashed with SIGSEGV at exit)."""
    env = dict(os.environ, PADDLE_FN_CACHE_DIR=compiled[1])
    done = subprocess.run([sys.executable, "-c", EXIT_SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert float(done.stdout.split()[0]) > 0


def test_to_numpy_is_read_only_and_outlives_the_device_array(compiled):
    (out,) = load(compiled, "add_f64")(np.ones(3), np.ones(3))
    host = out.to_numpy()
    assert not host.flags.writeable
    del out
    np.testing.assert_array_equal(host, [2.0, 2.0, 2.0])


def test_the_staging_reader_reuses_its_buffer_and_grows_it(cpu):
    """The read-back path of device-only (GPU) memory, exercised on a CPU device's queue: one staging buffer per
    device, reused by reads that fit and replaced by a larger one for a larger read; concurrent reads stay right."""
    reader = device_module.StagingReader(cpu.hal_device)

    def device_buffer(values):
        return runtime.device_put(values, cpu).buffer_view.get_buffer()

    small = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(reader.read(device_buffer(small), (8,), small.dtype), small)
    first = reader.buffer
    again = reader.read(device_buffer(small * 2), (2, 4), small.dtype)
    assert reader.buffer is first  # no new allocation for a read that fits
    np.testing.assert_array_equal(again, (small * 2).reshape(2, 4))
    large = np.arange(1 << 15, dtype=np.float64)  # 256 KiB: more than the first buffer
    np.testing.assert_array_equal(reader.read(device_buffer(large), large.shape, large.dtype), large)
    assert reader.buffer is not first
    results = {}

    def read(k):
        values = np.full(1000, k, np.int32)
        results[k] = reader.read(device_buffer(values), values.shape, values.dtype)

    threads = [threading.Thread(target=read, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(8):
        np.testing.assert_array_equal(results[k], np.full(1000, k, np.int32))


def test_wrong_arity_and_wrong_dtype_name_the_signature(compiled):
    exe = load(compiled, "add_f64")
    with pytest.raises(TypeError, match="takes 2 arguments"):
        exe(np.ones(3))
    with pytest.raises(RuntimeError, match="tensor<3xf64>"):
        exe(np.ones(3, np.float32), np.ones(3, np.float32))
    with pytest.raises(ValueError, match="no function 'missing'"):
        load(compiled, "missing")


# ---- disk cache -----------------------------------------------------------------------------------------------

def test_second_compile_is_a_disk_cache_hit(compiled, monkeypatch):
    artifact, directory = compiled
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", directory)
    again = runtime.compile_stablehlo(MODULE)
    assert not artifact.from_cache and again.from_cache
    assert again.vmfb == artifact.vmfb and again.key == artifact.key and again.flags == artifact.flags
    assert compiler.cache_key(MODULE, artifact.flags + ("--iree-opt-level=O1",), "llvm-cpu") != artifact.key


def test_disk_cache_can_be_switched_off(compiled, monkeypatch, fake_compiler):
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", compiled[1])
    monkeypatch.setenv("PADDLE_FN_DISK_CACHE", "0")
    assert not runtime.compile_stablehlo(MODULE).from_cache
    assert len(fake_compiler) == 1


@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_corrupt_entry_is_deleted_and_recompiled(compiled, tmp_path, monkeypatch, fake_compiler, damage):
    artifact, directory = compiled
    entry = disk_cache.entry_path(str(tmp_path), artifact.key)
    data = bytearray(open(disk_cache.entry_path(directory, artifact.key), "rb").read())
    if damage == "flip":
        data[len(data) // 2] ^= 0xFF
    else:
        data = data[:len(data) // 2]
    open(entry, "wb").write(bytes(data))
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(tmp_path))
    messages = []
    recompiled = runtime.compile_stablehlo(MODULE, log=messages.append)
    assert not recompiled.from_cache and len(fake_compiler) == 1
    assert any("corrupt" in message for message in messages)
    assert runtime.compile_stablehlo(MODULE).from_cache  # the entry was rewritten whole
    (out,) = runtime.load_executable(recompiled, runtime.default_device(), "add_f64")(np.ones(3), np.ones(3))
    np.testing.assert_array_equal(out.to_numpy(), [2.0, 2.0, 2.0])


def test_unwritable_cache_dir_is_tolerated(tmp_path, monkeypatch, fake_compiler):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(blocker / "cache"))
    messages = []
    artifact = runtime.compile_stablehlo(MODULE, log=messages.append)
    assert not artifact.from_cache and artifact.vmfb
    assert any("cannot write" in message for message in messages)


def test_data_tiling_failure_retries_without_it(compiled, tmp_path, monkeypatch):
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(tmp_path))
    attempts = []

    def run(text, target, flags):
        attempts.append(flags)
        if compiler.DATA_TILING_FLAG in flags:
            raise compiler._CompilerFailure("<stdin>:3:5: error: 'vector.store' op write affecting operations ...")
        return compiled[0].vmfb
    monkeypatch.setattr(compiler, "_run_compiler", run)
    messages = []
    artifact = runtime.compile_stablehlo(MODULE, log=messages.append)
    assert len(attempts) == 2 and artifact.retried_without_data_tiling
    assert compiler.DATA_TILING_FLAG not in artifact.flags
    assert any("without data tiling" in message for message in messages)
    cached = runtime.compile_stablehlo(MODULE)
    assert cached.from_cache and cached.retried_without_data_tiling and cached.flags == artifact.flags


# ---- compile errors and targets -------------------------------------------------------------------------------

def test_invalid_stablehlo_raises_compile_error_with_diagnostics_and_saved_module(tmp_path, monkeypatch):
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(tmp_path))
    text = MODULE.replace("stablehlo.not", "stablehlo.no_such_op")
    with pytest.raises(runtime.CompileError) as caught:
        runtime.compile_stablehlo(text)
    message = str(caught.value)
    assert "error" in message and "no_such_op" in message
    path = caught.value.mlir_path
    assert path.startswith(str(tmp_path / "failed")) and path in message
    assert open(path).read() == text


def test_float64_libm_functions_link_and_are_exact(cpu):
    if not compiler._system_linker_available():
        pytest.skip("no system linker (ld/cc): IREE's embedded linker cannot resolve libm's float64 sin")
    text = """module { func.func @main(%a: tensor<3xf64>) -> tensor<3xf64> {
      %0 = stablehlo.sine %a : tensor<3xf64>
      return %0 : tensor<3xf64> } }"""
    messages = []
    artifact = runtime.compile_stablehlo(text, use_disk_cache=False, log=messages.append)
    assert compiler.SYSTEM_LINKER_FLAG in artifact.flags and messages
    x = np.array([0.1, 1.0, 1e5])
    np.testing.assert_array_equal(runtime.load_executable(artifact, cpu)(x)[0].to_numpy(), np.sin(x))


def test_cross_compile_for_cuda_without_a_gpu(cpu):
    text = """module { func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
      %0 = stablehlo.add %a, %a : tensor<4xf32>
      return %0 : tensor<4xf32> } }"""
    artifact = runtime.compile_stablehlo(text, target="cuda", use_disk_cache=False)
    assert isinstance(artifact.vmfb, bytes) and len(artifact.vmfb) > 1000
    assert "--iree-cuda-target=sm_80" in artifact.flags and "--iree-llvmcpu-target-cpu=host" not in artifact.flags
    with pytest.raises(ValueError, match="compiled for target 'cuda'"):
        runtime.load_executable(artifact, cpu)


def test_large_programs_compile_with_larger_matmul_tiles(monkeypatch):
    seen = []
    real = executable_module.compile_stablehlo

    def recording(text, **kwargs):
        seen.append(kwargs["extra_flags"])
        return real(text, **kwargs)
    monkeypatch.setattr(executable_module, "compile_stablehlo", recording)
    for n in (8, 700):  # 700^3 multiply-adds is above LARGE_WORK
        a = pf.ones([n, n])
        pf.jit(lambda a: pf.matmul(a, a) + 1.0)(a)
    assert seen == [(), compiler.LARGE_PROGRAM_FLAGS]


def test_modules_whose_products_data_tiling_cannot_speed_up_compile_without_it():
    def product(dtype, lhs="4x3"):
        return (f"%2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0] : (tensor<{lhs}x{dtype}>, "
                f"tensor<3x5x{dtype}>) -> tensor<4x5x{dtype}>")

    tiled = compiler.DATA_TILING_FLAG
    assert tiled not in compiler.module_flags(product("f64"), "llvm-cpu")  # no float64 microkernel
    assert tiled not in compiler.module_flags(product("f32", lhs="3"), "llvm-cpu")  # a vector times a matrix
    assert tiled in compiler.module_flags(product("f32"), "llvm-cpu")
    assert tiled in compiler.module_flags(product("f64") + "\n" + product("f32"), "llvm-cpu")  # one f32 product
    assert tiled in compiler.module_flags("%1 = stablehlo.add %0, %0 : tensor<4xf64>", "llvm-cpu")  # no product
    forced = compiler.module_flags(product("f64"), "llvm-cpu", (f"{tiled}=true",))
    assert f"{tiled}=true" in forced  # the caller's choice stands
    assert compiler.module_flags(product("f64"), "cuda") == compiler.resolve_flags("cuda")
    # a jitted float64 product: its dispatches are the product alone, no packing around it
    x = pf.to_tensor(np.eye(64))
    found = pf.jit(lambda a, b: a @ b).lower(x, x).dispatches()
    assert len(found) == 1 and "matmul" in found.names[0]


def test_flags_per_target_and_overrides():
    assert runtime.STANDARD_FLAGS == ("--iree-llvmcpu-target-cpu=host", "--iree-dispatch-creation-data-tiling",
                                      "--iree-llvmcpu-enable-ukernels=all", "--iree-input-demote-f64-to-f32=false",
                                      "--iree-opt-const-eval=false")
    assert compiler.flags_for_work("llvm-cpu", compiler.LARGE_WORK) == compiler.LARGE_PROGRAM_FLAGS
    assert compiler.flags_for_work("llvm-cpu", compiler.LARGE_WORK - 1) == ()
    assert compiler.flags_for_work("cuda", math.inf) == ()
    assert not any("opt-level" in flag for flag in runtime.STANDARD_FLAGS)
    cuda = compiler.resolve_flags("cuda", ("--iree-cuda-target=sm_86",))
    assert "--iree-cuda-target=sm_86" in cuda and "--iree-cuda-target=sm_80" not in cuda
    assert compiler.resolve_flags("rocm")[0] == "--iree-rocm-target=gfx942"
    with pytest.raises(ValueError, match="unknown IREE target"):
        compiler.resolve_flags("tpu")
    assert runtime.host_cpu() == runtime.host_cpu() and runtime.iree_version().startswith("3.13")


@pytest.fixture
def iree_flags_env(monkeypatch):
    """iree_flags_env(value) sets $PADDLE_FN_IREE_FLAGS and reads it again; unset and read again after the test."""
    def set_flags(value):
        monkeypatch.setenv(compiler.IREE_FLAGS_ENV, value)
        return runtime.reload_iree_flags()
    yield set_flags
    monkeypatch.delenv(compiler.IREE_FLAGS_ENV, raising=False)
    runtime.reload_iree_flags()


def test_iree_flags_from_the_environment_join_every_compile_and_its_cache_key(iree_flags_env):
    im2col = "--iree-global-opt-use-im2col-for-convs"
    x, w = pf.ones([1, 4, 10, 10]), pf.ones([8, 4, 3, 3])
    conv = pf.jit(lambda x, w: pf.nn.functional.conv2d(x, w))
    text = conv.lower(x, w).as_text()
    plain = compiler.resolve_flags("llvm-cpu")
    assert any("_conv_" in name for name in conv.lower(x, w).dispatches().names)
    assert iree_flags_env(f"{im2col} '--iree-opt-const-eval=true'") == (im2col, "--iree-opt-const-eval=true")
    flags = compiler.resolve_flags("llvm-cpu")
    assert im2col in flags and "--iree-opt-const-eval=true" in flags and "--iree-opt-const-eval=false" not in flags
    assert compiler.resolve_flags("llvm-cpu", ("--iree-opt-const-eval=false",))[-1] == "--iree-opt-const-eval=false"
    assert im2col in compiler.resolve_flags("cuda")
    assert compiler.cache_key(text, flags, "llvm-cpu") != compiler.cache_key(text, plain, "llvm-cpu")
    # the flag reaches IREE: the convolution becomes an im2col gather and a product
    names = conv.lower(x, w).dispatches().names
    assert not any("_conv_" in name for name in names) and any("_matmul_" in name for name in names), names
    # and a jitted call compiles with it, beside the same program compiled without it earlier
    want = pf.nn.functional.conv2d(x, w).numpy()
    np.testing.assert_allclose(conv(x, w).numpy(), want)
    iree_flags_env("")
    np.testing.assert_allclose(conv(x, w).numpy(), want)
    assert compiler.resolve_flags("llvm-cpu") == plain


def test_iree_flags_from_the_environment_are_checked(iree_flags_env):
    with pytest.raises(ValueError, match="not an IREE compiler flag: write each as --name=value"):
        iree_flags_env("iree-global-opt-use-im2col-for-convs")
    with pytest.raises(ValueError, match=r"\$PADDLE_FN_CPU_TARGET, not by this variable"):
        iree_flags_env("--iree-llvmcpu-target-cpu=x86-64-v3")
    with pytest.raises(ValueError, match=r"the device \(jit\(device=...\)\)"):
        iree_flags_env("--iree-hal-target-backends=cuda")
    iree_flags_env("--iree-no-such-flag=1")
    with pytest.raises(runtime.CompileError, match=r"The flags include \$PADDLE_FN_IREE_FLAGS's: --iree-no-such"):
        runtime.compile_stablehlo("func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
                                  "  %y = stablehlo.add %x, %x : tensor<3xf32>\n  return %y : tensor<3xf32>\n}",
                                  use_disk_cache=False)


# ---- devices --------------------------------------------------------------------------------------------------

def test_one_cpu_device_by_default():
    found = runtime.devices("cpu")
    assert found and found[0].platform == "cpu" and repr(found[0]) == "CpuDevice(id=0)"
    assert runtime.default_device() is runtime.devices()[0]
    assert {found[0]: 1}[found[0]] == 1
    assert runtime.devices("cuda") == [] or runtime.gpu_available()


@pytest.fixture
def three_cpu_devices(monkeypatch):
    monkeypatch.setenv("PADDLE_FN_NUM_CPU_DEVICES", "3")
    device_module._forget_devices()
    yield runtime.devices("cpu")
    monkeypatch.undo()
    device_module._forget_devices()


def test_virtual_cpu_devices_run_programs_and_share_buffers(compiled, three_cpu_devices):
    first, _, last = three_cpu_devices
    assert [device.id for device in three_cpu_devices] == [0, 1, 2]
    assert first.hal_device is not last.hal_device
    x = runtime.device_put(np.arange(3.0), first)
    (y,) = load(compiled, "add_f64", last)(x, x)  # a buffer of another CPU device is used in place
    assert y.device is last
    np.testing.assert_array_equal(y.to_numpy(), [0.0, 2.0, 4.0])
    moved = runtime.copy_to(y, first)
    assert moved.device is first and runtime.copy_to(moved, first) is moved
    np.testing.assert_array_equal(moved.to_numpy(), y.to_numpy())


def _iree_workers() -> int:
    names = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as comm:
                names.append(comm.read().strip())
        except OSError:  # the thread ended meanwhile
            pass
    return sum(name.startswith("iree-worker") for name in names)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads through Linux's /proc")
def test_virtual_cpu_devices_split_the_cores(monkeypatch):
    monkeypatch.setenv("PADDLE_FN_NUM_CPU_DEVICES", "3")  # 3: more devices than this 2-core host's shared pool
    device_module._forget_devices()
    try:
        before = _iree_workers()
        for device in runtime.devices("cpu"):
            device.hal_device  # noqa: B018 - creating it starts its worker pool
        per_device = max(1, len(os.sched_getaffinity(0)) // 3)
        deadline = time.monotonic() + 5
        while _iree_workers() - before < 3 * per_device and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _iree_workers() - before == 3 * per_device  # each its own pool, the cores split among them
    finally:
        monkeypatch.undo()
        device_module._forget_devices()


def test_local_sync_driver_on_request(compiled, monkeypatch):
    monkeypatch.setenv("PADDLE_FN_CPU_DRIVER", "local-sync")
    device_module._forget_devices()
    try:
        (device,) = runtime.devices()
        assert device.driver == "local-sync"
        (out,) = load(compiled, "add_f64", device)(np.ones(3), np.ones(3))
        np.testing.assert_array_equal(out.to_numpy(), [2.0, 2.0, 2.0])
    finally:
        monkeypatch.undo()
        device_module._forget_devices()


def test_one_executable_called_from_many_threads(compiled):
    exe = load(compiled, "add_f64")
    failures = []

    def work(offset):
        for step in range(50):
            x = np.full(3, float(offset * 1000 + step))
            if not np.array_equal(exe(x, x)[0].to_numpy(), 2 * x):
                failures.append((offset, step))
    threads = [threading.Thread(target=work, args=(offset,)) for offset in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures


def test_set_cpu_threads_after_first_device_is_refused(cpu):
    cpu.hal_device
    with pytest.raises(RuntimeError, match="before the first CPU device"):
        runtime.set_cpu_threads(1)


def test_cache_dir_respects_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("PADDLE_FN_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert runtime.cache_dir() == os.path.join(str(tmp_path), "paddle_fn", "iree")


def test_a_compiler_that_stops_using_cpu_time_is_stopped_and_reported():
    # IREE 3.13 once deadlocked (every thread waiting on a futex); the watchdog turns that into a failure the
    # fallback flags can follow, instead of a call that never returns
    started = time.monotonic()
    with pytest.raises(compiler._CompilerFailure, match="no CPU time"):
        compiler._run_watched([sys.executable, "-c", "import sys, time; sys.stdin.read(); time.sleep(60)"], b"x",
                              stall_seconds=1.5)
    assert time.monotonic() - started < 20
    with pytest.raises(compiler._CompilerFailure, match="bad input"):
        compiler._run_watched([sys.executable, "-c", "import sys; sys.exit('bad input')"], b"", stall_seconds=5)
    busy = "import sys, time\nt = time.process_time()\nwhile time.process_time() - t < 3: pass\nprint('done')"
    assert compiler._run_watched([sys.executable, "-c", busy], b"", stall_seconds=1.0).strip() == b"done"


# --------------------------------------------------------------------------- waiting for the CPU worker threads

needs_sched = pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="scheduling policies are Linux's")


class _RecordingContext:
    """A VmContext stand-in whose invoke notes the calling thread's scheduling policy (or raises)."""

    def __init__(self, error=None):
        self.seen, self.error = [], error

    def invoke(self, function, inputs, results):
        self.seen.append(os.sched_getscheduler(0))
        if self.error is not None:
            raise self.error


def _policies_around_invoke(error=None, own_policy=None):
    """(the policies invoke saw, the policy after the call) of invoke_without_preempting, in a new thread (a policy
    change there leaves the test runner's threads alone) that first takes `own_policy` if given."""
    out = []

    def run():
        if own_policy is not None:
            os.sched_setscheduler(0, own_policy, os.sched_param(0))
        context = _RecordingContext(error)
        try:
            executable_module.invoke_without_preempting(context, None, None, None)
        except RuntimeError as raised:
            assert raised is error
        out.append((context.seen, os.sched_getscheduler(0)))
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return out[0]


@needs_sched
def test_waiting_caller_holds_sched_batch_and_gets_its_policy_back():
    assert _policies_around_invoke() == ([os.SCHED_BATCH], os.SCHED_OTHER)


@needs_sched
def test_a_failed_invoke_also_gives_the_policy_back():
    assert _policies_around_invoke(error=RuntimeError("IREE said no")) == ([os.SCHED_BATCH], os.SCHED_OTHER)


@needs_sched
def test_a_thread_with_its_own_policy_is_left_alone():
    assert _policies_around_invoke(own_policy=os.SCHED_IDLE) == ([os.SCHED_IDLE], os.SCHED_IDLE)


@needs_sched
def test_a_sandbox_refusing_policy_changes_still_runs_the_program(monkeypatch):
    def refuse(*args):
        raise PermissionError("sched_setscheduler: not permitted")
    monkeypatch.setattr(os, "sched_setscheduler", refuse)
    monkeypatch.setattr(executable_module, "_defer_wakeups", True)
    context = _RecordingContext()
    executable_module.invoke_without_preempting(context, None, None, None)
    assert context.seen == [os.SCHED_OTHER] and executable_module._defer_wakeups is False


def test_only_calls_waiting_for_worker_threads_switch_policy(compiled, monkeypatch):
    """A local-task executable waits through invoke_without_preempting; a local-sync one runs on the caller and
    invokes directly; results are right either way."""
    used = []
    real = executable_module.invoke_without_preempting
    monkeypatch.setattr(executable_module, "invoke_without_preempting",
                        lambda *args: used.append(True) or real(*args))
    a, b = np.ones((2, 3), np.float32), np.full((2, 3), 2.0, np.float32)
    task = runtime.default_device()
    assert task.driver == "local-task"
    np.testing.assert_array_equal(load(compiled, "add_f32", task)(a, b)[0].to_numpy(), a + b)
    assert used == [True]
    np.testing.assert_array_equal(load(compiled, "add_f32", runtime.inline_cpu_device(task))(a, b)[0].to_numpy(),
                                  a + b)
    assert used == [True]
