"""paddle_fn.runtime"""
if __name__ != "paddle_fn.runtime":
    raise ImportError("import this package as paddle_fn.runtime, not as a top-level module")
