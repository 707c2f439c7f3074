"""Dynamic-to-static conversion (Paddle's ``paddle.jit.dy2static``): `to_static` rewrites the source of user
functions so that Python ``if``/``while``/``for``/``break``/``continue``/``return``/``and``/``or``/``not`` and
``print`` on Tensors become paddle_fn's control-flow primitives when traced (`ast_transformer` rewrites,
`convert_operators` decides at run time, `program_translator` converts and caches functions)."""
from paddle_fn.nn_compat.jit.dy2static.convert_operators import UndefinedVar  # noqa: F401
from paddle_fn.nn_compat.jit.dy2static.program_translator import (  # noqa: F401
    convert_function, converted_source, set_code_level, set_verbosity)
