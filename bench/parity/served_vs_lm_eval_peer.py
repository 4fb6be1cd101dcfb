"""lm-evaluation-harness's ``local-completions`` on a list of (context, continuation) requests:
the peer's reading of the same server, for bench/parity/served_vs_inprocess.py (run it with the python of a
virtualenv that has lm-eval, e.g. ``.venvs/lm-eval/bin/python``; it imports nothing of biasatlas).

    python bench/parity/served_vs_lm_eval_peer.py REQUESTS.json OUT.json --url http://127.0.0.1:8000/v1 \
        --model smollm2 --tokenizer FOLDER [--batch-size 16] [--concurrent 4]

REQUESTS.json is a list of ``[context, continuation]``; OUT.json gets ``{"values": [...], "seconds": s}``,
one summed log-probability per request (lm-eval's ``loglikelihood``: the model's BOS, else EOS,
before an empty context, token ids sent to the server, ``token_logprobs`` sliced by position).
"""

from __future__ import annotations

import argparse
import json
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("requests")
    parser.add_argument("out")
    parser.add_argument("--url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--concurrent", type=int, default=4)
    args = parser.parse_args()

    from lm_eval.api.instance import Instance
    from lm_eval.models.openai_completions import LocalCompletionsAPI

    with open(args.requests, encoding="utf-8") as asked:
        pairs = json.load(asked)
    lm = LocalCompletionsAPI(base_url=f"{args.url.rstrip('/')}/completions", model=args.model,
                             tokenizer=args.tokenizer, tokenizer_backend="huggingface",
                             batch_size=args.batch_size, num_concurrent=args.concurrent, max_length=2048)
    instances = [Instance(request_type="loglikelihood", doc={}, arguments=(c, x), idx=i)
                 for i, (c, x) in enumerate(pairs)]
    started = time.perf_counter()
    results = lm.loglikelihood(instances, disable_tqdm=True)
    seconds = time.perf_counter() - started
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump({"values": [float(r[0]) for r in results], "seconds": seconds}, out)


if __name__ == "__main__":
    main()
