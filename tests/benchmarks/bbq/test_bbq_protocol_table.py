"""The generated reading's protocols are one table (issue 48): ``--parser``'s choices, ``auto``'s choice, the
parser sensitivity and the MBBQ headline all read it, and each row is what its module declares."""

from __future__ import annotations

import typing

from biasatlas.benchmarks.bbq import BBQ
from biasatlas.benchmarks.bbq.data import DATASETS
from biasatlas.benchmarks.bbq.generated import kobbq, lm_eval, mbbq
from biasatlas.benchmarks.bbq.generated.table import AUTO, DEFAULT, PARSE_RULES, PROTOCOLS, kin, own


def test_the_parser_option_takes_auto_and_every_row_of_the_table() -> None:
    assert (AUTO, *PROTOCOLS) == PARSE_RULES and len(set(PARSE_RULES)) == len(PARSE_RULES)
    assert typing.get_args(typing.get_type_hints(BBQ)["parser"]) == PARSE_RULES  # the Literal the checks read
    assert list(PROTOCOLS.values()) == [lm_eval.PROTOCOL, kobbq.PROTOCOL, mbbq.PROTOCOL, lm_eval.OPTION_TEXT]
    assert DEFAULT is lm_eval.PROTOCOL


def test_auto_gives_each_dataset_a_rule_that_reads_it_or_the_default() -> None:
    for dataset in DATASETS:
        rule = own(dataset)
        assert dataset in rule.reads or rule is DEFAULT, dataset
        assert BBQ(dataset=dataset, answers="likelihood").protocol is rule
    assert all(set(p.owns) <= set(p.reads) for p in PROTOCOLS.values())


def test_each_rule_is_its_own_parser_sensitivity() -> None:
    # rules asking the same prompts are each other's perturbations: lm-eval's and option-text (issue 49)
    both = (lm_eval.PROTOCOL.name, lm_eval.OPTION_TEXT.name)
    assert [kin(p) for p in PROTOCOLS.values()] == [both, (kobbq.PROTOCOL.name,), (mbbq.PROTOCOL.name,), both]
