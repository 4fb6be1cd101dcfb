"""Options shared by every ``biasatlas run <benchmark>`` command, and the run itself.

Every benchmark's command (one module each in this package) uses these aliases, so all
benchmarks take the same model options with the same help text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

DEFAULT_MODEL = "gemma-3-270m"
Model = Annotated[str, typer.Option("--model", "-m", help="Hub id, local folder, packaged name "
                                    "(gemma-3-270m, smollm2-135m) or 'fake'.")]
ScorerName = Annotated[str, typer.Option("--scorer", help="auto | masked-lm | causal-lm | seq2seq | fake")]
Variant = Annotated[str | None, typer.Option("--variant", help="Pair-scoring variant (see 'biasatlas list').")]
BatchSize = Annotated[int, typer.Option("--batch-size", min=1,
                                        help="Rows (masked copies or sentences) per forward pass.")]
Device = Annotated[str, typer.Option("--device", help="cpu, cuda, cuda:1, mps …")]
Dtype = Annotated[str, typer.Option("--dtype", help="float32 (default), or bfloat16/float16 on GPU.")]
Revision = Annotated[str | None, typer.Option("--revision", help="Hub revision (commit, tag, branch).")]
Trust = Annotated[bool, typer.Option("--trust-remote-code", help="Allow a hub model's own code to run.")]
Out = Annotated[Path | None, typer.Option("--out", "-o", help="Run folder to write.")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the score cache.")]
Refresh = Annotated[bool, typer.Option("--refresh", help="Rescore everything and overwrite cached scores.")]
Limit = Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N items (for a quick look).")]
Force = Annotated[bool, typer.Option("--force", help="Replace the run in --out when its settings differ "
                                     "(a folder that is not a run folder is never replaced).")]


@dataclass(frozen=True)
class ScorerOptions:
    model: str
    scorer: str
    variant: str | None
    batch_size: int
    device: str
    dtype: str
    revision: str | None
    trust_remote_code: bool

    def build(self) -> Any:
        from ..registry import load_scorer

        kw: dict[str, Any] = {"variant": self.variant}
        if self.model != "fake" and self.scorer != "fake":
            kw.update(batch_size=self.batch_size, device=self.device, dtype=self.dtype,
                      revision=self.revision, trust_remote_code=self.trust_remote_code)
        return load_scorer(self.model, self.scorer, **kw)


def execute(benchmark: Any, options: ScorerOptions, out: Path | None, *, no_cache: bool = False,
            refresh: bool = False, force: bool = False) -> None:
    """Score (through the score cache unless ``no_cache``), write the run folder, print the table.

    The run folder is claimed before the model loads (:func:`biasatlas.results.claim_run_folder`),
    so a wrong ``--out`` fails in a second, not after the scoring.
    """
    from rich.console import Console

    from ..cache import ScoreCache, default_cache_path
    from ..pipeline import evaluate
    from ..results import claim_run_folder, write_run

    console = Console(stderr=True)
    lock = None if out is None else claim_run_folder(out, run_request(benchmark, options), force=force)
    try:
        console.print(f"[bold]{benchmark.name}[/] · loading model {options.model} …")
        cache = None if no_cache else ScoreCache(default_cache_path())
        run = evaluate(benchmark, options.build(), progress=True, cache=cache, refresh=refresh)
        if run.timing.get("cache_hits"):
            console.print(f"reused {run.timing['cache_hits']} cached answers; scored {run.timing['scored']}")
        Console().print(benchmark.table(run.summary))
        if out is not None:
            write_run(run, out)
            console.print(f"run folder: {out}")
    finally:
        if lock is not None:
            lock.release()


def run_request(benchmark: Any, options: ScorerOptions) -> dict[str, Any]:
    """What makes two runs the same run: the benchmark's settings and the model options
    that change scores (not batch size or device, which must not)."""
    from dataclasses import asdict

    model = {k: v for k, v in asdict(options).items() if k not in ("batch_size", "device")}
    return {"benchmark": benchmark.config(), "model": model}
