"""``biasatlas check-server URL``: the served scorer's trust checks, alone, before a long run.

The same checks a run makes before scoring (:mod:`biasatlas.scorers.served.checks`); a server
that fails one is refused in one line naming the check, the URL and what to do (exit 1); one
that passes them all gets a table: what it serves, its version, each check, the fingerprint.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Annotated

import typer

from ..model_options import ModelOptions
from ..scorers.served.http import DEFAULT_TIMEOUT
from ..values import check_seconds


def _run_help(name: str) -> str:
    """``biasatlas run``'s help of the model option ``name`` (check-server's flag of the same name means
    the same), without its "With --model URL:" (check-server is given nothing else)."""
    help_text = str(next(f for f in fields(ModelOptions) if f.name == name).metadata["help"])
    rest = help_text.removeprefix("With --model URL: ")
    return rest[:1].upper() + rest[1:]


Url = Annotated[str, typer.Argument(help="The API's base URL, e.g. http://127.0.0.1:8000/v1.", metavar="<url>")]
Name = Annotated[str | None, typer.Option(help="The model's id on that server (default: the only one it serves).",
                                          metavar="<id>")]
Prefix = Annotated[str | None, typer.Option(help="Text before every prompt, never scored: the model's start token "
                                            "where the server adds none.", metavar="<text>")]
KeyEnv = Annotated[str | None, typer.Option(help="The environment variable holding the API key (default: "
                                            "OPENAI_API_KEY, when set).", metavar="<VAR>")]
Timeout = Annotated[float, typer.Option(help=_run_help("request_timeout"), metavar="<seconds>", min=0)]


def check_server_command(url: Url, served_model: Name = None, served_prefix: Prefix = None,
                         api_key_env: KeyEnv = None, request_timeout: Timeout = DEFAULT_TIMEOUT) -> None:
    """Check that a server's log-probabilities can be trusted (docs/serving.md): one per prompt
    token, offsets that tile the text, a start token, finite values ≤ 0, determinism, a prefix
    that does not move."""
    check_seconds("--request-timeout", request_timeout)  # a usage mistake, before any request
    from rich.console import Console
    from rich.table import Table

    from ..scorers.served.completions import ServedScorer
    from ..scorers.served.checks import CHECKS

    scorer = ServedScorer(url, served_model=served_model, served_prefix=served_prefix, api_key_env=api_key_env,
                          request_timeout=request_timeout)
    described = scorer.describe()
    table = Table(title=f"{scorer.where}: trusted")
    table.add_column("")
    table.add_column("")
    for key in ("served_model", "root", "server", "server_version", "prefix"):
        table.add_row(key, repr(described[key]) if key == "prefix" else str(described[key]))
    for check in CHECKS:
        table.add_row(f"check {check}", "passed")
    table.add_row("canary fingerprint", scorer.canary.fingerprint)
    Console().print(table)
