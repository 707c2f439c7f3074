"""Every row of the speed-target table in one run: paddle_fn against JAX, torch, Paddle and numpy, as ratios to targets.

    PYTHONPATH=/tmp/peers/lib/python3.11/site-packages .venv/bin/python benchmarks/bench_summary.py --out DIR
        [--quick] [--reps N] [--closures N] [--torch-compile]

Runs bench_jit.py (every section), bench_eager.py (the rows `EAGER_ROWS`) and bench_import.py one after another,
each in a subprocess of this interpreter with this environment, so the peers found on PYTHONPATH are the same for
all of them; their output passes through, and each writes its measurements with `--json`. From those this prints a
markdown table (headed by the date, the host CPU and whether it has AVX-512, the versions and the command) with
one row per workload: the median of paddle_fn and of each peer, paddle_fn's time over the fastest peer's and over
JAX's, the issue's target and whether it is met. `--out DIR` also writes summary.md, summary.json (the rows and
the scripts' own JSON) and ratios.png, a bar chart of paddle_fn's time over each peer's (log scale, lines at 1.0
and at each row's target). The chart needs matplotlib, which is not a dependency of the project; without it the
table is still written. A full run takes ~5 minutes on 2 cores, `--quick` (3 repetitions, numbers are noise) ~2.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

from bench_eager import OPS

HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = ("paddle_fn", "JAX", "torch", "Paddle", "numpy")
PEERS = COLUMNS[1:]
EAGER_ROWS = OPS + ("large MLP functional step", "large MLP Layer step")
FIRST_CALL_MLPS = ("784-1024-512-10", "32-64-10")  # bench_jit.FIRST_CALL_MLPS (not imported: it loads the peers)
# bench_jit's contender names per column, for the sections timed with the same contenders
MLP_NAMES = {"paddle_fn": "paddle_fn jit", "JAX": "jax jit", "torch": "torch eager", "Paddle": "paddlepaddle eager",
             "numpy": "numpy by hand"}
VMAP_NAMES = {"paddle_fn": "paddle_fn jit", "JAX": "jax jit", "torch": "torch.func eager",
              "Paddle": "paddlepaddle eager", "numpy": "numpy by hand"}
EAGER_NAMES = {"paddle_fn": "paddle_fn", "JAX": "jax", "torch": "torch", "Paddle": "paddle", "numpy": "numpy"}
NOTES = ("Times are medians (s, ms, us per call; GFLOP/s for the matmul). Ratios are paddle_fn's time over the "
         "peer's: below 1 paddle_fn is faster. In the jit rows torch and Paddle run eagerly (torch.func for the "
         "transforms; torch.compile, with --torch-compile, shows in bench_jit's output only), and numpy is written "
         "by hand (closed forms for the Jacobians and Hessians). Paddle's eager MLP step is its dygraph Layer step, "
         "as it has no functional value_and_grad. The first-call rows time the MLP steps named (batch 128 and 16) "
         "in a fresh process; JAX keeps no disk cache, so both compare with its cold first call.")


# ------------------------------------------------------------------------------------------------ rows

def ratio_target(text: str, against: str, max_ratio: float) -> dict:
    """A target met when paddle_fn's time is at most `max_ratio` times the `against` column's."""
    return {"text": text, "against": against, "max_ratio": max_ratio}


def make_row(workload: str, values: dict, target: dict, unit: str = "s", flops: float | None = None) -> dict:
    """A row: {column: median seconds or None} (columns not given are None), the target, and how to show values:
    unit "s" (times), "GFLOP/s" (times shown as `flops` per second) or "text" (`shown` in the paddle_fn cell)."""
    return {"workload": workload, "unit": unit, "flops": flops, "values": {c: values.get(c) for c in COLUMNS},
            "target": target}


def medians(section: dict | None, names: dict) -> dict:
    """{column: median} from one script's section ({contender: [median, min]}), `names` mapping column -> contender."""
    section = section or {}
    return {col: section[name][0] for col, name in names.items() if name in section}


def build_rows(jit: dict, eager: dict, imports: dict) -> list[dict]:
    """The table's rows from the JSON of bench_jit.py, bench_eager.py and bench_import.py (each may be {}: its
    rows are then empty).

        >>> [row["workload"] for row in build_rows({}, {}, {})][:2]
        ['jit MLP 784-1024-512-10 training step, batch 128', 'jit jacfwd tanh(A@x), R^512 -> R^512']
    """
    vmap = jit.get("vmap", {})
    jax_target = ratio_target("<= 1.0x JAX", "JAX", 1.0)
    rows = [make_row("jit MLP 784-1024-512-10 training step, batch 128", medians(jit.get("mlp"), MLP_NAMES),
                     jax_target)]
    for mode in ("fwd", "rev"):
        rows.append(make_row(f"jit jac{mode} tanh(A@x), R^512 -> R^512",
                             medians(vmap.get(f"jac{mode} tanh(A@x), n=512"), VMAP_NAMES), jax_target))
    for dtype, suffix in (("float64", ", float64"), ("float32", "")):
        for n in (256, 64):
            rows.append(make_row(f"jit hessian n={n}, {dtype}", medians(vmap.get(f"hessian, n={n}{suffix}"),
                                                                        VMAP_NAMES), jax_target))
    rows.append(make_row("jit per-example gradients (vmap(grad)), 256 x MLP 32-64-10",
                         medians(vmap.get("per-example grads, MLP 32-64-10, b=256"), VMAP_NAMES), jax_target))
    matmul = jit.get("matmul", {})
    n = matmul.get("n", 2048)
    rows.append(make_row(f"jit matmul {n}^2 float32",
                         medians(matmul.get("times"), {"paddle_fn": "paddle_fn jit(matmul)", "JAX": "jax jit(matmul)",
                                                       "torch": "torch matmul", "numpy": "numpy (OpenBLAS)"}),
                         ratio_target(">= 90% of numpy's GFLOP/s", "numpy", 1 / 0.9), unit="GFLOP/s",
                         flops=2.0 * n ** 3))
    rows.append(make_row("trivial jitted call x + 1, device-resident f32[4]",
                         medians(jit.get("overhead"), {"paddle_fn": "paddle_fn jit, device-resident",
                                                       "JAX": "jax jit, device-resident",
                                                       "torch": "torch eager x + 1", "numpy": "numpy x + 1"}),
                         jax_target))
    eager_rows = eager.get("rows", {})
    for op in OPS:  # the eager target is for each primitive: every per-op row of bench_eager
        rows.append(make_row(f"eager {op}", medians(eager_rows.get(op), EAGER_NAMES),
                             ratio_target("<= 2.0x torch", "torch", 2.0)))
    paddle_target = ratio_target("<= 1.0x Paddle dygraph", "Paddle", 1.0)
    layer_step = medians(eager_rows.get("large MLP Layer step"), EAGER_NAMES)
    functional = medians(eager_rows.get("large MLP functional step"), EAGER_NAMES)
    rows.append(make_row("eager MLP 784-1024-512-10 step, functional value_and_grad (no jit)",
                         {**functional, "Paddle": layer_step.get("Paddle")}, paddle_target))
    rows.append(make_row("eager MLP 784-1024-512-10 step, Layer + backward (no jit)", layer_step, paddle_target))
    for mlp in FIRST_CALL_MLPS:
        first = jit.get("first_call", {}).get(mlp, {})
        jax_first = {"JAX": first.get("jax_cold")}
        rows.append(make_row(f"first call of the jitted MLP {mlp} step, fresh process, empty caches",
                             {"paddle_fn": first.get("cold"), **jax_first}, jax_target))
        warm = first.get("warm")
        rows.append(make_row(f"same for {mlp}, warm disk cache (JAX: its first call, it keeps no disk cache)",
                             {"paddle_fn": warm, **jax_first},
                             {"text": "< 0.1 s", "met": None if warm is None else warm < 0.1}))
    rows.append(make_row("import paddle_fn (numpy: import numpy)",
                         {"paddle_fn": imports.get("paddle_fn_s"), "numpy": imports.get("numpy_s")},
                         ratio_target("<= 2.5x numpy", "numpy", 2.5)))
    return rows + memory_rows(jit.get("memory"))


def memory_rows(memory: dict | None) -> list[dict]:
    """The two memory targets: no growth over many calls of one jitted function, and a bound on what dead jit
    closures keep."""
    if not memory:
        return []
    growth = memory["calls_rss_bytes"] / 2 ** 20
    calls = make_row(f"memory over {memory['calls']:,} jitted calls", {},
                     {"text": "no growth (< 1 MiB, no new objects)",
                      "met": growth < 1.0 and memory["calls_objects"] <= 0}, unit="text")
    closures = make_row(f"executables kept by {memory['closures']} dead jit closures", {},
                        {"text": f"<= {memory['bound']} (runtime KEEP_RECENT)",
                         "met": memory["kept"] <= memory["bound"]},
                        unit="text")
    calls["shown"] = f"{growth:+.2f} MiB, {memory['calls_objects']:+d} objects"
    closures["shown"] = f"{memory['kept']} kept"
    return [calls, closures]


def ratios(row: dict) -> dict:
    """{peer: paddle_fn's time / the peer's} for the peers measured in this row.

        >>> row = make_row("step", {"paddle_fn": 3.0, "JAX": 2.0}, ratio_target("<= 1.0x JAX", "JAX", 1.0))
        >>> ratios(row), verdict(row)
        ({'JAX': 1.5}, False)
    """
    ours = row["values"]["paddle_fn"]
    if ours is None:
        return {}
    return {peer: ours / row["values"][peer] for peer in PEERS if row["values"][peer]}


def verdict(row: dict) -> bool | None:
    """Whether the row meets its target; None when what it compares with was not measured."""
    target = row["target"]
    if "met" in target:
        return target["met"]
    ratio = ratios(row).get(target["against"])
    return None if ratio is None else ratio <= target["max_ratio"]


# ------------------------------------------------------------------------------------------------ output

def format_value(row: dict, seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if row["unit"] == "GFLOP/s":
        return f"{row['flops'] / seconds / 1e9:.0f} GFLOP/s"
    for scale, unit in ((1.0, "s"), (1e-3, "ms")):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e6:.3g} us"


def markdown(rows: list[dict], header: list[str]) -> str:
    """The dated table: `header` lines (date, host, versions, command), the rows, then the notes."""
    lines = header + ["", "| workload | " + " | ".join(COLUMNS) + " | / best peer | / JAX | target | |",
                      "|---|" + "---:|" * (len(COLUMNS) + 2) + "---|---|"]
    for row in rows:
        cells = [row.get("shown") if row["unit"] == "text" and col == "paddle_fn" else format_value(row, value)
                 for col, value in row["values"].items()]
        by_peer = ratios(row)
        best = max(by_peer, key=by_peer.get) if by_peer else None  # the fastest peer gives the largest ratio
        met = verdict(row)
        lines.append("| " + " | ".join([row["workload"], *cells,
                                         f"{by_peer[best]:.2f} ({best})" if best else "—",
                                         f"{by_peer['JAX']:.2f}" if "JAX" in by_peer else "—",
                                         row["target"]["text"],
                                         "n/a" if met is None else ("met" if met else "**NOT MET**")]) + " |")
    return "\n".join(lines + ["", NOTES, ""])


def plot(rows: list[dict], path: str, title: str = "") -> bool:
    """A PNG at `path`: paddle_fn's time over each peer's per row, log scale, lines at 1.0 and at each row's
    target. Returns False (and says so) when matplotlib is missing."""
    try:
        # matplotlib is not a dependency of the project: imported only here, for the chart
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no chart (install it into the peers' environment, e.g. "
              "/tmp/peers/bin/pip install matplotlib -c <(printf 'numpy==2.4.6\\n'))", file=sys.stderr)
        return False
    charted = [row for row in rows if ratios(row)]
    height = 0.8 / len(PEERS)
    fig, ax = plt.subplots(figsize=(11, 0.55 * len(charted) + 1.5))
    for k, peer in enumerate(PEERS):
        ys = [i + (k - (len(PEERS) - 1) / 2) * height for i, row in enumerate(charted) if peer in ratios(row)]
        xs = [ratios(row)[peer] for row in charted if peer in ratios(row)]
        ax.barh(ys, xs, height=height, label=peer)
    for i, row in enumerate(charted):
        if "max_ratio" in row["target"]:
            ax.plot([row["target"]["max_ratio"]] * 2, [i - 0.45, i + 0.45], color="black", linewidth=2.5)
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=1)
    ax.plot([], [], color="black", linewidth=2.5, label="target (vs the peer it names)")
    ax.set_xscale("log")
    ax.set_yticks(range(len(charted)))
    ax.set_yticklabels([f"{row['workload']}  [{row['target']['text']}]" for row in charted], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("paddle_fn time / peer time (log scale; below 1: paddle_fn faster)")
    ax.legend(fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(PEERS) + 1)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# ------------------------------------------------------------------------------------------------ running

def host_cpu() -> str:
    """The CPU's name, core count and whether it has AVX-512 (what the issue's targets must hold on)."""
    name, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and name == "unknown CPU":
                    name = value.strip()
                elif key.strip() == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    simd = "AVX-512" if "avx512f" in flags else ("AVX2, no AVX-512" if "avx2" in flags else "no AVX2")
    return f"{name}, {os.cpu_count()} cores, {simd}"


def command_line() -> str:
    """How this run was started, as a command to paste (the interpreter relative to here, PYTHONPATH with it)."""
    python = os.path.relpath(sys.executable) if sys.executable.startswith(os.getcwd()) else sys.executable
    path = os.environ.get("PYTHONPATH")
    return (f"PYTHONPATH={path} " if path else "") + shlex.join([python, *sys.argv])


def source_commit() -> str:
    """The commit of this checkout, "+ changes" when the tree differs from it ("unknown" outside git)."""
    def git(*args):
        return subprocess.run(["git", "-C", HERE, *args], capture_output=True, text=True).stdout.strip()
    commit = git("rev-parse", "--short", "HEAD")
    if not commit:
        return "unknown"
    return commit + (" + changes" if git("status", "--porcelain", "--untracked-files=no") else "")


def run_script(script: str, args: list[str], json_path: str) -> dict:
    """Run benchmarks/`script` in this interpreter and environment; its --json output, or {} when it failed."""
    command = [sys.executable, os.path.join(HERE, script), *args, "--json", json_path]
    print(f"\n# ---- {shlex.join(command)}", flush=True)
    if not os.path.exists(command[1]):
        print(f"{script} is missing: its rows stay empty", flush=True)
        return {}
    done = subprocess.run(command)
    if done.returncode != 0 or not os.path.exists(json_path):
        print(f"{script} failed (exit {done.returncode}): its rows stay empty", flush=True)
        return {}
    with open(json_path) as f:
        return json.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repetitions everywhere: a smoke run, noisy numbers")
    parser.add_argument("--reps", type=int, help="interleaved repetitions, passed to bench_jit.py and bench_eager.py "
                        "(default 15; 3 with --quick)")
    parser.add_argument("--closures", type=int, help="bench_jit's dead jit closures (default 100: more than the "
                        "runtime keeps, and each compiles once, ~0.5 s, while the disk cache is empty; 40 with --quick)")
    parser.add_argument("--out", metavar="DIR", help="write summary.md, summary.json and ratios.png there")
    parser.add_argument("--torch-compile", action="store_true", help="also time torch.compile in bench_jit (slow)")
    args = parser.parse_args()
    reps, closures = (args.reps, args.closures) if args.quick else (args.reps or 15, args.closures or 100)
    common = (["--quick"] if args.quick else []) + (["--reps", str(reps)] if reps else [])
    started, load_before = time.time(), os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench_summary_") as tmp:
        jit = run_script("bench_jit.py", common + (["--closures", str(closures)] if closures else [])
                         + ([] if args.torch_compile else ["--skip-torch-compile"]), os.path.join(tmp, "jit.json"))
        eager = run_script("bench_eager.py", common + ["--peer-python", sys.executable, "--only", *EAGER_ROWS],
                           os.path.join(tmp, "eager.json"))
        imports = run_script("bench_import.py", ["--repeat", "3"] if args.quick else [],
                             os.path.join(tmp, "import.json"))
    rows = build_rows(jit, eager, imports)
    versions = {"paddle_fn": source_commit(), **jit.get("versions", {})}
    date = time.strftime("%Y-%m-%d", time.localtime(started))
    header = [f"## paddle_fn against JAX, torch, Paddle and numpy, {date}",
              "", f"- host: {host_cpu()}; load average {load_before:.1f} at the start, "
              f"{os.getloadavg()[0]:.1f} at the end; {(time.time() - started) / 60:.1f} min",
              "- versions: " + ", ".join(f"{name} {version or 'not installed'}" for name, version in versions.items()),
              f"- command: `{command_line()}`"]
    table = markdown(rows, header)
    print("\n" + table)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "summary.md"), "w") as f:
            f.write(table)
        with open(os.path.join(args.out, "summary.json"), "w") as f:
            json.dump({"header": header, "rows": rows, "jit": jit, "eager": eager, "import": imports}, f, indent=1)
        charted = plot(rows, os.path.join(args.out, "ratios.png"), f"{header[0][3:]} ({host_cpu()})")
        print(f"wrote {args.out}/summary.md, summary.json" + (", ratios.png" if charted else ""))


if __name__ == "__main__":
    main()
