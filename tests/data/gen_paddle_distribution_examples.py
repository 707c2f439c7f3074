"""Record what Paddle's own docstring examples of paddle.distribution print (tests/test_distribution_examples.py).

Run from /tmp with Paddle on the path (never from the test suite):
    cd /tmp && PYTHONPATH=/tmp/peers/lib/python3.11/site-packages python3 /path/to/tests/data/gen_paddle_distribution_examples.py
It rewrites paddle_distribution_examples.json next to this file. Produced with paddle 3.3.1 (CPU).

Every docstring example of every public class, method, property and function of paddle.distribution and its
modules is split into statements. A statement that prints a value (``print(x)`` or a bare expression) is
recorded as a value: Tensors as shape, dtype and numbers, shapes as lists. Each example runs twice, after
``paddle.seed(1)`` and after ``paddle.seed(2)`` with every ``paddle.seed(n)`` of the example shifted by 7919, and
a value that differs between the runs is marked random: the test compares only its shape and dtype.
"""
import ast
import doctest
import importlib
import inspect
import json
import pathlib
import pkgutil
import re

import numpy as np
import paddle
import paddle.distribution as D


def examples():
    modules = [D] + [importlib.import_module(f"paddle.distribution.{m.name}") for m in pkgutil.iter_modules(D.__path__)]
    seen, found = set(), []

    def visit(qualname, obj):
        if id(obj) in seen:
            return
        seen.add(id(obj))
        doc = obj.__doc__ if isinstance(obj, property) else inspect.getdoc(obj)
        if doc and ">>>" in doc:
            doc = re.sub(r"#\s*doctest:[^\n]*", "", doc)
            found.append((qualname, "".join(e.source for e in doctest.DocTestParser().get_examples(doc))))

    for module in modules:
        for name, obj in vars(module).items():
            if name.startswith("_") or not str(getattr(obj, "__module__", "")).startswith("paddle.distribution"):
                continue
            if inspect.isclass(obj) or inspect.isfunction(obj):
                visit(f"{module.__name__}.{name}", obj)
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") and attr != "__init__":
                        continue
                    member = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
                    if inspect.isfunction(member) or isinstance(member, property):
                        visit(f"{module.__name__}.{name}.{attr}", member)
    return found


def statements(source):
    """The example's top-level statements, each as (source, expression-to-record or None); None if unparsable."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    out = []
    for node in tree.body:
        text = ast.get_source_segment(source, node)
        value = None
        if isinstance(node, ast.Expr):
            call = node.value
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print":
                value = ", ".join(ast.get_source_segment(source, a) for a in call.args)
                value = value if len(call.args) == 1 else f"({value},)"
            else:
                value = text
        out.append((text, value))
    return out


def record(value):
    if isinstance(value, paddle.Tensor):
        return {"shape": list(value.shape), "dtype": str(value.dtype).replace("paddle.", ""),
                "values": np.asarray(value.numpy(), np.float64).ravel().tolist()}
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, np.integer)) for v in value):
        return {"shape_value": [int(v) for v in value]}
    if isinstance(value, tuple):
        return {"items": [record(v) for v in value]}
    if isinstance(value, (int, float)):
        return {"number": float(value)}
    if isinstance(value, (str, bool)) or value is None:
        return {"repr": repr(value)}
    return {"object": type(value).__name__}  # such as the Generator paddle.seed returns: nothing to compare


def run(steps, shift, first_seed):
    real_seed = paddle.seed
    paddle.seed = lambda n: real_seed(n + shift)
    real_seed(first_seed)
    scope, results = {}, []
    try:
        for text, value in steps:
            try:
                if value is None:
                    exec(text, scope)
                    results.append(None)
                else:
                    results.append(record(eval(value, scope)))
            except Exception as exc:  # noqa: BLE001 - an example Paddle itself cannot run is recorded as such
                results.append({"error": type(exc).__name__})
                break
    finally:
        paddle.seed = real_seed
    return results


def differs(a, b):
    if a is not None and b is not None and "items" in a:
        return any(differs(x, y) for x, y in zip(a["items"], b["items"]))
    if a is None or b is None or "values" not in a:
        return a != b
    return a["shape"] != b["shape"] or not np.allclose(a["values"], b["values"], rtol=1e-6, equal_nan=True)


out = []
for qualname, source in examples():
    steps = statements(source)
    if steps is None:
        out.append({"name": qualname, "source": source, "unparsable": True})
        continue
    first, second = run(steps, 0, 1), run(steps, 7919, 2)
    recorded = []
    for (text, value), a, b in zip(steps, first, second):
        entry = {"source": text, "print": value}
        if a is not None:
            entry.update(a, random=differs(a, b))
        recorded.append(entry)
    out.append({"name": qualname, "steps": recorded})
path = pathlib.Path(__file__).parent / "paddle_distribution_examples.json"
path.write_text(json.dumps(out, indent=1) + "\n")
print(len(out), "examples;", sum("unparsable" in e for e in out), "unparsable")
