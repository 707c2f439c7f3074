"""Exception classes users meet; each message says what went wrong and how to fix it."""


class PaddleFnError(Exception):
    """Base class of paddle_fn's own errors."""


class ShapeError(PaddleFnError, ValueError):
    """Operands with incompatible shapes were passed to an op (raised at trace time)."""


class DTypeError(PaddleFnError, TypeError):
    """Operands with unsupported or mismatched dtypes were passed to an op (raised at trace time)."""


class ConcretizationError(PaddleFnError, TypeError):
    """A traced value was converted to a Python bool/int/float where only its shape and dtype are known."""


class EscapedTracerError(PaddleFnError, RuntimeError):
    """A traced value was used after the transform that created it had finished."""


class TransformError(PaddleFnError, ValueError):
    """A transform was applied to a function or arguments it does not accept."""


class UnsupportedError(PaddleFnError, NotImplementedError):
    """A primitive does not support a transform; the message says what to use instead."""


class CheckError(PaddleFnError, RuntimeError):
    """A runtime check failed: one a checked ``jit`` compiled into its program, or an eager NaN/Inf check under
    FLAGS_check_nan_inf. The message names the op, the check and the user's line that staged the op."""


class IndexCheckError(CheckError, IndexError):
    """An index check of a checked ``jit`` failed: a start index out of range (eagerly, an IndexError)."""
