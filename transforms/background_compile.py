"""Compiling in the background: a jitted function's first calls run its program op by op while IREE compiles it.

IREE takes 1-4 s to compile a training step (docs/architecture.md, "What the lowering relies on in IREE"), several
times XLA's compile, and most of it is code generation that no flag shortens. A program that is neither loaded nor
in the disk cache is therefore compiled in a background thread (the compiler is a subprocess, so the thread holds
no GIL), and until the executable is ready each call evaluates the program already traced with the primitives'
eager implementations: what paddle_fn computes without jit, from the same program, so Python side effects still
happen once, at trace time. The first call of a step then costs about one eager step instead of a compile, and
the calls after the compile run the executable. Results agree with the compiled ones as eager results do (to
float rounding; docs/jit.md).

Not every program is worth running op by op while it compiles: a `while_loop` may iterate without bound and a
long scan evaluates its body once per step in Python. Those compile before their first call returns, as does
everything when ``paddle_fn.config.jit_background_compile`` is False (PADDLE_FN_BACKGROUND_COMPILE=0), and
``jit(f).lower(x).compile()`` always. A compile that fails in the background warns once and leaves the function
running op by op, with correct results; the same program compiled in the foreground raises the CompileError.
"""
from __future__ import annotations

import atexit
import concurrent.futures
import queue
import threading
import warnings

from paddle_fn.core import hooks
from paddle_fn.core.ir import sub_programs

# Programs that evaluate more equations than this in one call compile before it returns: at some tens of
# microseconds per equation in Python, running them op by op could take longer than compiling.
EQUATION_BUDGET = 20_000

_LOCK = threading.Lock()


class _Compiler:
    """One daemon thread running compiles in order. One at a time: IREE's code generation already uses both cores
    of a small machine, and the first-called function's compile comes first. A daemon, unlike a thread pool's
    workers, does not keep a finished script waiting at exit for the compiles it no longer needs: at exit the
    queued ones are cancelled and only the one running is waited for. Left running, it could be inside IREE's
    runtime bindings when the interpreter finalizes, and a thread unwound by force through their C++ frames aborts
    the process ("FATAL: exception not rethrown"); finished, it leaves its executable in the disk cache."""

    def __init__(self):
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = None
        self._starting = threading.Lock()
        self.unfinished = 0  # jobs submitted and not done; changed under _starting
        self._running = None  # the future of the job being run

    def submit(self, fn, *args, **kwargs) -> concurrent.futures.Future:
        future = concurrent.futures.Future()
        with self._starting:
            self.unfinished += 1
            self._jobs.put((future, fn, args, kwargs))
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="paddle_fn-compile", daemon=True)
                self._thread.start()
        return future

    def _work(self):
        while True:
            future, fn, args, kwargs = self._jobs.get()
            with self._starting:
                if not future.set_running_or_notify_cancel():
                    self.unfinished -= 1
                    continue
                self._running = future
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as error:  # noqa: BLE001 - handed to the caller that waits on the future
                future.set_exception(error)
            finally:
                with self._starting:
                    self.unfinished -= 1
                    self._running = None

    def finish_at_exit(self):
        """Cancel the queued compiles and wait for the one running (see the class's docstring)."""
        with self._starting:
            while True:
                try:
                    future = self._jobs.get_nowait()[0]
                except queue.Empty:
                    break
                future.cancel()
                self.unfinished -= 1
            running = self._running
        if running is not None:
            concurrent.futures.wait([running])


_COMPILER = _Compiler()
atexit.register(_COMPILER.finish_at_exit)


class _Failed:
    """A background compile that raised: the function runs op by op from then on."""
    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


def equations_evaluated(program, budget: float = EQUATION_BUDGET) -> float:
    """How many equations one call of `program` evaluates op by op (a scan's body once per step, both branches of
    a cond); infinity for a primitive marked `slow_op_by_op` (a while loop). Stops counting past
    `budget`."""
    total = 0.0
    for eqn in program.eqns:
        if eqn.prim.slow_op_by_op:
            return float("inf")
        inner = sum(equations_evaluated(p, budget) for p in sub_programs(eqn))
        total += 1 + inner * eqn.params.get("length", 1)  # a loop's trip count, as core.ir.work_estimate reads it
        if total > budget:
            break
    return total


def worth_running_op_by_op(program) -> bool:
    """Whether `program` may run op by op while it compiles: no while loop, at most EQUATION_BUDGET equations."""
    return equations_evaluated(program) <= EQUATION_BUDGET


def executable_or_none(pending: dict, slot, load, name: str):
    """The executable `load(cached_only)` returns for `slot`, when it is loaded or in the disk cache (fetched now)
    or compiled by an earlier call's background compile; else None, after starting that compile if it is not
    running. `pending` (slot -> Future) belongs to the program."""
    future = pending.get(slot)
    if future is None:
        exe = load(cached_only=True)
        if exe is not None:
            return exe
        with _LOCK:
            if slot not in pending:
                pending[slot] = _COMPILER.submit(load, cached_only=False)
        return None
    if isinstance(future, _Failed) or not future.done():
        return None
    try:
        return future.result()
    except Exception as error:  # noqa: BLE001 - any compile failure leaves the function running op by op
        pending[slot] = _Failed(error)
        warnings.warn(f"jit({name}): compiling in the background failed; the function keeps running op by op "
                      f"(correct, slower). Compile it in the foreground to see the error: "
                      f"jit(f).lower(*args).compile(). The error: {error}", RuntimeWarning, stacklevel=4)
        return None


def wait_for_background_compiles(timeout: float | None = None) -> None:
    """Block until the compiles started in the background so far have finished (for benchmarks and tests).
    ``Tensor.block_until_ready()`` and ``paddle_fn.block_until_ready(tree)`` call it, so a benchmark that warms a
    function up with them, as JAX benchmarks do, times the executable afterwards.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.transforms.background_compile import wait_for_background_compiles
        >>> _ = paddle.jit(lambda x: x * 2.0)(paddle.ones([3]))
        >>> wait_for_background_compiles()
    """
    if _COMPILER.unfinished:
        _COMPILER.submit(lambda: None).result(timeout)


hooks.register(wait_for_background_compiles=wait_for_background_compiles)
