"""The papers a BBQ-family run rests on: BBQ itself for every dataset (each of the others adapts
its templates and its metric), and the dataset's own paper for MBBQ, KoBBQ, CBBQ, EsBBQ and CaBBQ.

Entries as the venues' records give them (ACL Anthology for BBQ and CBBQ, TACL for KoBBQ, the
COLM proceedings for MBBQ, arXiv for EsBBQ/CaBBQ).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...display.cite import Reference
from ...runs.view import RunView

#: Parrish et al. (Findings of ACL 2022): the benchmark, its metric and the English set.
PARRISH_2022 = Reference("parrish-etal-2022-bbq", "inproceedings", (
    ("title", "{BBQ}: A hand-built bias benchmark for question answering"),
    ("author", "Parrish, Alicia and Chen, Angelica and Nangia, Nikita and Padmakumar, Vishakh and Phang, Jason "
               "and Thompson, Jana and Htut, Phu Mon and Bowman, Samuel"),
    ("booktitle", "Findings of the Association for Computational Linguistics: ACL 2022"),
    ("year", "2022"), ("address", "Dublin, Ireland"), ("publisher", "Association for Computational Linguistics"),
    ("pages", "2086--2105"), ("doi", "10.18653/v1/2022.findings-acl.165")))
#: Neplenbroek, Bisazza & Fernández (COLM 2024): MBBQ, BBQ in Dutch, Spanish and Turkish with its control set.
NEPLENBROEK_2024 = Reference("neplenbroek-etal-2024-mbbq", "inproceedings", (
    ("title", "{MBBQ}: A Dataset for Cross-Lingual Comparison of Stereotypes in Generative {LLM}s"),
    ("author", "Neplenbroek, Vera and Bisazza, Arianna and Fern{\\'a}ndez, Raquel"),
    ("booktitle", "First Conference on Language Modeling (COLM)"), ("year", "2024"),
    ("eprint", "2406.07243"), ("archivePrefix", "arXiv")))
#: Jin et al. (TACL 2024): KoBBQ, BBQ adapted to Korean culture.
JIN_2024 = Reference("jin-etal-2024-kobbq", "article", (
    ("title", "{K}o{BBQ}: {K}orean Bias Benchmark for Question Answering"),
    ("author", "Jin, Jiho and Kim, Jiseon and Lee, Nayeon and Yoo, Haneul and Oh, Alice and Lee, Hwaran"),
    ("journal", "Transactions of the Association for Computational Linguistics"), ("volume", "12"),
    ("year", "2024"), ("pages", "507--524"), ("doi", "10.1162/tacl_a_00661")))
#: Huang & Xiong (LREC-COLING 2024): CBBQ, the Chinese BBQ.
HUANG_2024 = Reference("huang-xiong-2024-cbbq", "inproceedings", (
    ("title", "{CBBQ}: A {C}hinese Bias Benchmark Dataset Curated with Human-{AI} Collaboration for Large "
              "Language Models"),
    ("author", "Huang, Yufei and Xiong, Deyi"),
    ("booktitle", "Proceedings of the 2024 Joint International Conference on Computational Linguistics, "
                  "Language Resources and Evaluation (LREC-COLING 2024)"),
    ("year", "2024"), ("address", "Torino, Italia"), ("publisher", "ELRA and ICCL"), ("pages", "2917--2929")))
#: Ruiz-Fernández et al. (arXiv 2025): EsBBQ and CaBBQ, BBQ for Spanish and Catalan and Spain's social context.
RUIZ_FERNANDEZ_2025 = Reference("ruizfernandez-etal-2025-esbbq-cabbq", "misc", (
    ("title", "{EsBBQ} and {CaBBQ}: The {S}panish and {C}atalan Bias Benchmarks for Question Answering"),
    ("author", "Ruiz-Fern{\\'a}ndez, Valle and Mina, Mario and Falc{\\~a}o, J{\\'u}lia and Vasquez-Reina, Luis "
               "and Sall{\\'e}s, Anna and Gonzalez-Agirre, Aitor and Perez-de-Vi{\\~n}aspre, Olatz"),
    ("year", "2025"), ("eprint", "2507.11216"), ("archivePrefix", "arXiv")))

#: Each dataset's own paper, beside BBQ's (``en`` is BBQ's own set).
DATASET_PAPERS: Mapping[str, Reference] = {"mbbq-nl": NEPLENBROEK_2024, "mbbq-es": NEPLENBROEK_2024,
                                           "mbbq-tr": NEPLENBROEK_2024, "mbbq-en": NEPLENBROEK_2024,
                                           "kobbq": JIN_2024, "cbbq": HUANG_2024,
                                           "esbbq": RUIZ_FERNANDEZ_2025, "cabbq": RUIZ_FERNANDEZ_2025}


def references(run: RunView) -> tuple[Reference, ...]:
    """BBQ, then the run's dataset's own paper where it has one."""
    own = DATASET_PAPERS.get(run.dataset)
    return (PARRISH_2022, own) if own is not None else (PARRISH_2022,)
