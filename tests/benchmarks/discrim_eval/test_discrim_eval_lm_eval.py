"""DiscrimEval against lm-evaluation-harness 0.4.13 (its own virtualenv, ``tests/lm_eval_venv.py``), slow.

* the fit: lm-eval's ``discrim_eval/utils.py`` aggregation (``agg_demographic_bias_regression``, random
  slopes) run on planted logits of three scenarios, against our coefficients on the same logits;
* the prompt and the reading: on the packaged SmolLM2-135M-Instruct, lm-eval's ``HFLM`` builds each
  prompt (plain: question + instruction + cue; chat: its ``apply_chat_template`` of the user turn and the
  open assistant cue, as its task does with ``--apply_chat_template``) and scores ``yes/Yes/no/No``; the
  texts must equal ours and the log-likelihoods agree within float32 noise.

lm-eval's aggregation imports statsmodels, which its virtualenv lacks: the subprocess is given links to
ours (same numpy, scipy and pandas pins).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from biasatlas.benchmarks.discrim_eval import DiscrimEval
from biasatlas.benchmarks.discrim_eval.analysis import FORMS, Decision, mixed_model
from biasatlas.benchmarks.discrim_eval.benchmark import CUE, INSTRUCTION
from lm_eval_venv import run_in_lm_eval
from packaged_smollm2 import smollm2

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("isolated_run")]  # shared data, as CI reads it

AGGREGATE = """
import json, sys
asked = json.loads(sys.stdin.readline())
sys.path.append(asked["path"])  # after lm-eval's own packages: only statsmodels and patsy are found there
rows = asked["rows"]
from lm_eval.tasks.discrim_eval import utils
out = {}
for name in utils.BIAS_PARAM_MAP:
    items = [((r["race"], r["gender"], r["age"], r["scenario"]), name, r["logit"]) for r in rows]
    out[name] = utils.agg_demographic_bias_regression(items)
print(json.dumps(out))
"""

SCORE = """
import json, sys
asked = json.loads(sys.stdin.readline())
from lm_eval.api.instance import Instance
from lm_eval.models.huggingface import HFLM
lm = HFLM(pretrained=asked["model"], batch_size=8, device="cpu", dtype="float32")
gen_prefix = asked["cue"]
out = {}
for mode in ("plain", "chat"):
    contexts = []
    for user in asked["users"]:
        if mode == "plain":
            contexts.append(user + gen_prefix)
        else:
            contexts.append(lm.apply_chat_template([{"role": "user", "content": user},
                                                    {"role": "assistant", "content": gen_prefix}],
                                                   add_generation_prompt=False))
    requests = [Instance(request_type="loglikelihood", doc={}, arguments=(c, form), idx=i)
                for i, (c, form) in enumerate((c, f) for c in contexts for f in ("yes", "Yes", "no", "No"))]
    out[mode] = {"contexts": contexts, "logprobs": [v for v, _ in lm.loglikelihood(requests, disable_tqdm=True)]}
print(json.dumps(out))
"""


def _statsmodels_only(tmp_path: Path) -> str:
    import patsy
    import statsmodels

    for module in (statsmodels, patsy):
        (tmp_path / module.__name__).symlink_to(Path(module.__file__).parent)
    return str(tmp_path)


def test_coefficients_equal_lm_evals_aggregation(tmp_path: Path) -> None:
    bench = DiscrimEval(scenarios=3, seed=1)
    items = bench.load()
    rng = np.random.default_rng(11)
    effects = {s: float(rng.normal(0, 1)) for s in {p.scenario for p in items}}
    decisions = []
    for p in items:
        logit = effects[p.scenario] - 0.01 * (p.age - 60) + 0.3 * (p.race == "asian") + float(rng.normal(0, 0.4))
        q = 1 / (1 + math.exp(-logit))
        decisions.append(Decision(p, (math.log(q), -30.0, math.log(1 - q), -30.0)))
    rows = [{"race": d.prompt.race, "gender": d.prompt.gender, "age": d.prompt.age, "scenario": d.prompt.scenario,
             "logit": d.logit} for d in decisions]
    theirs = run_in_lm_eval(AGGREGATE, {"path": _statsmodels_only(tmp_path), "rows": rows})
    ours, _ = mixed_model(decisions, "slopes")
    names = {"black_bias": "black", "asian_bias": "asian", "hispanic_bias": "hispanic",
             "native_american_bias": "native american", "female_bias": "female", "non_binary_bias": "non-binary"}
    for name, level in names.items():
        assert ours[level].estimate == pytest.approx(theirs[name], abs=1e-6), name
    assert abs(ours["age"].estimate) == pytest.approx(theirs["age_bias"], abs=1e-6)  # lm-eval reports |age|


def test_prompts_and_log_likelihoods_equal_lm_evals_on_smollm2() -> None:
    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer

    folder = smollm2()
    bench = DiscrimEval(sample=6, seed=3)
    items = bench.load()
    users = [p.text + INSTRUCTION for p in items]
    theirs = run_in_lm_eval(SCORE, {"model": str(folder), "users": users, "cue": CUE})
    scorer = CausalLMScorer(str(folder), start_token="empty-context")
    for choice, mode in (("none", "plain"), ("model", "chat")):
        bound = DiscrimEval(sample=6, seed=3, chat_template=choice).bind(scorer.info)
        assert [bound.context(p) for p in items] == theirs[mode]["contexts"], mode
        answers = scorer.score(bound.probes(items))
        ours = [answers[f"{p.id}.{form}"].logprobs[0] for p in items for form in FORMS]
        assert np.max(np.abs(np.array(ours) - np.array(theirs[mode]["logprobs"]))) < 2e-4, mode
