"""The benchmark scripts run where the GPU check runs: a python with torch and transformers
(and what they depend on) and nothing else, biasatlas imported from src/.

The isolated interpreter is this venv's python with ``-S`` (no site-packages) and a folder
of links to the distributions torch and transformers need, so a script that imports
scipy, rich, typer or biasatlas' other dependencies fails here as it would there.
"""

from __future__ import annotations

import importlib
import importlib.metadata as metadata
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
#: The speed scripts (bench/parity/ holds the parity scripts, which no test here imports); they
#: import each other and bench/'s shared helpers (measure, shapes, workloads).
SPEED = BENCH / "speed"
# huggingface-hub's command-line tool pulls these in; transformers itself needs none of them.
CLI_ONLY = {"typer", "click", "rich", "shellingham", "pygments", "markdown-it-py", "mdurl"}


def _requirements(name: str) -> list[str]:
    try:
        requires = metadata.distribution(name).requires or []
    except metadata.PackageNotFoundError:
        return []
    return [re.split(r"[ ;<>=!~\[(]", r, maxsplit=1)[0] for r in requires if "extra ==" not in r]


def _closure(roots: list[str]) -> set[str]:
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop().lower().replace("_", "-")
        if name in seen or name in CLI_ONLY:
            continue
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen.add(name)
        stack.extend(_requirements(name))
    return seen


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> tuple[list[str], dict[str, str]]:
    """(command, environment) of a python that sees torch, transformers and their needs only."""
    folder = tmp_path_factory.mktemp("torch-transformers-only")
    for name in _closure(["torch", "transformers"]):
        dist = metadata.distribution(name)
        for top in {Path(str(f)).parts[0] for f in dist.files or () if not str(f).startswith("..")}:
            source = Path(str(dist.locate_file(top)))
            if source.exists() and not (folder / top).exists():
                (folder / top).symlink_to(source)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = str(folder)
    return [sys.executable, "-S"], env


def test_the_bare_python_lacks_what_the_gpu_machine_lacks(bare_python):
    command, env = bare_python
    absent = ("scipy", "rich", "typer", "platformdirs")
    probe = f"import importlib.util as u; print([m for m in {absent!r} if u.find_spec(m)])"
    out = subprocess.run([*command, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow  # a subprocess or the full data: the full suite runs it, the fast loop does not
def test_benchmark_scripts_import_with_torch_and_transformers_only(bare_python):
    command, env = bare_python
    env = {**env, "PYTHONPATH": f"{env['PYTHONPATH']}:{ROOT / 'src'}:{BENCH}:{SPEED}"}
    modules = ["measure", "shapes", "workloads", "kernel_profile", "bench_crows", "bench_census",
               "bench_causal_gemma_shape", "bench_atlas", "gpu_check"]
    out = subprocess.run([*command, "-c", f"import {', '.join(modules)}; print('ok')"], env=env,
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]


def test_gemma_shape_is_the_packaged_models(tmp_path):
    """The random model's shape fields are those of the converted gemma-3-270m folder."""
    sys.path.insert(0, str(BENCH))
    try:
        from shapes import GEMMA_3_270M, gemma_config
    finally:
        sys.path.remove(str(BENCH))
    from biasatlas.scorers.inprocess.packaged import default_models_dir

    folders = sorted(default_models_dir().glob("gemma-3-270m--*/config.json"))
    if not folders:
        pytest.skip("the packaged gemma-3-270m has not been converted on this machine")
    packaged = json.loads(folders[-1].read_text())
    assert {k: packaged[k] for k in GEMMA_3_270M} == GEMMA_3_270M
    config = gemma_config()
    assert config.layer_types == packaged["layer_types"]
    assert (config.vocab_size, config.num_hidden_layers, config.hidden_size) == (262144, 18, 640)


def _bench(name: str):
    """A bench/ or bench/speed/ module, imported with both on the path (as a speed script puts
    them there: its modules import each other and the shared helpers)."""
    sys.path[:0] = [str(SPEED), str(BENCH)]
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(SPEED))
        sys.path.remove(str(BENCH))


def test_distinct_tokens_counts_each_prefix_once():
    """Against the plain definition: the number of distinct non-empty prefixes of the rows."""
    from biasatlas.scorers.batching import Row

    measure = _bench("measure")
    rows = [Row((1, 2, 3, 4), (0,)), Row((1, 2, 5), (1,)), Row((1, 2, 3), (2,)), Row((7,), (0,)),
            Row((1, 2, 3, 4), (1,))]
    # prefixes: (1) (1,2) (1,2,3) (1,2,3,4) (1,2,5) (7)
    assert measure.distinct_tokens(rows) == 6
    draw = random.Random(0)
    rows = [Row(tuple(draw.choice((1, 2, 3)) for _ in range(draw.randint(1, 7))), ()) for _ in range(200)]
    prefixes = {r.ids[:k] for r in rows for k in range(1, len(r.ids) + 1)}
    assert measure.distinct_tokens(rows) == len(prefixes)


def test_needed_flops_is_two_per_weight_per_token():
    from biasatlas.scorers.batching import Row

    measure = _bench("measure")
    config = SimpleNamespace(hidden_size=8, intermediate_size=16, num_hidden_layers=2, num_attention_heads=2,
                             num_key_value_heads=1, head_dim=None, vocab_size=10)
    # head_dim 8/2 = 4; per layer q+o 2·8·2·4 = 128, k+v 2·8·1·4 = 64, MLP 3·8·16 = 384: 576 weights.
    # Distinct tokens 4 (1, 1-2, 1-2-3, 1-2-4), reads 3: 2·(2·576·4 + 8·10·3) = 9,696.
    rows = [Row((1, 2, 3), (1, 2)), Row((1, 2, 4), (2,))]
    assert measure.needed_flops(rows, config) == (9696.0, 4, 3)


def test_needed_flops_counts_the_7b_models_own_matrices():
    """One token, no read: 2 × the Linear weights of the 32 layers of the model the atlas
    bench builds (on the meta device: nothing is allocated); one read adds the head's."""
    import torch
    from transformers import LlamaForCausalLM

    from biasatlas.scorers.batching import Row

    measure, shapes = _bench("measure"), _bench("shapes")
    config = shapes.llama_config()
    with torch.device("meta"):
        model = LlamaForCausalLM(config)
    layers = sum(m.weight.numel() for m in model.model.layers.modules() if isinstance(m, torch.nn.Linear))
    assert measure.needed_flops([Row((5,), ())], config)[0] == 2 * layers
    assert measure.needed_flops([Row((5,), (0,))], config)[0] == 2 * (layers + model.lm_head.weight.numel())


def test_profile_self_times_and_gaps_of_a_trace():
    profile = _bench("kernel_profile")

    def op(name, tid, start, end, cat="cpu_op", ph="X"):
        return {"name": name, "cat": cat, "ph": ph, "pid": 1, "tid": tid, "ts": start, "dur": end - start}

    events = [op("A", 1, 0, 100), op("B", 1, 10, 40), op("C", 1, 50, 60), op("D", 1, 130, 150),
              op("E", 2, 145, 170), op("F", 1, 200, 210), op("py", 1, 100, 130, cat="python_function"),
              op("k", 1, 0, 500, cat="kernel"), op("k2", 1, 600, 700, cat="Kernel"),  # kineto spells both
              {"name": "A", "ph": "i", "cat": "cpu_op", "ts": 5}]
    busy = profile.busy_events(events, "cpu")
    # A holds B (30 µs) and C (10 µs): 100 − 40 = 60 of its own.
    assert profile.self_times(busy) == {"A": (1, 60.0), "B": (1, 30.0), "C": (1, 10.0), "D": (1, 20.0),
                                        "E": (1, 25.0), "F": (1, 10.0)}
    # Busy stretches [0, 100], [130, 170] (D and E on two threads), [200, 210].
    assert profile.idle_gaps(busy) == [30.0, 30.0]
    assert [b.name for b in profile.busy_events(events, "cuda")] == ["k", "k2"]


def test_goal_lines_say_met_at_the_bound_and_not_past_it():
    goals = _bench("gpu_check")
    at_most, at_least = goals.Goal("t", 1.0, True), goals.Goal("f", 0.25, False, percent=True)
    assert at_most.line(1.0) == "t: 1.00 s (goal ≤ 1.00 s): met"
    assert at_most.line(1.01).endswith(": NOT met")
    assert at_least.line(0.25).endswith(": met") and at_least.line(0.2499).endswith(": NOT met")
    assert at_least.line(None) == "f: not measured (goal ≥ 25.0%)"


def test_thread_goals_compare_the_default_with_the_best_pinned_count():
    bench = _bench("bench_threads")
    run = lambda seconds: {"seconds": seconds, "engine": {}, "outcomes": [], "load": 0.0}  # noqa: E731
    results = {"after-busy": {"default": run(4.6), "1": run(7.7), "2": run(4.0)},
               "loaded": {"default": run(3.0), "1": run(2.0), "2": run(9.0)}}
    assert bench.ratio(results, "after-busy", ["1", "2"]) == pytest.approx(4.6 / 4.0)  # best pinned: 2 threads
    assert bench.ratio(results, "loaded", ["1"]) == pytest.approx(1.5)
    assert bench.ratio({"loaded": {"default": run(None), "1": run(2.0)}}, "loaded", ["1"]) is None  # stopped
    assert bench.goal_line("A", 1.15, 1.15, "x").endswith("(goal ≤ 1.15x): met")  # at the bound: met
    assert bench.goal_line("A", 1.16, 1.15, "x").endswith(": NOT met")
    assert bench.goal_line("B", None, 1.5, "one thread") == "B: not measured (goal: default ≤ 1.50x one thread)"
    assert bench.faster(run(1.0), run(None)) and not bench.faster(run(None), run(1.0))


@pytest.mark.slow  # a subprocess or the full data: the full suite runs it, the fast loop does not
@pytest.mark.parametrize("country", ["us", "fr", "no"])
def test_atlas_census_probes_are_the_benchmarks(country):
    """The bench builds census probes without the benchmark class (its metrics need scipy):
    they are the probes ``Census`` gives a causal LM, less the baseline's few short ones."""
    from biasatlas.benchmarks.census.benchmark import Census
    from biasatlas.benchmarks.census.diagnostics import baseline_plan
    from biasatlas.probes import ScorerInfo

    causal = ScorerInfo(kind="causal-lm", reads="sequence", dtype="bfloat16")
    census = Census(country=country).bind(causal)
    baseline = list(baseline_plan(census.plan).probes)
    ours = _bench("workloads").census_probes(country)
    assert ours + baseline == census.probes(census.load())
    assert len(baseline) < len(ours) / 100


@pytest.mark.slow  # a subprocess or the full data: the full suite runs it, the fast loop does not
def test_atlas_crows_and_zh_probes_are_the_benchmarks(shared_data, monkeypatch):
    from biasatlas.benchmarks.crows_pairs import CrowsPairs
    from biasatlas.benchmarks.zh_neutral.benchmark import ZhNeutral

    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    monkeypatch.setenv("BIASATLAS_SHARED_DATA", str(shared_data))
    workloads = _bench("workloads")
    for dataset in ("en", "fr+210"):
        benchmark = CrowsPairs(dataset=dataset)
        assert workloads.crows_probes(dataset) == benchmark.probes(benchmark.load())
    assert workloads.zh_probes() == ZhNeutral().probes(ZhNeutral().load())
    assert set(workloads.atlas(limit=2)) == {"census-us", "census-fr", "census-no", "crows-en", "crows-fr+210",
                                             "zh-neutral"}


def _floats(pattern: str, text: str) -> list[tuple[float, ...]]:
    found = [tuple(float(g) for g in m.groups()) for m in re.finditer(pattern, text, re.M)]
    assert found, f"no match for {pattern!r} in:\n{text[-3000:]}"
    return found


def _sections(text: str) -> dict[str, str]:
    parts = re.split(r"^== ", text, flags=re.M)
    return {part.split(maxsplit=1)[0].rstrip("."): part for part in parts[1:]}


@pytest.mark.slow
def test_gpu_script_runs_in_smoke_mode(bare_python, shared_data):
    """bench/gpu.sh end to end on the CPU with tiny models: every section prints its numbers,
    they agree with each other, and the goals block judges the values the sections measured."""
    command, env = bare_python
    env = {**env, "PYTHON": " ".join(command), "BIASATLAS_SHARED_DATA": str(shared_data)}
    out = subprocess.run(["bash", str(BENCH / "gpu.sh"), "--smoke"], env=env, capture_output=True, text=True,
                         cwd=ROOT, timeout=1500)
    assert out.returncode == 0, (out.stdout[-3000:], out.stderr[-3000:])
    text = out.stdout
    sections = _sections(text)
    assert list(sections) == ["1", "2", "3", "4", "goals"]

    crows = {}  # dtype -> (pairs/s, seconds, fraction %)
    for dtype in ("bfloat16", "float32"):
        block = sections["1"].split(f"[{dtype}] 12 pairs", 1)[1].split("\n\n", 1)[0]
        ((rate, seconds),) = _floats(r"ours: +([\d.]+) pairs/s \(([\d.]+) s scoring", block)
        ((fraction,),) = _floats(r"fraction ([\d.]+)%$", block)
        assert rate * seconds == pytest.approx(12, rel=0.02) and fraction > 0
        crows[dtype] = rate, seconds, fraction
    ((flips, pairs),) = _floats(r"outcome flips bfloat16 vs float32: (\d+) of (\d+) pairs", sections["1"])
    assert pairs == 12 and 0 <= flips <= pairs

    gemma = {}
    for dtype in ("bfloat16", "float32"):
        for work, n in (("census", 70), ("crows", 20)):  # 60 sentences → whole probes: 70; 10 pairs
            block = sections["2"].split(f"[{dtype} · {work}] {n} sentences", 1)[1].split("\n\n", 1)[0]
            ((rate, seconds),) = _floats(r"ours: +([\d.]+) sentences/s \(([\d.]+) s", block)
            ((fraction,),) = _floats(r"fraction ([\d.]+)%$", block)
            assert rate * seconds == pytest.approx(n, rel=0.02) and fraction > 0
            gemma[dtype, work] = seconds

    for name, module in (("StereoSet", "stereoset"), ("BBQ", "bbq")):
        landed = importlib.util.find_spec(f"biasatlas.benchmarks.{module}") is not None
        said = "has landed" if landed else "skipped: not yet implemented"
        assert re.search(rf"^{name}\b.*{said}", sections["3"], re.M), sections["3"]

    atlas = _floats(r"^\[[\w+-]+\] (\d+)/(\d+) probes answered; (\d+) rows, (\d+) tokens \((\d+) distinct "
                    r"prefixes' tokens\), (\d+) read positions; (\d+) batches \(\d+ sharing prefixes\)\n"
                    r"  seconds ([\d.]+) .*fraction of the bfloat16 peak ([\d.]+)%$", sections["4"])
    assert len(atlas) == 6
    for answered, probes, rows, tokens, distinct, reads, batches, seconds, fraction in atlas:
        assert answered == probes == 24 and 0 < distinct <= tokens and rows <= reads and batches >= 1
        assert seconds > 0 and fraction > 0
    names = re.findall(r"^\[([\w+-]+)\] \d+/", sections["4"], re.M)
    ((total_probes, total_seconds, total_fraction),) = _floats(
        r"^whole atlas: (\d+) probes in ([\d.]+) s; .*: ([\d.]+)%$", sections["4"])
    assert total_probes == 6 * 24 and total_seconds == pytest.approx(sum(a[7] for a in atlas), abs=0.01)
    # The whole atlas's fraction is Σ FLOPs / Σ seconds: between the benchmarks' own.
    assert min(a[8] for a in atlas) - 0.1 <= total_fraction <= max(a[8] for a in atlas) + 0.1

    slowest = names[max(range(6), key=lambda i: atlas[i][7])]
    profiled = re.search(rf"^profile of {re.escape(slowest)} \(the slowest benchmark\) on cpu: ([\d.]+) s wall; "
                         r"CPU operators busy ([\d.]+) s of a ([\d.]+) s trace", sections["4"], re.M)
    assert profiled, sections["4"][-2000:]
    wall, busy, span = map(float, profiled.groups())
    assert 0 < busy <= span + 0.001 and span <= wall + 0.001
    table = _floats(r"^  aten::\S+ +(\d+) +([\d.]+) +([\d.]+)%$", sections["4"])
    assert len(table) >= 3 and table[0][1] > 0 and sum(row[2] for row in table) <= 100.5
    ((gaps, _gap_seconds),) = _floats(r"host gaps \(no CPU operators running\): (\d+) gaps, ([\d.]+) s", sections["4"])
    ((*binned,),) = _floats(r"< 10 µs: (\d+) .*; 10–100 µs: (\d+) .*; 100–1000 µs: (\d+) .*; ≥ 1000 µs: (\d+) ",
                           sections["4"])
    assert sum(binned) == gaps > 0

    goals = re.findall(r"^  (.+): ([\d.]+)(%| s) \(goal (≤|≥) ([\d.]+)(%| s)\): (met|NOT met)$", sections["goals"],
                       re.M)
    assert len(goals) == 6 and "SMOKE MODE" in sections["goals"]
    for _, value, _, sign, bound, _, verdict in goals:
        assert (float(value) <= float(bound) if sign == "≤" else float(value) >= float(bound)) == (verdict == "met")
    measured = [float(value) for _, value, *_ in goals]
    assert measured == pytest.approx([crows["bfloat16"][1], crows["bfloat16"][2], crows["float32"][2],
                                      gemma["bfloat16", "census"], total_seconds, total_fraction], abs=0.051)
    assert "gpu.sh: all benchmarks done" in text


@pytest.mark.slow
def test_stereoset_bench_runs_in_smoke_mode(shared_data):
    """bench/speed/bench_stereoset.py on the packaged SmolLM2, 2 examples per task: its reference and
    ours agree per sentence (it exits naming the sentence if token counts differ), and the line
    it prints is the ratio of the two timings it printed."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, str(SPEED / "bench_stereoset.py"), "--smoke", "--threads", "1",
                          "--data", str(shared_data / "stereoset" / "dev.json")],
                         env=env, capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert out.returncode == 0, (out.stdout[-2000:], out.stderr[-2000:])
    ((ours,),) = _floats(r"ours +[\d.]+ sentences/s \(([\d.]+) s\)", out.stdout)
    ((theirs,),) = _floats(r"reference +[\d.]+ sentences/s \(([\d.]+) s\)", out.stdout)
    ((ratio, worst),) = _floats(r"ratio +([\d.]+)x; largest \|Δ mean token log-probability\| ([\d.e+-]+)",
                                out.stdout)
    assert "(12 sentences)" in out.stdout  # 2 intrasentence + 2 intersentence examples × 3 candidates
    # the seconds are printed to one decimal: the ratio lies within what their rounding allows
    assert (theirs - 0.05) / (ours + 0.05) - 0.01 <= ratio <= (theirs + 0.05) / max(ours - 0.05, 1e-3) + 0.01
    assert worst < 1e-4
