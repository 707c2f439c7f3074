"""Run Paddle 3.3's own docstring examples with ``import paddle`` meaning paddle_fn, and report per namespace how many
run and how many print what real Paddle prints. Not a test: Paddle is never a dependency of paddle_fn.

Two phases, two interpreters, because both libraries are called ``paddle`` inside the examples:

1. ``record`` (run with an interpreter that has paddlepaddle 3.3.1) collects the docstrings of the public names of
   each namespace below (one object under several names counts once), runs their ``>>>`` examples with the real
   Paddle on CPU and stores each example's source and printed output in a JSON file; a docstring whose examples
   fail there (GPU-only, downloads, ...) is recorded as not runnable;
2. ``run`` (run with paddle_fn's interpreter) executes each runnable docstring's examples in a fresh namespace and
   compares each printed output with the recorded one: the numbers (floats within a relative 1e-5,
   pytest-doctestplus's FLOAT_CMP) and the text around them, with whitespace next to brackets and commas and the
   ``place=Place(...)`` of a Tensor's repr ignored, ``...`` allowed.

Paddle's directives: a docstring with ``+REQUIRES(env:GPU)`` (or XPU, DISTRIBUTED, ...) is skipped; an example
under ``+SKIP`` (random samples, file paths) runs but its output is not compared. A docstring *runs* when every
example runs without an exception, and *matches* when, besides, every compared output matches. Static-graph mode
is out of scope (paddle_fn runs eagerly): a docstring's examples are run up to the first ``paddle.enable_static()``,
and one that starts there counts as static-only, not run. A docstring that
draws random numbers (its code calls rand, normal, dropout, seed, ...) cannot reproduce Paddle's generator: for
it only the shapes and dtypes of the printed Tensors are compared.

    cd /tmp && PYTHONPATH=/tmp/peers/lib/python3.11/site-packages python3 \\
        /work/main/benchmarks/paddle_docstring_examples.py record /tmp/paddle_docs.json
    cd /tmp/scratch && /work/main/.venv/bin/python /work/main/benchmarks/paddle_docstring_examples.py run \\
        /tmp/paddle_docs.json [--failures N]

(run both from a scratch folder: some examples write files.)
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import doctest
import gzip
import importlib
import io
import json
import re
import signal
import warnings

NAMESPACES = ["paddle", "paddle.Tensor", "paddle.nn", "paddle.nn.functional", "paddle.linalg", "paddle.optimizer",
              "paddle.optimizer.lr", "paddle.autograd", "paddle.incubate.autograd", "paddle.io", "paddle.metric",
              "paddle.jit", "paddle.vision.transforms"]
_HARDWARE = re.compile(r"\+REQUIRES\(env\s*:\s*(GPU|XPU|CUSTOM_DEVICE|DISTRIBUTED|IPU|CINN)", re.IGNORECASE)
_DIRECTIVE = re.compile(r"#\s*(x?doctest)\s*:\s*(.*)$")
_TIMEOUT_S = 30
_RANDOM = re.compile(r"\b(rand\w*|uniform\w*|normal\w*|randn\w*|randint\w*|randperm|seed|dropout\w*|bernoulli\w*|"
                     r"multinomial|poisson|standard_gamma|binomial|gumbel_softmax|rrelu|shuffle|sample\w*|"
                     r"exponential_|cauchy_|geometric_|log_normal\w*|empty\w*|normal_|random_)\s*\(")
_STATIC = re.compile(r"\benable_static\s*\(")
_TENSOR_HEADER = re.compile(r"shape=\[[^\]]*\], dtype=[\w.]+")
_PLACE = re.compile(r"place=Place\([^)]*\),\s*")
_AROUND_PUNCTUATION = re.compile(r"\s*([,\[\]()])\s*")


# ---------------------------------------------------------------------------------------------- phase 1

def _public_names(namespace, obj):
    if namespace == "paddle.Tensor":
        return sorted(n for n in dir(obj) if not n.startswith("_"))
    return sorted(getattr(obj, "__all__", None) or [n for n in dir(obj) if not n.startswith("_")])


def _reset_paddle(paddle):
    """Undo what an example may change globally: static mode, the default dtype, the print options, the grad mode
    (``paddle.set_grad_enabled(False)``'s example leaves it off)."""
    paddle.disable_static()
    paddle.set_grad_enabled(True)
    paddle.set_default_dtype("float32")
    paddle.set_printoptions(precision=8, threshold=1000, edgeitems=3, sci_mode=False, linewidth=80)


def record(out_path):
    import paddle  # the real one, from the interpreter this phase runs in
    signal.signal(signal.SIGALRM, _timeout)
    records, seen = [], set()
    for namespace in NAMESPACES:
        parent, _, attr = namespace.rpartition(".")
        obj = (getattr(importlib.import_module(parent), attr) if namespace == "paddle.Tensor"
               else importlib.import_module(namespace))
        for name in _public_names(namespace, obj):
            target = getattr(obj, name, None)
            doc = getattr(target, "__doc__", None)
            if not isinstance(doc, str) or ">>>" not in doc or (id(target), doc) in seen:
                continue
            seen.add((id(target), doc))
            examples, hardware = _examples(doc)
            entry = {"namespace": namespace, "name": name}
            if hardware or not examples:
                entry["skipped"] = "hardware" if hardware else "unparsable"
            else:
                outputs, error = _execute(examples, lambda: _reset_paddle(paddle))
                entry["examples"] = [{"source": e.source, "compare": compare, "output": out}
                                     for (e, compare), out in zip(examples, outputs)]
                if error:
                    entry["skipped"] = f"fails in Paddle: {error}"
            records.append(entry)
    with (gzip.open if out_path.endswith(".gz") else open)(out_path, "wt") as f:
        json.dump({"paddle": paddle.__version__, "records": records}, f)
    print(f"{len(records)} docstrings with examples from paddle {paddle.__version__} -> {out_path}")


# ---------------------------------------------------------------------------------------------- phase 2

def _examples(doc):
    """(examples, hardware-only): Paddle's docstring examples with its directives turned into (example,
    compare-output) pairs."""
    if _HARDWARE.search(doc):
        return [], True
    skipping, cleaned, skip_lines = False, [], set()
    for line in doc.splitlines():
        match = _DIRECTIVE.search(line)
        if match:
            directive = match.group(2)
            body = line[:match.start()].rstrip()
            only_directive = body.strip() in (">>>", "...", "")
            if "+SKIP" in directive:
                if only_directive:
                    skipping = True
                    continue
                skip_lines.add(len(cleaned))
            elif "-SKIP" in directive and only_directive:
                skipping = False
                continue
            line = body
        if skipping and line.lstrip().startswith(">>>"):
            skip_lines.add(len(cleaned))
        cleaned.append(line)
    text = "\n".join(cleaned)
    try:
        parsed = doctest.DocTestParser().get_examples(text)
    except ValueError:
        return None, False
    return [(example, example.lineno not in skip_lines) for example in parsed], False


def _layout_free(text):
    """`text` without the whitespace next to brackets and commas (one trailing newline kept)."""
    return _AROUND_PUNCTUATION.sub(r"\1", _PLACE.sub("", text.strip())) + "\n"


def _timeout(signum, frame):  # raised inside the example that runs too long
    raise TimeoutError(f"example ran longer than {_TIMEOUT_S} s")


def _execute(examples, reset):
    """Run the examples in one fresh namespace: (the printed output of each example run, the first error or
    None); `reset` restores the global state an example may change (the default dtype, static mode) afterwards."""
    namespace = {"__name__": "__main__"}
    outputs = []
    try:
        for example, _ in examples:
            buffer = io.StringIO()
            signal.alarm(_TIMEOUT_S)
            try:
                with contextlib.redirect_stdout(buffer), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    exec(compile(example.source, "<paddle docstring>", "single"), namespace)  # noqa: S102
            except Exception as err:  # noqa: BLE001 - an example's failure of any kind is a result here
                message = str(err).splitlines()[0] if str(err) else ""
                return outputs, f"{type(err).__name__}: {message}"[:160]
            finally:
                signal.alarm(0)
            outputs.append(buffer.getvalue())
        return outputs, None
    finally:
        reset()


def run(json_path, failures, results_path=None):
    """Run the recorded examples (a .json or .json.gz file), print the table; with `results_path`, also write
    {"namespace.name": "match" | "mismatch" | "error: ..."} for every runnable docstring as JSON."""
    from pytest_doctestplus.output_checker import FLOAT_CMP, OutputChecker
    import paddle_fn
    paddle_fn.utils.install_paddle_alias()
    signal.signal(signal.SIGALRM, _timeout)
    checker = OutputChecker()
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS | FLOAT_CMP
    with (gzip.open if json_path.endswith(".gz") else open)(json_path, "rt") as f:
        data = json.load(f)
    table = collections.defaultdict(collections.Counter)
    errors = collections.Counter()
    results = {}
    for entry in data["records"]:
        counts = table[entry["namespace"]]
        if "skipped" in entry:
            counts["skipped"] += 1
            continue
        dynamic = []
        for e in entry["examples"]:
            if _STATIC.search(e["source"]):
                break
            dynamic.append(e)
        if not any(e["source"].strip() and not e["source"].lstrip().startswith("import") for e in dynamic):
            counts["static"] += 1
            continue
        entry = {**entry, "examples": dynamic}
        counts["runnable"] += 1
        examples = [doctest.Example(e["source"], e["output"]) for e in entry["examples"]]
        outputs, error = _execute([(e, True) for e in examples], lambda: _reset_paddle(paddle_fn))
        key = f"{entry['namespace']}.{entry['name']}"
        if error:
            errors[f"error: {error}"] += 1
            results[key] = f"error: {error}"
            continue
        counts["runs"] += 1
        random = any(_RANDOM.search(e["source"]) for e in entry["examples"])
        if all(not e["compare"] or not e["output"] or _same(e["output"], got, random, checker, flags)
               for e, got in zip(entry["examples"], outputs)):
            counts["matches"] += 1
            results[key] = "match"
        else:
            errors[f"mismatch: {key}"] += 1
            results[key] = "mismatch"
    if results_path:
        with open(results_path, "w") as f:
            json.dump(results, f, indent=0, sort_keys=True)
    print(f"Paddle {data['paddle']} docstring examples under paddle_fn {paddle_fn.__version__}\n")
    print("| namespace | docstrings run | run without error | print Paddle's output | not runnable on Paddle's CPU "
          "| static-graph only |")
    print("|---|---|---|---|---|---|")
    total = collections.Counter()
    for namespace in NAMESPACES:
        c = table[namespace]
        total.update(c)
        print(f"| `{namespace}` | {c['runnable']} | {c['runs']} ({_pct(c['runs'], c['runnable'])}) | "
              f"{c['matches']} ({_pct(c['matches'], c['runnable'])}) | {c['skipped']} | {c['static']} |")
    print(f"| all | {total['runnable']} | {total['runs']} ({_pct(total['runs'], total['runnable'])}) | "
          f"{total['matches']} ({_pct(total['matches'], total['runnable'])}) | "
          f"{total['skipped']} | {total['static']} |")
    if failures:
        print(f"\nThe {failures} most frequent failures:")
        for message, count in errors.most_common(failures):
            print(f"{count:4d}  {message}")


def _same(want, got, random, checker, flags):
    """Whether `got` prints what Paddle printed (`want`); for random draws, the same Tensor shapes and dtypes."""
    if random:
        return _TENSOR_HEADER.findall(want) == _TENSOR_HEADER.findall(got)
    return checker.check_output(_layout_free(want), _layout_free(got), flags)


def _pct(part, whole):
    return f"{100 * part / whole:.0f}%" if whole else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="phase", required=True)
    sub.add_parser("record").add_argument("json_path")
    runner = sub.add_parser("run")
    runner.add_argument("json_path")
    runner.add_argument("--failures", type=int, default=0, help="list the N most frequent failures")
    runner.add_argument("--results", help="write each docstring's result (match, mismatch, error) to this JSON")
    args = parser.parse_args()
    if args.phase == "record":
        record(args.json_path)
    else:
        run(args.json_path, args.failures, args.results)


if __name__ == "__main__":
    main()
