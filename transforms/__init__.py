"""paddle_fn.transforms"""
if __name__ != "paddle_fn.transforms":
    raise ImportError("import this package as paddle_fn.transforms, not as a top-level module")
