"""Record Paddle 3.3.1's public signatures for tests/test_paddle_signatures.py.

Run from /tmp with Paddle on the path (never from the test suite):
    cd /tmp && PYTHONPATH=/tmp/peers/lib/python3.11/site-packages python3 /path/to/tests/data/gen_paddle_signatures.py
It rewrites paddle_signatures.json.gz next to this file: for each public callable of NAMESPACES (a class: its
constructor; ``paddle.Tensor``: its methods, without ``self``), the parameters as ``[name, kind]`` or
``[name, kind, default]``, where kind is one of ``KINDS`` and default is the ``repr`` of a literal default (None,
bool, numbers, strings, tuples and lists of them) or ``0`` for a default that is not a literal. Callables whose
signature Python cannot read (C functions) are left out.
"""
import ast
import gzip
import importlib
import inspect
import json
import math
import pathlib
import warnings

OUT = pathlib.Path(__file__).resolve().parent / "paddle_signatures.json.gz"
NAMESPACES = ["paddle", "paddle.Tensor", "paddle.nn", "paddle.nn.functional", "paddle.linalg", "paddle.optimizer",
              "paddle.optimizer.lr", "paddle.io", "paddle.metric", "paddle.vision.ops", "paddle.vision.transforms",
              "paddle.distribution", "paddle.sparse", "paddle.incubate.autograd", "paddle.autograd", "paddle.amp",
              "paddle.static.InputSpec", "paddle.jit"]
KINDS = {inspect.Parameter.POSITIONAL_ONLY: "p", inspect.Parameter.POSITIONAL_OR_KEYWORD: "pk",
         inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.KEYWORD_ONLY: "k",
         inspect.Parameter.VAR_KEYWORD: "**"}


def literal_repr(value):
    """The repr of `value` when it is a literal that ``ast.literal_eval`` gives back equal, else None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    text = repr(value)
    try:
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return text if back == value and type(back) is type(value) else None


def parameters(sig, drop_first):
    params = list(sig.parameters.values())
    if drop_first and params and params[0].kind in (inspect.Parameter.POSITIONAL_ONLY,
                                                    inspect.Parameter.POSITIONAL_OR_KEYWORD):
        params = params[1:]
    out = []
    for p in params:
        entry = [p.name, KINDS[p.kind]]
        if p.default is not inspect.Parameter.empty:
            text = literal_repr(p.default)
            entry.append(0 if text is None else text)
        out.append(entry)
    return out


def signature_of(obj):
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


def public_names(namespace, obj):
    if namespace == "paddle.Tensor":
        return sorted(n for n in dir(obj) if not n.startswith("_"))
    return sorted(getattr(obj, "__all__", None) or [n for n in dir(obj) if not n.startswith("_")])


def record_namespace(namespace, records):
    module, _, attr = namespace.rpartition(".")
    if attr == "InputSpec":  # one class of paddle.static
        obj = importlib.import_module(module).InputSpec
        sig = signature_of(obj)
        if sig is not None:
            records[namespace] = parameters(sig, drop_first=False)
        return
    owner = importlib.import_module("paddle").Tensor if namespace == "paddle.Tensor" else \
        importlib.import_module(namespace)
    for name in public_names(namespace, owner):
        if namespace == "paddle.Tensor":
            raw = inspect.getattr_static(owner, name, None)
            if isinstance(raw, (property, staticmethod, classmethod)) or not callable(raw):
                continue
            sig = signature_of(raw)
            if sig is not None:
                records[f"{namespace}.{name}"] = parameters(sig, drop_first=True)
            continue
        value = getattr(owner, name, None)
        if value is None or inspect.ismodule(value) or not callable(value):
            continue
        sig = signature_of(value)
        if sig is not None:
            records[f"{namespace}.{name}"] = parameters(sig, drop_first=False)


def main():
    warnings.simplefilter("ignore")
    import paddle
    records = {}
    for namespace in NAMESPACES:
        record_namespace(namespace, records)
    payload = {"paddle": paddle.__version__, "kinds": {v: str(k) for k, v in KINDS.items()}, "signatures": records}
    with gzip.open(OUT, "wt", encoding="utf-8") as f:
        json.dump(payload, f, separators=(",", ":"), sort_keys=True)
    print(f"{len(records)} signatures of Paddle {paddle.__version__} -> {OUT}")


if __name__ == "__main__":
    main()
