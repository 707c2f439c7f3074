"""paddle_fn's public signatures against Paddle 3.3.1's.

tests/data/gen_paddle_signatures.py recorded (with real Paddle, run from /tmp) the parameters of every public
callable of eighteen Paddle namespaces in tests/data/paddle_signatures.json.gz. For each recorded name that
paddle_fn has, its signature must:

* accept every Paddle parameter under Paddle's name (a ``**kwargs`` does not count: it would accept a misspelling
  too), positional parameters at Paddle's positions;
* have Paddle's literal default wherever Paddle has one (never require what Paddle lets one leave out);
* require no parameter Paddle does not have, and take ``*args`` where Paddle does.

Deliberate differences are listed in tests/data/paddle_signature_allowlist.txt, one ``name parameter  # reason``
a line (parameter ``*`` for the whole signature); an entry no longer needed fails too, so the list stays true.
``python tests/test_paddle_signatures.py`` prints the differences by namespace.
"""
from __future__ import annotations

import ast
import collections
import gzip
import importlib
import inspect
import json
import pathlib
import sys

import pytest

DATA = pathlib.Path(__file__).resolve().parent / "data"
RECORDED = DATA / "paddle_signatures.json.gz"
ALLOWLIST = DATA / "paddle_signature_allowlist.txt"
NAMESPACES = sorted(["paddle.Tensor", "paddle.nn.functional", "paddle.nn", "paddle.linalg", "paddle.optimizer.lr",
                     "paddle.optimizer", "paddle.io", "paddle.metric", "paddle.vision.ops",
                     "paddle.vision.transforms", "paddle.distribution", "paddle.sparse", "paddle.incubate.autograd",
                     "paddle.autograd", "paddle.amp", "paddle.static", "paddle.jit"], key=len, reverse=True)
_POSITIONAL = ("p", "pk")
_KIND = {inspect.Parameter.POSITIONAL_ONLY: "p", inspect.Parameter.POSITIONAL_OR_KEYWORD: "pk",
         inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.KEYWORD_ONLY: "k",
         inspect.Parameter.VAR_KEYWORD: "**"}
_NOT_LITERAL = object()


def namespace_of(name: str) -> str:
    return next((ns for ns in NAMESPACES if name.startswith(ns + ".")), "paddle")


def paddle_fn_object(name: str):
    """paddle_fn's object for Paddle's dotted `name` (``paddle.Tensor.x``: the method as stored on the class), or
    None when paddle_fn does not have it."""
    namespace = namespace_of(name)
    attr = name[len(namespace) + 1:]
    if namespace == "paddle.Tensor":
        tensor = importlib.import_module("paddle_fn").Tensor
        return inspect.getattr_static(tensor, attr, None)
    try:
        module = importlib.import_module("paddle_fn" + namespace[len("paddle"):])
    except ImportError:
        return None
    return getattr(module, attr, None)


def paddle_fn_parameters(name: str, obj):
    """[(name, kind, default)] of paddle_fn's `obj` as a caller sees it (a method without ``self``); default is
    inspect.Parameter.empty when required."""
    method = namespace_of(name) == "paddle.Tensor"
    if method and isinstance(obj, (staticmethod, classmethod)):
        obj, method = obj.__func__, isinstance(obj, classmethod)
    target = getattr(obj, "deferred_target", None)  # a method forwarding to a namespace that loads on first use
    if target is not None:
        module, _, attribute = target.partition(":")
        obj = getattr(importlib.import_module(module), attribute)
    sig = inspect.signature(obj)
    params = [(p.name, _KIND[p.kind], p.default) for p in sig.parameters.values()]
    if method and params and params[0][1] in _POSITIONAL:
        params = params[1:]
    return params


def _default(entry):
    if len(entry) < 3:
        return inspect.Parameter.empty
    return _NOT_LITERAL if entry[2] == 0 else ast.literal_eval(entry[2])


def _same_default(a, b) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_default(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) != isinstance(b, bool) or isinstance(a, str) != isinstance(b, str):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a default whose == raises (an array) is not Paddle's literal
        return False


def differences(name: str, recorded: list, ours: list) -> list[tuple[str, str]]:
    """[(parameter, what differs)] between Paddle's `recorded` parameters and paddle_fn's `ours`."""
    found = []
    by_name = {p[0]: p for p in ours}
    our_kinds = {p[1] for p in ours}
    paddle_positional = [e[0] for e in recorded if e[1] in _POSITIONAL]
    our_positional = [p[0] for p in ours if p[1] in _POSITIONAL]
    for entry in recorded:
        pname, kind = entry[0], entry[1]
        if kind in ("*", "**"):
            if kind not in our_kinds:
                found.append((pname, f"Paddle takes {kind}{pname}, paddle_fn does not"))
            continue
        mine = by_name.get(pname)
        if mine is None or (mine[1] == "p" and kind != "p"):
            how = "only through **kwargs" if "**" in our_kinds else "missing"
            found.append((pname, f"{how} (Paddle: {kind}{'=' + entry[2] if len(entry) > 2 and entry[2] else ''})"))
            continue
        if kind in _POSITIONAL:
            where = paddle_positional.index(pname)
            if where >= len(our_positional) or our_positional[where] != pname:
                ours_at = our_positional[where] if where < len(our_positional) else "keyword-only"
                found.append((pname, f"positional {where} in Paddle, paddle_fn has {ours_at!r} there"))
        paddle_default, our_default = _default(entry), mine[2]
        if paddle_default is inspect.Parameter.empty:
            continue
        if our_default is inspect.Parameter.empty:
            found.append((pname, f"required in paddle_fn, Paddle's default {entry[2]}"))
        elif paddle_default is not _NOT_LITERAL and not _same_default(paddle_default, our_default):
            found.append((pname, f"default {our_default!r}, Paddle's {entry[2]}"))
    paddle_names = {e[0] for e in recorded}
    for pname, kind, default in ours:
        if pname not in paddle_names and kind not in ("*", "**") and default is inspect.Parameter.empty:
            found.append((pname, "required in paddle_fn, Paddle has no such parameter"))
    return found


def all_differences() -> dict[tuple[str, str], str]:
    recorded = json.loads(gzip.open(RECORDED, "rt", encoding="utf-8").read())["signatures"]
    found = {}
    for name, params in sorted(recorded.items()):
        obj = paddle_fn_object(name)
        if obj is None or not (callable(obj) or isinstance(obj, (staticmethod, classmethod))):
            continue
        try:
            ours = paddle_fn_parameters(name, obj)
        except (TypeError, ValueError):
            found[(name, "*")] = "paddle_fn's signature cannot be read"
            continue
        for pname, what in differences(name, params, ours):
            found[(name, pname)] = f"{found[(name, pname)]}; {what}" if (name, pname) in found else what
    return found


def allowlist() -> dict[tuple[str, str], str]:
    entries = {}
    for line in ALLOWLIST.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        key, _, reason = line.partition("#")
        name, pname = key.split()
        assert reason.strip(), f"allowlist entry without a reason: {line!r}"
        entries[(name, pname)] = reason.strip()
    return entries


@pytest.fixture(scope="module")
def found():
    return all_differences()


def test_the_recording_covers_the_namespaces():
    recorded = json.loads(gzip.open(RECORDED, "rt", encoding="utf-8").read())
    assert recorded["paddle"] == "3.3.1"
    counts = collections.Counter(namespace_of(n) for n in recorded["signatures"])
    assert counts["paddle"] > 400 and counts["paddle.Tensor"] > 400 and counts["paddle.nn"] > 150
    assert set(counts) == set(NAMESPACES) | {"paddle"}


def test_differences_are_found():
    """The comparison itself: each rule reports what it should."""
    empty = inspect.Parameter.empty
    recorded = [["x", "pk"], ["axis", "pk", "None"], ["name", "pk", "None"], ["out", "k", "None"],
                ["kwargs", "**"]]
    assert differences("paddle.f", recorded, [("x", "pk", empty), ("axis", "pk", None), ("name", "pk", None),
                                              ("out", "k", None), ("kwargs", "**", empty)]) == []
    found = differences("paddle.f", recorded, [("x", "pk", empty), ("name", "pk", None), ("axis", "pk", 0),
                                               ("extra", "k", empty), ("kw", "**", empty)])
    messages = {p: "; ".join(what for q, what in found if q == p) for p, _ in found}
    assert set(messages) == {"axis", "name", "out", "extra"}
    assert "only through **kwargs" in messages["out"] and "default 0" in messages["axis"]
    assert "positional 1" in messages["axis"] and "positional 2" in messages["name"]
    assert "no such parameter" in messages["extra"]
    assert dict(differences("paddle.f", [["x", "pk", "1"]], [("x", "k", empty)])).keys() == {"x"}


def test_signatures_match_paddle(found):
    allowed = allowlist()
    unexplained = {f"{n}({p}): {what}" for (n, p), what in found.items()
                   if (n, p) not in allowed and (n, "*") not in allowed}
    assert not unexplained, f"{len(unexplained)} signature differences from Paddle 3.3.1:\n" + \
        "\n".join(sorted(unexplained))


def test_every_allowlist_entry_is_still_needed(found):
    names = {n for n, _ in found}
    stale = [f"{n} {p}" for n, p in allowlist() if ((n, p) not in found if p != "*" else n not in names)]
    assert not stale, f"allowlist entries that match Paddle now (remove them): {stale}"


if __name__ == "__main__":
    differing = all_differences()
    allowed = allowlist() if ALLOWLIST.exists() else {}
    by_namespace = collections.Counter(namespace_of(n) for n, p in differing
                                       if (n, p) not in allowed and (n, "*") not in allowed)
    print(sum(by_namespace.values()), "unexplained differences;", dict(by_namespace.most_common()))
    if "-v" in sys.argv:
        for (n, p), what in sorted(differing.items()):
            if (n, p) not in allowed and (n, "*") not in allowed:
                print(f"{n}({p}): {what}")
