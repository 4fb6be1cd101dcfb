"""The whole GPU check in one process (bench/gpu.sh runs it): every section of issue 28,
then each goal with its measured value, met or not.

Sections, and the time each should take on one H200, estimated from the last measured
figures (matmul peaks 51 TFLOP/s fp32, 784 bf16; an older main's CrowS fp32 run at 7.3 s),
the FLOPs measure.py counts and the rows a CPU dry run of the same code plans; none of it
measured on this code (no GPU was lent when it was written):

1. CrowS-Pairs EN, all 1,508 pairs (41,140 masked copies, 817k tokens, 0.14 PFLOP),
   BERT-base-shaped masked LM, bfloat16 and float32, best of 2 each, the reference (one
   mask per forward) on 100 pairs (~2,700 forwards at ~4 ms), outcome flips bf16 vs fp32
   (bench_crows.py). bf16 is host-bound: 0.6 s of Python per run on this project's CPU
   (planning 0.3 s, padding 0.3 s) against 0.2 s of device work at the full peak. Build
   ~5 s; bf16 2 × ~1 s; fp32 2 × 3–7 s; references 2 × ~11 s: about 50 s.
2. Gemma-3-270M-shaped causal LM: census US, all 48,984 sentences, and the 1,508 CrowS
   pairs, bfloat16 and float32, one timed run each after a warm-up, the reference on
   300 sentences (bench_causal_gemma_shape.py). Census is host-bound (~0.15 PFLOP, 0.2 s
   of the bf16 peak; its dry run alone takes 4.4 s of Python here): 4 × 5–10 s + dry runs
   and references: about 60 s.
3. StereoSet and BBQ: one line each, saying whether the benchmark has landed (both have) and
   that this check has no timing section for it yet.
4. The whole atlas (census US/FR/NO, CrowS-Pairs EN/FR+210, zh-neutral: 162k sentences,
   1.54M row tokens of which 0.59M distinct prefixes' tokens, 0.71M read positions) on a
   7B-shaped Llama in bfloat16 drawn on the GPU (bench_atlas.py): 7.8 PFLOP needed, 10 s
   at the full bf16 peak; the engine computes ~1.2M tokens after its prefix sharing
   (15.5 PFLOP): 25–40 s at 50–75 % of the peak in its matrix products, so 25–38 % of the
   peak in needed FLOPs. + model draw ~10 s, tokenizer ~5 s, dry runs ~20 s, batch probe
   ~5 s: 65–80 s.
5. The profile: the slowest atlas benchmark (a census, ~30 % of the atlas) once more under
   torch.profiler, trace read back: 15–30 s.

With start-up (~10 s) and the two peaks (~5 s): 3½–4½ minutes, inside 10 with room to rerun.
``--smoke`` runs the same sections on the CPU with tiny models and a few probes.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import torch
import transformers

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]  # speed/, bench/
import bench_atlas  # noqa: E402
import bench_causal_gemma_shape  # noqa: E402
import bench_crows  # noqa: E402
from measure import matmul_peak  # noqa: E402


@dataclass(frozen=True)
class Goal:
    """One goal of issue 28: a measured value ``at_most`` (or at least) ``bound``."""

    what: str
    bound: float
    at_most: bool
    percent: bool = False

    def shown(self, value: float) -> str:
        return f"{value:.1%}" if self.percent else f"{value:.2f} s"

    def line(self, value: float | None) -> str:
        """``what: value (goal ≤ bound): met`` — or ``not measured`` without a value."""
        goal = f"{'≤' if self.at_most else '≥'} {self.shown(self.bound)}"
        if value is None:
            return f"{self.what}: not measured (goal {goal})"
        met = value <= self.bound if self.at_most else value >= self.bound
        return f"{self.what}: {self.shown(value)} (goal {goal}): {'met' if met else 'NOT met'}"


GOALS = {
    "crows_bf16_seconds": Goal("CrowS-Pairs EN on BERT-base shape, bfloat16, seconds", 1.0, True),
    "crows_bf16_fraction": Goal("CrowS-Pairs EN on BERT-base shape, bfloat16, of the bf16 peak", 0.15, False, True),
    "crows_fp32_fraction": Goal("CrowS-Pairs EN on BERT-base shape, float32, of the fp32 peak", 0.60, False, True),
    "census_gemma_seconds": Goal("census US on Gemma-3-270M shape, bfloat16, seconds", 20.0, True),
    "atlas_seconds": Goal("whole atlas on a 7B shape, bfloat16, seconds", 300.0, True),
    "atlas_fraction": Goal("whole atlas on a 7B shape, of the bf16 peak (needed FLOPs)", 0.25, False, True),
}

SMOKE = {
    "crows": ["--smoke", "--pairs", "12", "--reference-pairs", "3", "--repeats", "1", "--threads", "1"],
    "gemma": ["--smoke", "--n", "60", "--pairs", "10", "--reference-rows", "8", "--repeats", "1", "--threads", "1"],
    "atlas": ["--smoke", "--limit", "24", "--threads", "1"],
}
FULL = {
    "crows": ["--pairs", "0", "--reference-pairs", "100", "--repeats", "2", "--batch-size", "auto"],
    "gemma": ["--n", "0", "--pairs", "0", "--reference-rows", "300", "--repeats", "1", "--batch-size", "auto"],
    "atlas": ["--limit", "0", "--repeats", "1", "--batch-size", "auto"],
}
#: Benchmarks the issue lists that biasatlas does not have yet (module under biasatlas.benchmarks).
NOT_LANDED = {"StereoSet (dev)": "stereoset", "BBQ (all 58,492)": "bbq"}


def goal_values(crows: dict, gemma: list[dict], atlas: dict) -> dict[str, float | None]:
    """The measured value of each goal, from the sections' results (None: not run)."""
    runs = {r["dtype"]: r for r in crows["runs"]}
    census = [r for r in gemma if r["work"] == "census" and r["dtype"] == "bfloat16"]
    return {"crows_bf16_seconds": runs["bfloat16"]["seconds"] if "bfloat16" in runs else None,
            "crows_bf16_fraction": runs["bfloat16"]["fraction"] if "bfloat16" in runs else None,
            "crows_fp32_fraction": runs["float32"]["fraction"] if "float32" in runs else None,
            "census_gemma_seconds": census[0]["seconds"] if census else None,
            "atlas_seconds": atlas["seconds"], "atlas_fraction": atlas["fraction"]}


def print_summary(values: dict[str, float | None], smoke: bool) -> None:
    print("\n== goals (issue 28)" + (": SMOKE MODE, tiny models on the CPU — these are not the goals' "
                                     "measurements" if smoke else ""))
    for key, goal in GOALS.items():
        print("  " + goal.line(values.get(key)))


def not_landed() -> None:
    """One line per listed benchmark: skipped while it is not implemented (no numbers)."""
    for name, module in NOT_LANDED.items():
        if importlib.util.find_spec(f"biasatlas.benchmarks.{module}") is None:
            print(f"{name} on Gemma-3-270M shape: skipped: not yet implemented in biasatlas")
        else:
            print(f"{name}: biasatlas.benchmarks.{module} has landed but this check has no section for it yet")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="tiny models and sizes on the CPU")
    parser.add_argument("--profile", action=argparse.BooleanOptionalAction, default=True,
                        help="profile the slowest run (default: yes)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    device, sizes = ("cpu", SMOKE) if args.smoke else ("cuda", FULL)
    print("python", sys.version.split()[0], "torch", torch.__version__, "transformers", transformers.__version__,
          "cuda", torch.version.cuda, torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU")
    if args.smoke:  # measured small once here, then shared by every section (measure._PEAKS)
        torch.set_num_threads(1)
        peaks = {dtype: matmul_peak(device, dtype, 0.3, size=1024) for dtype in ("float32", "bfloat16")}
    else:
        peaks = {dtype: matmul_peak(device, dtype) for dtype in ("float32", "bfloat16")}
    print("matmul peaks (measured once for the whole run): "
          + ", ".join(f"{dtype} {peak / 1e12:.2f} TFLOP/s" for dtype, peak in peaks.items()))
    common = ["--device", device]
    print("\n== 1. CrowS-Pairs EN (masked LM, BERT-base shape, bfloat16 and float32)")
    crows = bench_crows.main([*common, "--dtype", "bfloat16,float32", *sizes["crows"]])
    print("\n== 2. Gemma-3-270M-shaped causal LM: census US and CrowS-Pairs EN (bfloat16 and float32)")
    gemma = bench_causal_gemma_shape.main([*common, "--dtype", "bfloat16,float32", *sizes["gemma"]])
    print("\n== 3. StereoSet and BBQ")
    not_landed()
    print("\n== 4. The whole atlas on a 7B-shaped Llama (bfloat16)" + (", then the profile" if args.profile else ""))
    atlas = bench_atlas.main([*common, *sizes["atlas"], "--profile" if args.profile else "--no-profile"])
    print_summary(goal_values(crows, gemma, atlas), args.smoke)
    print(f"\ngpu.sh: all benchmarks done in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
