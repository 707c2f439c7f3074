"""The GPU check (docs/gpu.md): prepared on a CPU host, run on an NVIDIA GPU machine that has no IREE compiler.

    make gpu-check                                  # = .venv/bin/python benchmarks/gpu_check.py prepare
    python3 benchmarks/gpu_check.py run --out DIR   # on the GPU machine: the command `prepare` prints
    .venv/bin/python benchmarks/gpu_check.py rehearse [--python python3.12]   # that command, rehearsed here

`prepare` fills BUNDLE (.gpu_bundle/, ignored by git) with everything the GPU run needs that the GPU machine lacks:
  cache/   the compiled CUDA programs: tests/test_gpu.py and every workload (gpu_workloads.py) run here with a
           stand-in CUDA device ($PADDLE_FN_STAND_IN_GPU=cuda), which compiles each program for CUDA
           (--iree-cuda-target=sm_80, which runs on H100 and H200) into this disk cache and evaluates it op by op on
           the CPU; cache keys of GPU programs name neither the host CPU nor the compiler's presence, so on the GPU
           machine every program is a cache hit;
  site/    paddle_fn's packages, laid out as installed (packages.ROOTS), imported there through PYTHONPATH;
  wheels/  the cp312 manylinux wheels of paddle_fn's run-time dependencies that machine lacks (RUNTIME_WHEELS, at
           the versions of requirements/constraints.txt);
and prints the device tool's call: the command and the carried folder, and the size that travels (64 MiB at most).

`run` copies the carried cache into a private folder of its own (mode 0700, entries and key 0600: the disk
cache's trust checks refuse anything else, and a carried folder's owner and modes are not ours to rely on), then
runs the `gpu` tests (pytest, in a child process) and the workloads (child processes, each workload under its time
limit: one that fails, crashes or runs over is recorded and the next one runs), and writes OUT/gpu_check.json (all
that was measured) and OUT/gpu_check.md (date, GPU, versions, command, a table of times and ratios), all within
RUN_BUDGET seconds.

`rehearse` runs that command here, as the GPU machine would, before a lent GPU's few minutes are spent on it: in a
new Python 3.12 environment holding only the GPU image's packages that paddle_fn needs (IMAGE_PACKAGES, from PyPI:
no IREE compiler, no paddle_fn installed), with the stand-in CUDA device, each timing cut to one call
($PADDLE_FN_GPU_CHECK_REHEARSAL). It fails, saying what, unless every gpu test passes and every contender ran: a
program missing from the carried cache is a contender's error there, as it would be on the GPU machine.
"""
from __future__ import annotations

import argparse
import datetime
import itertools
import json
import math
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from typing import NamedTuple

ROOT = pathlib.Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
BUNDLE = ".gpu_bundle"
RUNTIME_WHEELS = ("iree-base-runtime", "optree", "ducc0")
# the GPU machine's Python, and the manylinux tags its wheels may carry (pip matches each tag exactly)
PYTHON_VERSION = "3.12"
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")
SITE_FOLDER = "/tmp/paddle_fn_gpu_site"  # where the GPU command installs the wheels
# what paddle_fn and the check import that the GPU machine's image already holds (docs/gpu.md), so not carried; the
# rehearsal's environment holds these and nothing else
IMAGE_PACKAGES = ("numpy", "scipy", "ml_dtypes", "typing_extensions", "pytest", "hypothesis")
REHEARSAL = "PADDLE_FN_GPU_CHECK_REHEARSAL"  # set: each timing is one call (gpu_workloads.timed)
UNMEASURED = "(not measured)"  # the contender name under which a workload stopped part way says why
RUN_BUDGET, TEST_LIMIT = 470, 180  # seconds: the whole run, and the gpu tests within it
STAND_IN = {"PADDLE_FN_STAND_IN_GPU": "cuda", "PADDLE_FN_BACKGROUND_COMPILE": "0"}


class Workload(NamedTuple):
    """A workload of the check: `function` of gpu_workloads.py called with `options` (and `prepare`), in a child
    process with `env` added to its environment, under `limit` seconds on the GPU machine."""
    function: str
    limit: float
    what: str
    env: dict = {}
    options: dict = {}


# settings the GPU run compares with the defaults: bf16x3's three products per product instead of one (for the GPUs
# lowering/precision.py joins them, untimed on a GPU yet), the CUDA driver's ways of running a command buffer
# (IREE's runtime flags, read from $IREE_PY_RUNTIME_FLAGS when iree.runtime is imported), and a compile flag
# (PADDLE_FN_IREE_FLAGS) that makes float32 convolutions an im2col gather and a matrix product, whose tiled kernels
# may beat the direct ones of one thread per output (docs/architecture.md, "CUDA: dispatches")
THREE_PRODUCTS = {"PADDLE_FN_BF16X3_AS_THREE_PRODUCTS": "1"}
INLINE_EXECUTION = {"IREE_PY_RUNTIME_FLAGS": "--cuda_allow_inline_execution=true"}
CUDA_GRAPHS = {"IREE_PY_RUNTIME_FLAGS": "--cuda_use_streams=false"}
IM2COL = {"PADDLE_FN_IREE_FLAGS": "--iree-global-opt-use-im2col-for-convs"}
PADDLE_FN_ONLY = {"peers": False}
# in the order they run; a variant (same function, other env) times paddle_fn alone, its ratios are to the peers of
# the workload it varies
WORKLOADS = {
    "trivial_call": Workload("trivial_call", 40, "jit(x + 1) on float32[8]: call, and call + reading the 8 floats "
                                                 "back"),
    "mlp_small": Workload("mlp_small", 45, "MLP 784-1024-512-10 SGD step, batch 128"),
    "mlp_big": Workload("mlp_big", 90, "MLP 4096-4096-4096-10 SGD step, batch 4096"),
    "conv_step": Workload("conv_step", 75, "ResNet-20-style conv net SGD step, batch 64, 3x32x32 (bench_models' "
                                           "conv)"),
    "transformer_step": Workload("transformer_step", 75, "transformer block SGD step, batch 16, seq 512, d 512, 4 "
                                                         "heads (bench_models' attention)"),
    "matmul_8192": Workload("matmul_8192", 75, "matmul 8192^2 float32 at each precision: time, TFLOP/s, relative "
                                               "error"),
    "mlp_big three products": Workload("mlp_big", 45, "the big MLP step, bf16x3 as three products "
                                                      "(PADDLE_FN_BF16X3_AS_THREE_PRODUCTS=1)", THREE_PRODUCTS,
                                       {**PADDLE_FN_ONLY, "precisions": ("bf16x3",)}),
    "conv_step three products": Workload("conv_step", 40, "the conv net step, bf16x3 as three products",
                                         THREE_PRODUCTS, {**PADDLE_FN_ONLY, "precisions": ("bf16x3",)}),
    "transformer_step three products": Workload("transformer_step", 40, "the transformer step, bf16x3 as three "
                                                                        "products", THREE_PRODUCTS,
                                                {**PADDLE_FN_ONLY, "precisions": ("bf16x3",)}),
    "trivial_call inline": Workload("trivial_call", 25, "the trivial call, command buffers executed inline "
                                                        "(--cuda_allow_inline_execution)", INLINE_EXECUTION,
                                    PADDLE_FN_ONLY),
    "mlp_small inline": Workload("mlp_small", 25, "the small MLP step, command buffers executed inline",
                                 INLINE_EXECUTION, PADDLE_FN_ONLY),
    "trivial_call graphs": Workload("trivial_call", 25, "the trivial call, command buffers as CUDA graphs "
                                                        "(--cuda_use_streams=false)", CUDA_GRAPHS, PADDLE_FN_ONLY),
    "mlp_small graphs": Workload("mlp_small", 25, "the small MLP step, command buffers as CUDA graphs",
                                 CUDA_GRAPHS, PADDLE_FN_ONLY),
    "conv_step im2col": Workload("conv_step", 60, "the conv net step, float32 convolutions as im2col products "
                                                  "(--iree-global-opt-use-im2col-for-convs)", IM2COL,
                                 {**PADDLE_FN_ONLY, "precisions": ("float32",)}),
}


def gpu_command() -> str:
    """The one command the GPU machine runs, from the repository root, with BUNDLE carried."""
    return (f"python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target {SITE_FOLDER} "
            f"{BUNDLE}/wheels/*.whl"
            f" && PYTHONPATH={SITE_FOLDER}:$PWD/{BUNDLE}/site PYTHONUNBUFFERED=1 python3 benchmarks/gpu_check.py run "
            f"--out $OUT")


# ------------------------------------------------------------------------------------------------ prepare

def pinned_versions(names) -> dict:
    """{name: version} from requirements/constraints.txt (names compared as pip normalizes them)."""
    def normal(name):
        return name.lower().replace("_", "-")
    wanted = {normal(n): n for n in names}
    found = {}
    for line in (ROOT / "requirements" / "constraints.txt").read_text().splitlines():
        name, _, version = line.partition("==")
        if normal(name.strip()) in wanted:
            found[wanted[normal(name.strip())]] = version.strip()
    missing = set(names) - set(found)
    if missing:
        raise SystemExit(f"requirements/constraints.txt pins no version of {sorted(missing)}")
    return found


def download_wheels(folder: pathlib.Path):
    folder.mkdir(parents=True, exist_ok=True)
    for name, version in pinned_versions(RUNTIME_WHEELS).items():
        if any(folder.glob(f"{name.replace('-', '_')}-{version}-*.whl")):
            continue
        tags = [argument for tag in PLATFORMS for argument in ("--platform", tag)]
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "--python-version", PYTHON_VERSION, "--implementation", "cp", *tags, "-d", str(folder),
                        f"{name}=={version}"], check=True)


def assemble_site(folder: pathlib.Path):
    """paddle_fn's packages as an installation lays them out (the repository's folders mapped by ROOTS)."""
    sys.path.insert(0, str(ROOT / "paddle_fn" / "core"))
    from packages import ROOTS  # the package map, read without importing paddle_fn
    sys.path.pop(0)
    shutil.rmtree(folder, ignore_errors=True)
    for name, source in sorted(ROOTS.items()):  # paddle_fn before its subpackages
        shutil.copytree(ROOT / source, folder / name.replace(".", "/"), dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def folder_bytes(folder: pathlib.Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def travelling_bytes() -> int:
    """The bytes of the working tree that travels without carry: tracked and untracked files git does not ignore."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    return sum((ROOT / name).stat().st_size for name in listed if name and (ROOT / name).is_file())


def prepare(args):
    bundle = ROOT / BUNDLE
    cache = bundle / "cache"
    if not args.reuse_cache:
        shutil.rmtree(cache, ignore_errors=True)
    env = {**os.environ, **STAND_IN, "PADDLE_FN_CACHE_DIR": str(cache)}
    started = time.perf_counter()
    print("compiling the gpu tests' programs for CUDA (tests/test_gpu.py with the stand-in device)", flush=True)
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                            "-m", "gpu", "tests/test_gpu.py"], cwd=ROOT, env=env, capture_output=True, text=True)
    print("\n".join(tests.stdout.strip().splitlines()[-25:]), flush=True)
    print("compiling the workloads' programs for CUDA (gpu_workloads.py --prepare)", flush=True)
    results = bundle / "prepared.jsonl"
    results.unlink(missing_ok=True)
    run_workloads(env, math.inf, results, prepare=True)
    failed = unprepared(results)
    print(f"compiled in {time.perf_counter() - started:.0f} s; not compiled (the GPU run will find them missing): "
          + ("".join(f"\n  {name} {contender}: {str(error)[:300]}" for name, errors in failed.items()
                     for contender, error in errors.items()) or "none"), flush=True)
    assemble_site(bundle / "site")
    if not args.skip_download:
        download_wheels(bundle / "wheels")
    sizes = {"cache": folder_bytes(cache), "site": folder_bytes(bundle / "site"),
             "wheels": folder_bytes(bundle / "wheels"), "working tree": travelling_bytes()}
    total = sum(sizes.values())
    print("what travels (MiB): " + ", ".join(f"{k} {v / 2**20:.1f}" for k, v in sizes.items()) +
          f"; in all {total / 2**20:.1f} of 64")
    if total > 64 * 2**20:
        raise SystemExit("too large to carry: over 64 MiB")
    print("\nOn the GPU machine (the device tool's run, from the repository root):\n" + json.dumps(
        {"command": gpu_command(), "carry": [BUNDLE], "timeout_s": 560}, indent=1))


def unprepared(results: pathlib.Path) -> dict:
    """{workload: {contender: error}} of what `prepare` could not compile (the GPU run finds it missing)."""
    failed = {}
    for name, result in read_results(results).items():
        errors = {contender: outcome for contender, outcome in result.items()
                  if not (isinstance(outcome, dict) and outcome.get("compiled"))}
        if errors:
            failed[name] = errors
    return failed


# ------------------------------------------------------------------------------------------------ run

def install_cache(source: pathlib.Path, target: pathlib.Path):
    """Copy the carried cache's key and entries into `target`, a new private folder of this user (created 0700; each
    file 0600): the disk cache trusts nothing else."""
    target.mkdir(mode=0o700)
    for path in source.iterdir():
        if path.is_file() and (path.suffix == ".vmfb" or path.name == "hmac.key"):
            descriptor = os.open(target / path.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as file:
                file.write(path.read_bytes())


def read_results(path: pathlib.Path) -> dict:
    """{workload: {contender: result}, or {"error": ...}} from the workloads children's JSON lines: each contender's
    result as it was measured, then the workload's. A workload that failed, crashed or was stopped part way keeps the
    contenders measured before, the reason under UNMEASURED."""
    results, measured = {}, {}
    for line in (path.read_text().splitlines() if path.exists() else ()):
        record = json.loads(line)
        if "contender" in record:
            measured.setdefault(record["name"], {})[record["contender"]] = record["result"]
        else:
            results[record["name"]] = record.get("result", {"error": "started, never finished (crashed or stopped "
                                                                      "at its time limit)"})
    for name, result in results.items():
        if set(result) == {"error"} and measured.get(name):
            results[name] = {**measured[name], UNMEASURED: result}
    return results


def run_tests(env, limit: float) -> dict:
    report = pathlib.Path(tempfile.mkdtemp()) / "junit.xml"
    command = [sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "gpu", "tests/test_gpu.py",
               f"--junitxml={report}"]
    started = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=limit)
        summary = {"returncode": done.returncode, "tail": done.stdout[-3000:] + done.stderr[-2000:]}
    except subprocess.TimeoutExpired as stopped:
        summary = {"returncode": None, "tail": f"stopped after {limit:.0f} s: " + str(stopped.stdout or "")[-3000:]}
    summary["seconds"] = time.perf_counter() - started
    summary["tests"] = {}
    if report.exists():
        for case in ElementTree.parse(report).iter("testcase"):
            outcome = next(((child.tag, (child.get("message") or "")[:1500]) for child in case), ("passed", ""))
            summary["tests"][case.get("name")] = {"outcome": outcome[0], "message": outcome[1]}
    return summary


def run_workloads(env, deadline: float, lines: pathlib.Path, *, prepare: bool = False) -> dict:
    """Each workload in a child process under its limit (and the deadline; with `prepare`, neither): consecutive
    workloads with the same `env` share a child, and a child that crashed or was stopped is followed by a fresh one
    for the workloads left. The children append to `lines` (JSON lines); returns {workload: result}."""
    results, left = {}, list(WORKLOADS)
    while left and time.time() < deadline - 20:
        group = list(itertools.takewhile(lambda name: WORKLOADS[name].env == WORKLOADS[left[0]].env, left))
        child = subprocess.Popen([sys.executable, str(BENCHMARKS / "gpu_check.py"), "workloads", "--only",
                                  ",".join(group), "--results", str(lines)] + ["--prepare"] * prepare, cwd=ROOT,
                                 env={**env, **WORKLOADS[group[0]].env})
        why = None
        while child.poll() is None:
            time.sleep(0.5)
            running = _unfinished(lines)
            if not prepare and running and time.time() - running[1] > WORKLOADS[running[0]].limit:
                why = f"stopped at its time limit ({WORKLOADS[running[0]].limit} s)"
            elif time.time() > deadline:
                why = "stopped: the run's time budget was spent"
            if why:
                child.kill()
                child.wait()
        running = _unfinished(lines)
        if running:  # the child was stopped, or crashed, inside this workload: the next child starts after it
            with open(lines, "a") as file:
                file.write(json.dumps({"name": running[0], "result": {
                    "error": why or f"the process crashed (exit status {child.returncode})"}}) + "\n")
        results.update(read_results(lines))
        if not any(name in results for name in group):  # the child failed before its first workload
            results.update({name: {"error": f"the process ended (exit status {child.returncode}) before it "
                                            "started this workload"} for name in group})
        left = [name for name in left if name not in results]
    for name in left:
        results[name] = {"error": "not run: the run's time budget was spent"}
    return results


def _unfinished(lines: pathlib.Path):
    """(name, start time) of the workload a child has started and not finished, or None."""
    started = {}
    for line in (lines.read_text().splitlines() if lines.exists() else ()):
        record = json.loads(line)
        if "contender" in record:
            continue
        if "result" in record:
            started.pop(record["name"], None)
        else:
            started[record["name"]] = record["started"]
    return next(iter(started.items()), None)


def gpu_name() -> str:
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError) as error:
        return f"unknown ({error})"


def versions(env) -> dict:
    code = ("import json, importlib.metadata as m\nout = {}\nfor n in ('iree-base-runtime', 'iree-base-compiler', "
            "'numpy', 'jax', 'jaxlib', 'torch', 'optree', 'ducc0'):\n    try: out[n] = m.version(n)\n"
            "    except m.PackageNotFoundError: out[n] = None\nprint(json.dumps(out))")
    found = subprocess.run([sys.executable, "-P", "-c", code], env=env, capture_output=True, text=True)
    return {"python": platform.python_version(), **(json.loads(found.stdout) if found.returncode == 0 else {})}


def run(args):
    deadline = time.time() + args.budget
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = pathlib.Path(tempfile.mkdtemp(prefix="paddle_fn_gpu_")) / "cache"
    install_cache(ROOT / args.bundle / "cache", cache)
    env = {**os.environ, "PADDLE_FN_CACHE_DIR": str(cache), "PADDLE_FN_BACKGROUND_COMPILE": "0",
           "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}  # JAX would take 75% of the GPU's memory up front
    report = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "gpu": gpu_name(),
              "versions": versions(env), "command": gpu_command(), "cache_entries": len(list(cache.iterdir())) - 1,
              "not_prepared": unprepared(ROOT / args.bundle / "prepared.jsonl")}
    print(json.dumps({k: v for k, v in report.items() if k != "not_prepared"}, indent=1), flush=True)
    report["tests"] = run_tests(env, min(TEST_LIMIT, deadline - time.time() - 60))
    print(report["tests"]["tail"][-2000:], flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        report["workloads"] = run_workloads(env, deadline, pathlib.Path(scratch) / "results.jsonl")
    (out / "gpu_check.json").write_text(json.dumps(report, indent=1, default=str))
    (out / "gpu_check.md").write_text(markdown(report))
    print((out / "gpu_check.md").read_text())


def run_children(args):
    """The workloads child: each named workload in turn, its start and its result appended to --results."""
    sys.path.insert(0, str(BENCHMARKS))
    import gpu_workloads
    import paddle_fn as pf
    names = args.only.split(",") if args.only else list(WORKLOADS)
    pf.set_device("gpu:0")
    with open(args.results, "a") as lines:
        def write(record):
            lines.write(json.dumps(record, default=str) + "\n")
            lines.flush()
        for name in names:
            write({"name": name, "started": time.time()})
            gpu_workloads.report_contender = lambda contender, result, name=name: write(
                {"name": name, "contender": contender, "result": result})
            try:
                workload = WORKLOADS[name]
                result = getattr(gpu_workloads, workload.function)(prepare=args.prepare, **workload.options)
            except Exception as error:  # noqa: BLE001 - recorded, the next workload runs
                result = {"error": f"{type(error).__name__}: {str(error)[:1500]}"}
            write({"name": name, "result": result})
            print(name, json.dumps(result, default=str)[:2000], flush=True)


# ------------------------------------------------------------------------------------------------ rehearse

def rehearse(args):
    """`gpu_command()` run here as on the GPU machine (the module docstring); exits 1 naming what failed."""
    if not (ROOT / BUNDLE / "cache").is_dir():
        raise SystemExit(f"no {BUNDLE}/cache here: run `make gpu-check` first")
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="paddle_fn_rehearsal_"))
    python_home = scratch / "python"
    subprocess.run([args.python, "-m", "venv", str(python_home)], check=True)
    python = python_home / "bin" / "python3"
    version = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    if version != PYTHON_VERSION:
        raise SystemExit(f"{args.python} is Python {version}; the bundle's wheels are for the GPU machine's "
                         f"Python {PYTHON_VERSION}: pass --python with a Python {PYTHON_VERSION}")
    subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", *IMAGE_PACKAGES], check=True)
    out = scratch / "out"
    out.mkdir()
    env = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "PADDLE_FN_CACHE_DIR")}
    env.update({"PATH": f"{python_home / 'bin'}{os.pathsep}{env.get('PATH', '')}", "OUT": str(out),
                **STAND_IN, REHEARSAL: "1"})
    print(f"rehearsing the GPU command in {scratch} (Python {version}, stand-in CUDA device):\n{gpu_command()}",
          flush=True)
    subprocess.run(["bash", "-c", gpu_command()], cwd=ROOT, env=env)
    problems = rehearsal_problems(out / "gpu_check.json")
    print("rehearsal: " + ("".join(f"\n  {problem}" for problem in problems) if problems else
                           "every gpu test passed and every contender ran from the carried cache"), flush=True)
    if problems:
        raise SystemExit(1)
    shutil.rmtree(scratch, ignore_errors=True)


def rehearsal_problems(report_path: pathlib.Path) -> list:
    """What a rehearsal's report shows failed: no report, gpu tests that did not pass, contenders with errors."""
    if not report_path.exists():
        return [f"the run wrote no {report_path.name}"]
    report = json.loads(report_path.read_text())
    tests = report["tests"]
    problems = [f"gpu tests: exit status {tests['returncode']}: {tests['tail'][-500:]}"] \
        if tests["returncode"] != 0 or not tests["tests"] else []
    problems += [f"test {name}: {test['outcome']} {test['message'][:300]}" for name, test in tests["tests"].items()
                 if test["outcome"] != "passed"]
    for name, results in report["workloads"].items():
        if isinstance(results.get("error"), str):
            problems.append(f"{name}: {results['error'][:300]}")
            continue
        problems += [f"{name} {contender}: {result['error'][:300]}" for contender, result in results.items()
                     if "error" in result]
    return problems


# ------------------------------------------------------------------------------------------------ the report

def markdown(report: dict) -> str:
    tests = report["tests"]["tests"]
    passed = sum(t["outcome"] == "passed" for t in tests.values())
    lines = [f"# GPU check, {report['date']}", "",
             f"- GPU: {report['gpu']}", f"- versions: {json.dumps(report['versions'])}",
             f"- command: `{report['command']}`", f"- carried cache entries: {report['cache_entries']}",
             f"- gpu tests: {passed} of {len(tests)} passed ({report['tests']['seconds']:.0f} s"
             f"{', stopped at its time limit' if report['tests']['returncode'] is None else ''})",
             "- not compiled by prepare (so missing here): " + (", ".join(
                 f"{name} {contender}" for name, errors in report["not_prepared"].items() for contender in errors)
                 or "none"), ""]
    lines += [f"  - {name}: {t['outcome']} {t['message'][:300]}" for name, t in tests.items()
              if t["outcome"] != "passed"]
    lines += ["", "| workload | contender | median ms | min ms | vs JAX default | vs torch strict f32 | notes |",
              "|---|---|---|---|---|---|---|"]
    for name, results in report["workloads"].items():
        what = WORKLOADS[name].what if name in WORKLOADS else name
        peers = report["workloads"].get(_varied(name), {})
        if "error" in results and isinstance(results["error"], str):
            lines.append(f"| {what} | — | | | | | {results['error'][:200]} |")
            continue
        for contender, result in results.items():
            if "error" in result:
                lines.append(f"| {what} | {contender} | | | | | {result['error'][:200]} |")
                continue
            ms, jax_ms, torch_ms = _median(result), *(_median(peers.get(_peer(contender, peer)))
                                                       for peer in ("jax", "torch"))
            notes = ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in result.items()
                              if k not in ("median_ms", "min_ms"))
            lines.append(f"| {what} | {contender} | {ms:.4g} | {result.get('min_ms', float('nan')):.4g} | "
                         f"{_ratio(ms, jax_ms)} | {_ratio(ms, torch_ms)} | {notes} |")
    return "\n".join(lines) + "\n"


def _varied(name: str) -> str:
    """The workload whose peers a workload's contenders are compared with: itself, or the one a variant varies (the
    same function run in the default environment)."""
    if name not in WORKLOADS or not WORKLOADS[name].env:
        return name
    return next(other for other, workload in WORKLOADS.items()
                if workload.function == WORKLOADS[name].function and not workload.env)


def _peer(contender: str, framework: str) -> str:
    """The peer a contender's time is compared with: the same call of the trivial call, else the peer's default
    (JAX's default precision, torch's strict float32)."""
    for call in ("call + read", "call"):
        if contender.startswith(f"paddle_fn {call}"):
            return f"{framework} {call}"
    return {"jax": "jax default", "torch": "torch strict f32"}[framework]


def _median(result):
    return result.get("median_ms") if isinstance(result, dict) else None


def _ratio(a, b) -> str:
    return f"{a / b:.2f}x" if a and b else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    made = commands.add_parser("prepare", help="on the CPU host: compile for CUDA, gather the wheels")
    made.add_argument("--reuse-cache", action="store_true", help="keep the cache of an earlier prepare")
    made.add_argument("--skip-download", action="store_true", help="use the wheels already in the bundle")
    ran = commands.add_parser("run", help="on the GPU machine")
    ran.add_argument("--out", default=os.environ.get("OUT", "gpu_check_out"))
    ran.add_argument("--bundle", default=BUNDLE)
    ran.add_argument("--budget", type=float, default=RUN_BUDGET, help="seconds for the whole run")
    rehearsed = commands.add_parser("rehearse", help="on the CPU host, after prepare: the GPU command, rehearsed")
    rehearsed.add_argument("--python", default="python3.12", help=f"a Python {PYTHON_VERSION} to build its "
                                                                   "environment with")
    child = commands.add_parser("workloads", help="(internal) run workloads, appending results to --results")
    child.add_argument("--only", default="")
    child.add_argument("--results", required=True)
    child.add_argument("--prepare", action="store_true")
    args = parser.parse_args()
    {"prepare": prepare, "run": run, "rehearse": rehearse, "workloads": run_children}[args.command](args)


if __name__ == "__main__":
    main()
