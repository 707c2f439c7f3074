"""paddle_fn.nn_compat"""
if __name__ != "paddle_fn.nn_compat":
    raise ImportError("import this package as paddle_fn.nn_compat, not as a top-level module")

# paddle.nn is both the functional ops and these Layers (the cycle tests/test_layering.py allows), and
# paddle_fn/nn/__init__.py star-imports the Layers once its functional module is complete. Entered through a Layer
# first (paddle_fn.io, .hapi, .vision load on first use, in any order), that star import would copy a half-made
# namespace, so every import of nn_compat starts with paddle.nn's own order.
import paddle_fn.nn.functional  # noqa: E402,F401
