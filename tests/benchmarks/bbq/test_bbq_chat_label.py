"""The chat template's label in a BBQ summary (issue 38: a base model with no template and a chat model run
without one are both allowed and both labelled), written beside the scores and read back typed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from biasatlas.benchmarks.bbq import BBQ
from biasatlas.benchmarks.bbq.data import Example
from biasatlas.benchmarks.bbq.summary import BBQRunSummary
from biasatlas.probes import ChatTokens, ScorerInfo, SlotAnswer
from biasatlas.runs.typed import encode

TEMPLATE = "{% for m in messages %}<|user|>{{ m['content'] }}<|end|>\n{% endfor %}<|assistant|>"
EXAMPLE = Example(id="Age/1", category="Age", template="Age/1", polarity="neg", ambiguous=True, context="C.",
                  question="Who?", options=("The old", "Unknown", "The young"), label=1, unknown=1, target=0)
# the unknown option best: a correct abstention in an ambiguous context
ANSWERS = {f"Age/1#{k}": SlotAnswer(f"Age/1#{k}", (v,), (1,)) for k, v in enumerate((-3.0, -1.0, -2.0))}


def _info(template: str | None) -> ScorerInfo:
    return ScorerInfo("causal-lm", "sequence", chat=ChatTokens(template, model="m"), generates=True)


@pytest.mark.parametrize(("choice", "info", "label"), [
    ("none", _info(TEMPLATE), "none (the model has one)"),
    ("none", _info(None), "none (the model has none)"),
    ("model", _info(TEMPLATE), f"model (sha256 {hashlib.sha256(TEMPLATE.encode()).hexdigest()[:12]})"),
    ("none", ScorerInfo("fake", "sequence"), None),  # a scorer that knows no template: nothing written
])
def test_each_label_is_in_the_summary(choice: str, info: ScorerInfo, label: str | None) -> None:
    result = BBQ(chat_template=choice).bind(info).score([EXAMPLE], ANSWERS)
    summary = result.summary
    assert isinstance(summary, BBQRunSummary) and summary.chat_template == label
    assert summary.overall.accuracy_amb == 100.0  # the scores are the same code's, untouched by the label
    written = encode(summary)  # summary.json's object, read back typed as the report reads it
    assert ("chat_template" in written) == (label is not None)
    assert BBQRunSummary.read(written, Path("summary.json")).chat_template == label
