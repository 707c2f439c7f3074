"""IR -> StableHLO text. Imports only paddle_fn.core; never iree (that is paddle_fn.runtime's job)."""
if __name__ != "paddle_fn.lowering":
    raise ImportError("import this package as paddle_fn.lowering, not as a top-level module")

from paddle_fn.lowering.emitter import (  # noqa: E402,F401
    FuncLowering, Target, constant_text, element_type, i64_array, tensor_type)
from paddle_fn.lowering.program import lower_program  # noqa: E402,F401
