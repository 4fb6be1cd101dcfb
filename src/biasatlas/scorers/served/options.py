"""The served wing's options (``--model URL``), declared here as a benchmark's ``ChatOptions`` is
declared: a dataclass of :func:`~biasatlas.option_fields.option` fields, composed into
:class:`~biasatlas.model_options.ModelOptions` as one of its bases, so ``biasatlas run``'s flags, the
run record and a suite's keys come from these declarations and a new served option is one field here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import UsageError, did_you_mean
from ...option_fields import option
from ...values import MAX_SECONDS, check_seconds
from .http import DEFAULT_CONCURRENCY, DEFAULT_KEY_ENV, DEFAULT_TIMEOUT, SERVED_APIS, Endpoint, ServedApi, is_endpoint
from .tokens import SINGLE_TOKEN_CHOICES, SingleToken


@dataclass(frozen=True, kw_only=True)
class ServedOptions:
    """How a served model is asked: which model on the server, the text before every prompt, the API,
    the one-token reading, and the requests (how many in flight, the key's variable, the timeout)."""

    served_model: str | None = option(None, "With --model URL: the model's id on that server (default: the only "
                                       "one it serves).", when_set=True, metavar="<id>")
    served_prefix: str | None = option(None, "With --model URL: text before every prompt, never scored: the "
                                        "model's start token, e.g. '<|im_start|>', where the server adds none "
                                        "(default: the served folder's, where it is readable here).",
                                        when_set=True, metavar="<text>")
    served_api: ServedApi | None = option(None, "With --model URL: completions (default: /v1/completions, "
                                          "log-probabilities, and the chat template rendered here) or chat "
                                          "(/v1/chat/completions: the server renders its own template; generated "
                                          "answers only).", when_set=True)
    single_token: SingleToken | None = option(
        None, "With --model URL: how an option of one token after its context is read: auto (vLLM's "
        "logprob_token_ids, one prompt per context, where the server reads the canary alike both ways; else "
        "echo) or echo (each option's whole text echoed). Default auto.", when_set=True)
    concurrency: int = option(DEFAULT_CONCURRENCY, "With --model URL: requests in flight at once.",
                               unscored=True, minimum=1)
    api_key_env: str | None = option(None, f"With --model URL: the environment variable holding the API key "
                                      f"(default: {DEFAULT_KEY_ENV}, when set). A key is never an option.",
                                      unscored=True, metavar="<VAR>")
    request_timeout: float = option(DEFAULT_TIMEOUT, "With --model URL: seconds one request may take in all "
                                     f"(connect, send, wait, read) before it is retried; at most {MAX_SECONDS:g}.",
                                     unscored=True, minimum=0, metavar="<seconds>")

    def check_served(self, model: str) -> None:
        """The checks that need nothing but the values, for the ``model`` named: a URL with user-info is
        refused before it is recorded anywhere, and ``--served-api`` only with a URL."""
        check_seconds("--request-timeout", self.request_timeout)
        if is_endpoint(model):
            Endpoint.parse(model)
        if self.served_api is not None and (self.served_api not in SERVED_APIS or not is_endpoint(model)):
            raise UsageError(f"--served-api {self.served_api}: completions or chat, with --model URL (a served model)")

    def check_single_token(self) -> None:
        if self.single_token is not None and self.single_token not in SINGLE_TOKEN_CHOICES:
            raise did_you_mean("served single-token reading", self.single_token, SINGLE_TOKEN_CHOICES)
