"""BBQ through SmolLM2-135M-Instruct's chat template against lm-evaluation-harness 0.4.13's ``bbq`` task with
``--apply_chat_template`` (its own virtualenv, ``tests/lm_eval_venv.py``), slow.

One seeded item per category (11) is written as a local copy of the task's data; lm-eval's own task code
(``fewshot_context`` with the model's ``apply_chat_template``, then ``construct_requests``) builds every
request and its ``HFLM`` scores it. Ours, ``--options lm-eval --chat-template model`` on the same items, must
ask the same context and continuation for each of the 12 options and agree on each log-likelihood within
float32 noise (1e-4; measured 2.7e-5 at most).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from biasatlas.benchmarks.bbq import BBQ
from biasatlas.probes import ContinuationProbe, SlotAnswer
from lm_eval_venv import run_in_lm_eval
from packaged_smollm2 import smollm2

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("isolated_run")]

SCORE = """
import json, sys
from pathlib import Path
asked = json.loads(sys.stdin.readline())
import lm_eval
from lm_eval.models.huggingface import HFLM
from lm_eval.tasks import TaskManager, get_task_dict
folder = Path(asked["folder"])
original = Path(lm_eval.__file__).parent / "tasks" / "bbq" / "bbq_multiple_choice.yaml"
(folder / "bbq.yaml").write_text(f"include: {original}\\ntask: bbq\\ndataset_path: json\\ndataset_name: null\\n"
                                 f"dataset_kwargs:\\n  data_files:\\n    test: {folder / 'bbq.jsonl'}\\n")
lm = HFLM(pretrained=asked["model"], batch_size=8, device="cpu", dtype="float32")
task = get_task_dict(["bbq"], TaskManager(include_path=str(folder)))["bbq"]
out = []
for doc in task.test_docs():
    context = task.fewshot_context(doc, 0, apply_chat_template=True, chat_template=lm.apply_chat_template)
    requests = task.construct_requests(doc, context, apply_chat_template=True, metadata=("bbq", 0, 1))
    logprobs = [v for v, _ in lm.loglikelihood(requests, disable_tqdm=True)]
    out.append({"id": f"{doc['category']}/{doc['example_id']}", "arguments": [list(r.arguments) for r in requests],
                "logprobs": logprobs})
print(json.dumps(out))
"""


def _items(shared: Path, folder: Path) -> list[dict[str, object]]:
    """One item per category drawn with a fixed seed, as BBQ's own files (for ``data=``) and as one file
    for the harness."""
    rows = []
    for path in sorted((shared / "bbq").glob("*.jsonl")):
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        row = json.loads(lines[random.Random(f"38/{path.stem}").randrange(len(lines))])
        (folder / path.name).write_text(json.dumps(row) + "\n", encoding="utf-8")
        rows.append(row)
    (folder / "additional_metadata.csv").write_bytes((shared / "bbq" / "additional_metadata.csv").read_bytes())
    (folder / "bbq.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return rows


def test_chat_prompts_and_log_likelihoods_equal_lm_evals_on_smollm2(shared_data: Path, tmp_path: Path) -> None:
    from biasatlas.scorers.causal_lm import CausalLMScorer

    folder = smollm2()
    _items(shared_data, tmp_path)
    theirs = {row["id"]: row for row in run_in_lm_eval(SCORE, {"model": str(folder), "folder": str(tmp_path)})}
    scorer = CausalLMScorer(str(folder), start_token="empty-context")
    bench = BBQ(data=tmp_path, options="lm-eval", chat_template="model").bind(scorer.info)
    items = [e for e in bench.load() if e.target is not None]
    assert sorted(e.id for e in items) == sorted(theirs) and len(items) == 11
    probes = bench.probes(items)
    answers = scorer.score(probes)
    gaps = []
    for e in items:
        ours = [p for p in probes if isinstance(p, ContinuationProbe) and p.id.startswith(f"{e.id}#")]
        assert [[p.contexts[0], p.continuation] for p in ours] == theirs[e.id]["arguments"], e.id
        values = [a.logprobs[0] for p in ours if isinstance(a := answers[p.id], SlotAnswer)]
        gaps.append(np.max(np.abs(np.array(values) - np.array(theirs[e.id]["logprobs"]))))
    assert max(gaps) < 1e-4
