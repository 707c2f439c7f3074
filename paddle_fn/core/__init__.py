"""paddle_fn.core: dtypes, IR, the interpreter stack, autodiff and batching machinery. Depends on numpy,
ml_dtypes and optree only."""
