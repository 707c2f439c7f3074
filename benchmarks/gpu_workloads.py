"""The workloads of the GPU check (benchmarks/gpu_check.py): paddle_fn on the CUDA device beside JAX and torch on
the same GPU, each workload a function of `prepare` returning a dict of what it measured.

With `prepare` (on a CPU host, with the stand-in CUDA device of $PADDLE_FN_STAND_IN_GPU) a workload only compiles:
every paddle_fn program it would run is lowered and compiled for CUDA into the disk cache
(`jit(f).lower(*args).compile()`: the program a call with those arguments runs) and nothing is timed. Timings are
medians (and minima) of calls that each wait for their result, after two warm-up calls, for up to TIME_PER_CONTENDER
seconds or MAX_REPS calls. The models are bench_models.py's (conv, attention) and bench_eager.py's MLP loss, written
once over each framework's ops.
"""
from __future__ import annotations

import os
import time
from functools import partial

import numpy as np

import gpu_check
from bench_eager import functional_loss
from bench_jit import jax, pf, torch
from bench_models import (Functional, TorchTrainer, attention_data, attention_loss, conv_data, conv_loss, grad_step,
                          jax_ops, paddle_ops, wait)

TIME_PER_CONTENDER, MAX_REPS = 3.0, 50
PRECISIONS = ("float32", "bf16x3", "bfloat16")
# the peers' precision settings: JAX's default float32 product on an H100 uses TF32 tensor cores, "highest" is
# exact float32, BF16_BF16_F32_X3 is bf16x3's three bfloat16 products; torch's strict float32 has TF32 off for
# products and convolutions
JAX_PRECISIONS = ("default", "highest", "BF16_BF16_F32_X3")
TORCH_TF32 = {"strict f32": False, "tf32": True}


# `gpu_check.py rehearse` (on a CPU host, the stand-in device evaluating each program op by op): one call, no warm-up
REHEARSAL = os.environ.get(gpu_check.REHEARSAL) == "1"


def timed(call, seconds=TIME_PER_CONTENDER, reps=MAX_REPS) -> dict:
    """{"median_ms", "min_ms", "reps"} of `call()` (which waits for its result), after two warm-up calls."""
    if REHEARSAL:
        reps = 1
    else:
        call()
        call()
    times, stop = [], time.perf_counter() + seconds
    while len(times) < reps and (len(times) < min(3, reps) or time.perf_counter() < stop):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return {"median_ms": float(np.median(times)) * 1e3, "min_ms": float(np.min(times)) * 1e3, "reps": len(times)}


def report_contender(contender: str, result: dict):
    """Called with each contender's result as soon as it is measured; the workloads child (gpu_check.py) writes it
    down, so that a workload stopped at its time limit keeps what it measured before."""


def _attempt(results: dict, name: str, measure):
    """results[name] = measure(), or the error it raised: one contender failing leaves the others measured."""
    try:
        results[name] = measure()
    except Exception as error:  # noqa: BLE001 - recorded in the check's JSON, the run goes on
        results[name] = {"error": f"{type(error).__name__}: {str(error)[:1500]}"}
    report_contender(name, results[name])


def _set_torch_tf32(allowed: bool):
    torch.backends.cuda.matmul.allow_tf32 = allowed
    torch.backends.cudnn.allow_tf32 = allowed


def training_step(loss, params, data, precisions=("float32", "bf16x3"), *, prepare: bool, peers: bool = True
                  ) -> dict:
    """One SGD step of `loss(o, params, *data)` (parameters fed back): paddle_fn jit on the GPU at each matmul
    precision, and with `peers` JAX jit at each of its precisions and torch eager strict-f32 and TF32; the first loss
    of each."""
    results = {}
    o = paddle_ops(pf)
    step = grad_step(partial(loss, o), o, True)
    for precision in precisions:
        def paddle_fn(precision=precision):
            contender = Functional(pf.jit(step, matmul_precision=precision), params, data, pf.device_put, True)
            if prepare:
                contender.fn.lower(contender.params, *contender.data).compile()
                return {"compiled": True}
            first = wait(contender.step())
            return {"first_loss": first, **timed(contender.step)}
        _attempt(results, f"paddle_fn {precision}", paddle_fn)
    if prepare or not peers:
        return results
    if jax is not None:
        for precision in JAX_PRECISIONS:
            def jax_jit(precision=precision):
                with jax.default_matmul_precision(precision):
                    jo = jax_ops()
                    contender = Functional(jax.jit(grad_step(partial(loss, jo), jo, True)), params, data,
                                           jax.device_put, True, sync=jax.block_until_ready)
                    first = wait(contender.step())
                    return {"first_loss": first, **timed(contender.step)}
            _attempt(results, f"jax {precision}", jax_jit)
    if torch is not None and torch.cuda.is_available():
        from bench_models import torch_ops
        for name, tf32 in TORCH_TF32.items():
            def torch_eager(tf32=tf32):
                _set_torch_tf32(tf32)
                contender = TorchTrainer(partial(loss, torch_ops()), params, data, True, False, device="cuda")
                first = wait(contender.step())
                return {"first_loss": first, **timed(contender.step)}
            _attempt(results, f"torch {name}", torch_eager)
        torch.cuda.empty_cache()
    return results


def _mlp(sizes, batch, seed=0):
    rng = np.random.default_rng(seed)
    params = [{"W": (rng.normal(size=(n_in, n_out)) * np.sqrt(2.0 / n_in)).astype(np.float32),
               "b": np.zeros(n_out, np.float32)} for n_in, n_out in zip(sizes[:-1], sizes[1:])]
    x = rng.normal(size=(batch, sizes[0])).astype(np.float32)
    y = np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], batch)]
    return params, (x, y)


def _mlp_loss(o, params, x, y):
    return functional_loss(o.matmul, o.relu, o.log_softmax)(params, x, y)


def mlp_small(*, prepare, peers=True):
    params, data = _mlp((784, 1024, 512, 10), 128)
    return training_step(_mlp_loss, params, data, ("float32",), prepare=prepare, peers=peers)


def mlp_big(*, prepare, peers=True, precisions=("float32", "bf16x3")):
    params, data = _mlp((4096, 4096, 4096, 10), 4096)
    return training_step(_mlp_loss, params, data, precisions, prepare=prepare, peers=peers)


def conv_step(*, prepare, peers=True, precisions=("float32", "bf16x3")):
    params, data = conv_data(np.random.default_rng(0), batch=64)
    return training_step(conv_loss, params, data, precisions, prepare=prepare, peers=peers)


def transformer_step(*, prepare, peers=True, precisions=("float32", "bf16x3")):
    params, data = attention_data(np.random.default_rng(0), batch=16, seq=512, d=512)
    return training_step(attention_loss, params, data, precisions, prepare=prepare, peers=peers)


MATMUL_N, ERROR_BLOCK = 8192, 64


def matmul_8192(*, prepare):
    """C = A @ B of MATMUL_N^2 float32 at each precision: the time of a product read back through a 64 x 64 block
    (which waits for it) and that block's largest error relative to float64, against its largest element."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((MATMUL_N, MATMUL_N), dtype=np.float32)
    b = rng.standard_normal((MATMUL_N, MATMUL_N), dtype=np.float32)
    exact = a[:ERROR_BLOCK].astype(np.float64) @ b[:, :ERROR_BLOCK].astype(np.float64)
    flops = 2.0 * MATMUL_N ** 3

    def summary(block, timing):
        error = float(np.abs(np.asarray(block, np.float64) - exact).max() / np.abs(exact).max())
        return {**timing, "tflops": flops / timing["median_ms"] / 1e9, "relative_error": error}
    results = {}
    corner = pf.jit(lambda c: c[:ERROR_BLOCK, :ERROR_BLOCK])
    A, B = pf.device_put(pf.to_tensor(a)), pf.device_put(pf.to_tensor(b))
    for precision in PRECISIONS:
        def paddle_fn(precision=precision):
            product = pf.jit(pf.matmul, matmul_precision=precision)
            if prepare:
                product.lower(A, B).compile()
                corner.lower(pf.device_put(pf.zeros([MATMUL_N, MATMUL_N], "float32"))).compile()
                return {"compiled": True}
            return summary(corner(product(A, B)).numpy(), timed(lambda: corner(product(A, B)).numpy(), reps=10))
        _attempt(results, f"paddle_fn {precision}", paddle_fn)
    if prepare:
        return results
    if jax is not None:
        ja, jb = jax.device_put(a), jax.device_put(b)
        for precision in JAX_PRECISIONS:
            def jax_jit(precision=precision):
                with jax.default_matmul_precision(precision):
                    # the block is cut from the product outside the jitted function: inside, XLA would slice the
                    # operands instead and compute only the block
                    product = jax.jit(lambda x, y: x @ y)
                    return summary(np.asarray(product(ja, jb)[:ERROR_BLOCK, :ERROR_BLOCK]),
                                   timed(lambda: product(ja, jb).block_until_ready(), reps=10))
            _attempt(results, f"jax {precision}", jax_jit)
    if torch is not None and torch.cuda.is_available():
        ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
        for name, tf32 in TORCH_TF32.items():
            def torch_matmul(tf32=tf32):
                _set_torch_tf32(tf32)

                def call():
                    return (ta @ tb)[:ERROR_BLOCK, :ERROR_BLOCK].cpu().numpy()
                return summary(call(), timed(call, reps=10))
            _attempt(results, f"torch {name}", torch_matmul)
        del ta, tb
        torch.cuda.empty_cache()
    return results


def readback_ways(device) -> dict:
    """{name: read(DeviceArray) -> numpy array} for each way the IREE runtime offers to bring a small result from the
    GPU: paddle_fn's own (`to_numpy`: a copy on the device queue into the device's kept staging buffer, a wait, a
    copy out of its mapping; runtime.device.StagingReader), IREE's DeviceArray.to_host (a host buffer imported per
    read), and one numpy array imported once as a device-visible host buffer that the queue copies into."""
    from paddle_fn.runtime._iree import rt
    hal = device.hal_device
    semaphore, copies, imported = hal.create_semaphore(0), [0], {}

    def imported_host_array(array):
        key = (array.shape, array.dtype)
        if key not in imported:
            host = np.empty(array.shape, array.dtype)
            imported[key] = (host, hal.allocator.import_host_allocation(
                host, memory_type=int(rt.MemoryType.HOST_LOCAL | rt.MemoryType.DEVICE_VISIBLE),
                allowed_usage=int(rt.BufferUsage.TRANSFER_TARGET | rt.BufferUsage.MAPPING_SCOPED)))
        host, target = imported[key]
        done = rt.HalFence.create_at(semaphore, copies[0] + 1)
        hal.queue_copy(array.buffer_view.get_buffer(), target,
                       wait_semaphores=rt.HalFence.create_at(semaphore, copies[0]), signal_semaphores=done)
        copies[0] += 1
        done.wait()
        return host.copy()

    return {"to_numpy, the device's kept staging buffer": lambda array: array.to_numpy(),
            "iree DeviceArray.to_host": lambda array: rt.DeviceArray(hal, array.buffer_view).to_host(),
            "imported host array": imported_host_array}


def trivial_call(*, prepare, peers=True):
    """jit(x + 1) on float32[8]: the call alone, and the call with its 8 floats read back, each way the runtime
    offers (readback_ways), to choose the fastest from the numbers; with `peers`, JAX's and torch's."""
    device = pf.devices("cuda")[0]
    x = pf.device_put(pf.to_tensor(np.arange(8, dtype=np.float32)))
    add_one = pf.jit(lambda v: v + 1.0)

    def result_buffer():
        result = add_one(x)
        if result.device_array is None:  # the stand-in device of a rehearsal computed it op by op on the host
            result = pf.device_put(result, device)
        return result.device_array
    if prepare:
        add_one.lower(x).compile()
        return {"paddle_fn call": {"compiled": True}}
    results = {}
    _attempt(results, "paddle_fn call", lambda: timed(lambda: add_one(x), reps=2000))
    for name, read in readback_ways(device).items():
        def call_and_read(read=read):
            got = read(result_buffer())
            np.testing.assert_array_equal(got, np.arange(8, dtype=np.float32) + 1)
            return timed(lambda: read(result_buffer()), reps=2000)
        _attempt(results, f"paddle_fn call + read ({name})", call_and_read)
    if not peers:
        return results
    if jax is not None:
        jx = jax.device_put(np.arange(8, dtype=np.float32))
        jax_add = jax.jit(lambda v: v + 1.0)
        _attempt(results, "jax call", lambda: timed(lambda: jax_add(jx).block_until_ready(), reps=2000))
        _attempt(results, "jax call + read", lambda: timed(lambda: np.asarray(jax_add(jx)), reps=2000))
    if torch is not None and torch.cuda.is_available():
        tx = torch.arange(8, dtype=torch.float32, device="cuda")

        def torch_call():
            y = tx + 1.0
            torch.cuda.synchronize()
            return y
        _attempt(results, "torch call", lambda: timed(torch_call, reps=2000))
        _attempt(results, "torch call + read", lambda: timed(lambda: (tx + 1.0).cpu().numpy(), reps=2000))
    return results
