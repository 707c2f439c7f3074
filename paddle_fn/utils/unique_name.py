"""``paddle.utils.unique_name``: unique names for parameters and layers (`generate`, `guard`, `switch`)."""
from paddle_fn.nn_compat.unique_name import UniqueNameGenerator, generate, guard, switch

__all__ = ["UniqueNameGenerator", "generate", "guard", "switch"]
