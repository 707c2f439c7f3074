"""Smoke runs of benchmarks/bench_models.py and bench_conv.py (no peers needed; numbers are not judged): the
scripts run, paddle_fn's compiled values agree with its eager ones, and both lowerings of a convolution agree."""
import json
import pathlib
import subprocess
import sys

BENCHMARKS = pathlib.Path(__file__).resolve().parents[1] / "benchmarks"


def _run(script, *args):
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True,
                          timeout=600, cwd=BENCHMARKS)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def test_bench_models_quick_run_of_one_class(tmp_path):
    out = tmp_path / "models.json"
    _run("bench_models.py", "--quick", "--only", "chain", "--skip-cold", "--json", str(out))
    chain = json.loads(out.read_text())["classes"]["chain"]
    assert chain["agree"] is True
    assert {"paddle_fn jit", "paddle_fn eager"} <= set(chain["step"])


def test_bench_conv_checks_both_lowerings_of_a_convolution(tmp_path):
    out = tmp_path / "conv.json"
    printed = _run("bench_conv.py", "--reps", "1", "--only", "ds_1x1s2/(fwd|wgrad)", "--json", str(out))
    rows = json.loads(out.read_text())["rows"]
    assert [(r["op"], r["form"]) for r in rows] == [("fwd", "tap_dots"), ("wgrad", "positions_dots")]
    assert "tap_dots" in printed


def test_bench_conv_times_forced_forms_in_code_for_another_cpu(tmp_path):
    out = tmp_path / "conv.json"
    printed = _run("bench_conv.py", "--reps", "1", "--only", "c64_3x3/fwd", "--cpu", "x86-64-v3", "--forms",
                   "filter_barrier", "--json", str(out))
    (row,) = json.loads(out.read_text())["rows"]
    assert row["form"] == "im2col" and {"generic", "cpu", "filter_barrier"} <= set(row)
    assert "code for x86-64-v3" in printed


def test_bench_wait_times_both_ways_of_waiting():
    printed = _run("bench_wait.py", "--only", "chain", "--reps", "4")
    rows = [line for line in printed.splitlines() if line.startswith("| chain |")]
    assert [row.split(" | ")[1] for row in rows] == ["SCHED_BATCH while waiting", "IREE's wait as it is"]
    assert all(row.split(" | ")[2] == "4" for row in rows)


def test_dispatch_times_lists_every_dispatch_function_of_a_class():
    printed = _run("dispatch_times.py", "chain", "--repetitions", "1", "--top", "100")
    header, *rest = printed.splitlines()
    assert header.startswith("chain: ") and "21 dispatches of" in header
    rows = [line.split(" | ") for line in rest if line.startswith("| ") and not line.startswith("| dispatch |")]
    assert len(rows) == int(header.rsplit(" of ", 1)[1].split()[0])
    assert sum(int(row[2]) for row in rows) == 21
    times = [float(row[1]) for row in rows]
    assert times == sorted(times, reverse=True) and times[0] > 0
