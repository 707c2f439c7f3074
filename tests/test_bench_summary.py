"""benchmarks/bench_summary.py's table and chart, built from fixed measurements (no benchmark runs here)."""
import importlib.util
import pathlib
import sys

import pytest

BENCHMARKS = pathlib.Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))  # as when the script runs: it reads bench_eager's rows
_SPEC = importlib.util.spec_from_file_location("bench_summary", BENCHMARKS / "bench_summary.py")
bench_summary = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench_summary)
bench_eager = sys.modules["bench_eager"]

MS = 1e-3
JIT = {
    "versions": {"python": "3.11.7", "jax": "0.10.2", "torch": None},
    "mlp": {"paddle_fn jit": [15 * MS, 12 * MS], "jax jit": [12 * MS, 9 * MS], "torch eager": [10 * MS, 9 * MS],
            "paddlepaddle eager": [40 * MS, 39 * MS], "numpy by hand": [11 * MS, 10 * MS],
            "paddle_fn jit, local-sync": [16 * MS, 15 * MS]},
    "vmap": {"hessian, n=64, float64": {"paddle_fn jit": [0.1 * MS, 0.09 * MS], "jax jit": [0.2 * MS, 0.1 * MS],
                                        "paddlepaddle eager": [20 * MS, 19 * MS]}},
    "matmul": {"n": 2048, "times": {"paddle_fn jit(matmul)": [0.2, 0.19], "numpy (OpenBLAS)": [0.1, 0.09]}},
    "first_call": {"784-1024-512-10": {"cold": 4.4, "warm": 0.05, "import": 0.2, "jax_cold": 1.6},
                   "32-64-10": {"cold": 2.2, "warm": 0.037, "import": 0.2, "jax_cold": 0.5}},
    "memory": {"calls": 10000, "calls_rss_bytes": 2.5 * 2 ** 20, "calls_objects": -20, "closures": 300,
               "kept": 23, "bound": 32},
}
EAGER = {"rows": {"x + y f32[8]": {"paddle_fn": [5e-6, 4e-6], "torch": [2e-6, 2e-6]},
                  "large MLP functional step": {"paddle_fn": [30 * MS, 28 * MS], "jax": [45 * MS, 40 * MS]},
                  "large MLP Layer step": {"paddle_fn": [19 * MS, 18 * MS], "paddle": [36 * MS, 35 * MS]}}}
IMPORTS = {"numpy_s": 0.12, "paddle_fn_s": 0.57, "ready_s": 0.6, "ratio": 4.75}


def rows_by_name():
    return {row["workload"]: row for row in bench_summary.build_rows(JIT, EAGER, IMPORTS)}


def test_every_row_of_the_issue_is_built_in_order():
    names = list(rows_by_name())
    assert len(names) == 19 + len(bench_eager.OPS)
    assert [n for n in names if n.startswith("eager") and "MLP" not in n] == [f"eager {op}" for op in bench_eager.OPS]
    assert names[0].startswith("jit MLP") and names[-1].startswith("executables kept")
    assert [n for n in names if "hessian" in n] == ["jit hessian n=256, float64", "jit hessian n=64, float64",
                                                   "jit hessian n=256, float32", "jit hessian n=64, float32"]


def test_ratios_and_verdicts_follow_each_rows_target():
    rows = rows_by_name()
    mlp = rows["jit MLP 784-1024-512-10 training step, batch 128"]
    assert bench_summary.ratios(mlp) == pytest.approx({"JAX": 1.25, "torch": 1.5, "Paddle": 0.375, "numpy": 15 / 11})
    assert bench_summary.verdict(mlp) is False
    assert bench_summary.verdict(rows["jit hessian n=64, float64"]) is True
    assert bench_summary.verdict(rows["jit matmul 2048^2 float32"]) is False  # 50% of numpy's GFLOP/s
    assert bench_summary.verdict(rows["eager x + y f32[8]"]) is False  # 2.5x torch, target 2x
    assert bench_summary.verdict(rows["import paddle_fn (numpy: import numpy)"]) is False  # 4.75x numpy
    assert bench_summary.verdict(rows["memory over 10,000 jitted calls"]) is False  # +2.5 MiB
    assert bench_summary.verdict(rows["executables kept by 300 dead jit closures"]) is True
    assert bench_summary.verdict(rows["jit hessian n=256, float32"]) is None  # not measured


def test_paddles_functional_step_is_its_dygraph_layer_step():
    functional = rows_by_name()["eager MLP 784-1024-512-10 step, functional value_and_grad (no jit)"]
    assert functional["values"]["Paddle"] == 36 * MS and functional["values"]["JAX"] == 45 * MS
    assert bench_summary.verdict(functional) is True


def test_markdown_names_the_fastest_peer_and_marks_missing_values():
    table = bench_summary.markdown(bench_summary.build_rows(JIT, EAGER, IMPORTS), ["## header"])
    mlp_line = next(line for line in table.splitlines() if line.startswith("| jit MLP"))
    assert "| 15 ms | 12 ms | 10 ms | 40 ms | 11 ms | 1.50 (torch) | 1.25 |" in mlp_line
    assert mlp_line.endswith("| <= 1.0x JAX | **NOT MET** |")
    matmul_line = next(line for line in table.splitlines() if line.startswith("| jit matmul"))
    assert "| 86 GFLOP/s | — |" in matmul_line and "| 172 GFLOP/s |" in matmul_line
    assert "| +2.50 MiB, -20 objects |" in table


def test_without_any_measurement_every_row_is_empty_and_unjudged():
    rows = bench_summary.build_rows({}, {}, {})
    assert len(rows) == 17 + len(bench_eager.OPS)  # the memory rows need bench_jit's numbers
    assert all(bench_summary.verdict(row) is None for row in rows)
    assert "**NOT MET**" not in bench_summary.markdown(rows, [])


def test_plot_writes_a_png_or_says_why_not(tmp_path, capsys):
    path = tmp_path / "ratios.png"
    written = bench_summary.plot(bench_summary.build_rows(JIT, EAGER, IMPORTS), str(path), "title")
    if importlib.util.find_spec("matplotlib") is None:  # not a dependency of the project: the table still comes
        assert written is False and not path.exists()
        assert "matplotlib is not installed" in capsys.readouterr().err
    else:
        assert written and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
