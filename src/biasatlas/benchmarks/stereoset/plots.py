"""StereoSet's figure: SS per domain (gender, profession, race, religion) and overall, one dot per
task, with its 95 % bootstrap interval over target terms, around 50 (no preference between the
stereotype and the anti-stereotype: Nadeem et al. 2021's ideal); each row's LMS, the control
that says whether the model tells related from unrelated sentences, in its tooltip."""

from __future__ import annotations

from ...display.dots import Dot, DotChart, dot_plot
from ...display.style import number_text
from ...display.svg import Plot
from ...runs.view import RunView
from .data import DOMAINS, TASKS
from .summary import SetScores, StereoSetRunSummary


def plots(run: RunView) -> list[Plot]:
    s = run.typed(StereoSetRunSummary)
    rows = [name for name in (*DOMAINS, "overall") if any(name in s.tasks.get(t, {}) for t in TASKS)]
    dots = [_dot(name, task, s.tasks[task][name]) for name in rows for task in TASKS if name in s.tasks.get(task, {})]
    if not dots:
        return []
    chart = DotChart(f"StereoSet SS by domain · {run.label} · {run.dataset}",
                     f"StereoSet SS by domain · {run.label} · {run.dataset}",
                     "SS: % of examples preferring the stereotype (50 = no preference)",
                     f"StereoSet SS per domain and task with 95% intervals for {run.label}",
                     reference=50.0, limits=(0.0, 100.0))
    return [dot_plot(chart, rows, dots)]


def _dot(name: str, task: str, s: SetScores) -> Dot:
    low, high = s.interval("ss")
    return Dot(name, task, s.ss, low, high, f"n = {int(s.n or 0)}; LMS {number_text(s.lms)}")
