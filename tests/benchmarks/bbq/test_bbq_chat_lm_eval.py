"""BBQ through SmolLM2-135M-Instruct's chat template against lm-evaluation-harness 0.4.13's ``bbq`` task with
``--apply_chat_template`` (its own virtualenv, ``tests/lm_eval_venv.py``), slow.

One seeded item per category (11) is written as a local copy of the task's data; lm-eval's own task code
(``fewshot_context`` with the model's ``apply_chat_template``, then ``construct_requests``) builds every
request and its ``HFLM`` scores it. Ours, ``--options lm-eval --chat-template model`` on the same items, must
ask the same context and continuation for each of the 12 options and agree on each log-likelihood within
float32 noise (1e-4; measured 2.7e-5 at most). The same items through ``bbq_generate`` (32 new tokens, batch
size 1): the same prompt and the same generated text.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from biasatlas.benchmarks.bbq import BBQ
from biasatlas.probes import ContinuationProbe, GenerationAnswer, GenerationProbe, SlotAnswer
from lm_eval_venv import run_in_lm_eval
from packaged_smollm2 import smollm2

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("isolated_run")]

TASK = """
import json, sys
from pathlib import Path
asked = json.loads(sys.stdin.readline())
import lm_eval
from lm_eval.models.huggingface import HFLM
from lm_eval.tasks import TaskManager, get_task_dict
folder, name = Path(asked["folder"]), asked["task"]
original = Path(lm_eval.__file__).parent / "tasks" / "bbq" / asked["yaml"]
(folder / f"{name}.yaml").write_text(f"include: {original}\\ntask: {name}\\ndataset_path: json\\n"
                                     f"dataset_name: null\\ndataset_kwargs:\\n  data_files:\\n"
                                     f"    test: {folder / 'bbq.jsonl'}\\n")
lm = HFLM(pretrained=asked["model"], batch_size=asked["batch_size"], device="cpu", dtype="float32")
task = get_task_dict([name], TaskManager(include_path=str(folder)))[name]
"""

SCORE = TASK + """
out = []
for doc in task.test_docs():
    context = task.fewshot_context(doc, 0, apply_chat_template=True, chat_template=lm.apply_chat_template)
    requests = task.construct_requests(doc, context, apply_chat_template=True, metadata=("bbq", 0, 1))
    logprobs = [v for v, _ in lm.loglikelihood(requests, disable_tqdm=True)]
    out.append({"id": f"{doc['category']}/{doc['example_id']}", "arguments": [list(r.arguments) for r in requests],
                "logprobs": logprobs})
print(json.dumps(out))
"""

GENERATE = TASK + """
docs = list(task.test_docs())
requests = []
for i, doc in enumerate(docs):
    context = task.fewshot_context(doc, 0, apply_chat_template=True, chat_template=lm.apply_chat_template)
    request = task.construct_requests(doc, context, apply_chat_template=True, metadata=(name, i, 1))
    request.arguments[1]["max_gen_toks"] = 32
    requests.append(request)
texts = lm.generate_until(requests, disable_tqdm=True)
print(json.dumps([{"id": f"{d['category']}/{d['example_id']}", "prompt": r.arguments[0], "text": t}
                  for d, r, t in zip(docs, requests, texts)]))
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
    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer

    folder = smollm2()
    _items(shared_data, tmp_path)
    asked = {"model": str(folder), "folder": str(tmp_path), "task": "bbq", "yaml": "bbq_multiple_choice.yaml",
             "batch_size": 8}
    theirs = {row["id"]: row for row in run_in_lm_eval(SCORE, asked)}
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


def test_chat_prompts_and_generated_answers_equal_lm_evals_bbq_generate_on_smollm2(shared_data: Path,
                                                                                  tmp_path: Path) -> None:
    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer

    folder = smollm2()
    _items(shared_data, tmp_path)
    theirs = {row["id"]: row for row in run_in_lm_eval(GENERATE, {"model": str(folder), "folder": str(tmp_path),
                                                                  "task": "bbq_generate", "yaml": "bbq_generate.yaml",
                                                                  "batch_size": 1})}
    scorer = CausalLMScorer(str(folder), start_token="empty-context")
    bench = BBQ(data=tmp_path, answers="generated", max_new_tokens=32, chat_template="model").bind(scorer.info)
    probes = [p for p in bench.probes(bench.load()) if isinstance(p, GenerationProbe)]
    assert sorted(p.id for p in probes) == sorted(theirs) and len(probes) == 11
    answers = scorer.score(probes)
    for p in probes:
        answer = answers[p.id]
        assert p.prompt == theirs[p.id]["prompt"], p.id
        assert isinstance(answer, GenerationAnswer) and answer.text == theirs[p.id]["text"], p.id
