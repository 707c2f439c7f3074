"""Paddle 3.3.1's own docstring examples, rerun with ``import paddle`` meaning paddle_fn.

`benchmarks/paddle_docstring_examples.py record` ran the ``>>>`` examples of every public name of thirteen Paddle
namespaces with the real Paddle (paddlepaddle 3.3.1 from PyPI, CPU) and stored each example's source and printed
output in tests/data/paddle_docstring_examples.json.gz; Paddle is never needed here. This test runs them all
(`run`, in a subprocess and a scratch folder: examples change global state and write files) and holds two
things: every docstring listed in tests/data/paddle_docstring_matches.txt still prints Paddle's output (a
regression names the docstring), and the share of runnable docstrings that do stays at or above MIN_MATCH_SHARE.
When more of them match, add them to the list (the failure message of the first test prints the command).
"""
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
HARNESS = ROOT / "benchmarks" / "paddle_docstring_examples.py"
RECORDED = ROOT / "tests" / "data" / "paddle_docstring_examples.json.gz"
EXPECTED = ROOT / "tests" / "data" / "paddle_docstring_matches.txt"
MIN_MATCH_SHARE = 0.97


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    scratch = tmp_path_factory.mktemp("paddle_examples")
    out = scratch / "results.json"
    done = subprocess.run([sys.executable, str(HARNESS), "run", str(RECORDED), "--results", str(out)], cwd=scratch,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


def test_every_recorded_match_still_prints_paddles_output(results):
    expected = EXPECTED.read_text().split()
    lost = {name: results.get(name, "not run") for name in expected if results.get(name) != "match"}
    assert not lost, (f"{len(lost)} Paddle docstring examples no longer print Paddle's output: {lost}. Rerun them "
                      f"with: cd /tmp && python {HARNESS.relative_to(ROOT)} run {RECORDED.relative_to(ROOT)} "
                      f"--failures 50")


def test_share_of_docstrings_printing_paddles_output(results):
    matches = sum(result == "match" for result in results.values())
    assert len(results) >= 800  # every runnable docstring of the recording was run
    assert matches / len(results) >= MIN_MATCH_SHARE, f"{matches} of {len(results)} match"
