"""paddle_fn.nn_compat"""
if __name__ != "paddle_fn.nn_compat":
    raise ImportError("import this package as paddle_fn.nn_compat, not as a top-level module")
