"""What to cite for a report: the papers behind its benchmarks and the models it used.

Each benchmark's view lists its papers (``references`` in its ``view.py``: CrowS-Pairs adds
Névéol et al. 2022 for the datasets that paper published). A model is cited by its paper
where biasatlas packages it (``gemma-3-270m``: the Gemma 3 technical report;
``smollm2-135m``: the SmolLM2 paper; ``all-minilm-l6-v2``: MiniLM and Sentence-BERT), and
otherwise by a ``@misc`` entry naming the model id and the exact weights the run read: the
hub revision, the sha256 of each file of a local folder (or of a vectors file), or a model in
memory's state hash, from the run's provenance. A packaged model is known by what can be
checked, wherever it ran: the converted folder's record (in-process, or the folder a server
serves, read here), or a harness's model name that is such a folder's (``smollm2-135m--0.1.2``,
lm-eval's ``model_name``). A served model whose weights are not readable here is named by the
run's ``--label`` where it has one, not by the server's URL. Entries are listed once each, benchmarks
first, in the order of the runs, then models, then biasatlas itself (``@software``). The fake
scorer is no model: nothing is cited for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..display.cite import Reference, bibtex_key, bibtex_text
from ..runs.view import RunView, model_name
from ..registry import find_spec

#: Gemma 3 technical report (arXiv:2503.19786), for the packaged ``gemma-3-270m``.
GEMMA_3 = Reference("gemmateam-2025-gemma3", "misc", (
    ("title", "Gemma 3 Technical Report"), ("author", "{Gemma Team}"), ("year", "2025"),
    ("eprint", "2503.19786"), ("archivePrefix", "arXiv"), ("primaryClass", "cs.CL")))
#: The SmolLM2 paper (Ben Allal et al. 2025, arXiv:2502.02737), for the packaged ``smollm2-135m``.
SMOLLM2 = Reference("benallal-etal-2025-smollm2", "misc", (
    ("title", "{SmolLM2}: When Smol Goes Big -- Data-Centric Training of a Small Language Model"),
    ("author", r"Ben Allal, Loubna and Lozhkov, Anton and Bakouch, Elie and Mart{\'\i}n Bl{\'a}zquez, Gabriel and "
               r"Penedo, Guilherme and Tunstall, Lewis and Marafioti, Andr{\'e}s and Kydl{\'\i}{\v{c}}ek, Hynek and "
               r"Piqueres Laj{\'a}r{\'\i}n, Agust{\'\i}n and Srivastav, Vaibhav and Lochner, Joshua and "
               r"Fahlgren, Caleb and Nguyen, Xuan-Son and Fourrier, Cl{\'e}mentine and Burtenshaw, Ben and "
               r"Larcher, Hugo and Zhao, Haojun and Zakka, Cyril and Morlon, Mathieu and Raffel, Colin and "
               r"von Werra, Leandro and Wolf, Thomas"),
    ("year", "2025"), ("eprint", "2502.02737"), ("archivePrefix", "arXiv"), ("primaryClass", "cs.CL")))
#: MiniLM (Wang et al., NeurIPS 2020), the architecture of the packaged encoder ``all-minilm-l6-v2``.
MINILM = Reference("wang-etal-2020-minilm", "inproceedings", (
    ("title", "{MiniLM}: Deep Self-Attention Distillation for Task-Agnostic Compression of Pre-Trained "
              "Transformers"),
    ("author", "Wang, Wenhui and Wei, Furu and Dong, Li and Bao, Hangbo and Yang, Nan and Zhou, Ming"),
    ("booktitle", "Advances in Neural Information Processing Systems"), ("volume", "33"), ("year", "2020"),
    ("pages", "5776--5788")))
#: Sentence-BERT (Reimers & Gurevych, EMNLP-IJCNLP 2019): the training and pooling of ``all-minilm-l6-v2``.
SBERT = Reference("reimers-gurevych-2019-sentence", "inproceedings", (
    ("title", "Sentence-{BERT}: Sentence Embeddings using {S}iamese {BERT}-Networks"),
    ("author", "Reimers, Nils and Gurevych, Iryna"),
    ("booktitle", "Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing and the "
                  "9th International Joint Conference on Natural Language Processing (EMNLP-IJCNLP)"),
    ("year", "2019"), ("address", "Hong Kong, China"), ("publisher", "Association for Computational Linguistics"),
    ("pages", "3982--3992"), ("doi", "10.18653/v1/D19-1410")))
#: The packaged models (``--model`` names) and their papers.
PACKAGED_PAPERS: Mapping[str, tuple[Reference, ...]] = {"gemma-3-270m": (GEMMA_3,), "smollm2-135m": (SMOLLM2,),
                                                        "all-minilm-l6-v2": (MINILM, SBERT)}


def software_reference(version: str) -> Reference:
    """biasatlas itself, at the version that wrote the report (``@software``: biblatex's entry type;
    classic BibTeX styles read an unknown type as ``@misc``)."""
    return Reference(bibtex_key("biasatlas", version), "software", (
        ("title", "{biasatlas}: measuring social bias in language models"),
        ("author", "{The biasatlas contributors}"), ("version", bibtex_text(version)),
        ("license", "Apache-2.0"), ("note", bibtex_text(f"Python package, version {version}"))))


def report_references(runs: Sequence[RunView], version: str | None = None) -> tuple[Reference, ...]:
    """Every entry once (by key): the runs' benchmarks' papers, then their models, then biasatlas
    itself at ``version`` (left out when ``None``)."""
    entries: dict[str, Reference] = {}
    for run in runs:
        spec = find_spec(run.benchmark)
        for ref in spec.view.references(run) if spec is not None else ():
            entries.setdefault(ref.key, ref)
    for run in runs:
        for model in model_references(run):
            entries.setdefault(model.key, model)
    if version is not None:
        software = software_reference(version)
        entries.setdefault(software.key, software)
    return tuple(entries.values())


def model_references(run: RunView) -> tuple[Reference, ...]:
    """The packaged model's papers, or a ``@misc`` of the model id and its weights; none for the fake scorer."""
    scorer = run.scorer_config
    if scorer.get("scorer") == "fake":
        return ()
    packaged = packaged_name(run)
    if packaged is not None:
        return PACKAGED_PAPERS[packaged]
    name = _cited_name(run)
    weights, tag = _weights(scorer)
    return (Reference(bibtex_key("model", name, tag), "misc", (("title", bibtex_text(name)), *weights)),)


def packaged_name(run: RunView) -> str | None:
    """The packaged model the run read, from what its provenance lets one check: its name, the
    record of the converted folder it (or its server) read, or a harness's model name naming such
    a folder (``<name>--<package version>``); None for any other model."""
    scorer = run.scorer_config
    record = scorer.get("packaged")
    candidates = [run.model, record.get("name") if isinstance(record, Mapping) else None,
                  str(scorer.get("model") or "").partition("--")[0]]
    return next((c for c in candidates if isinstance(c, str) and c in PACKAGED_PAPERS), None)


def _cited_name(run: RunView) -> str:
    """A local folder by its base name (where it sat is no part of a citation); a served model
    by its ``--label``, else by the name it is served under, never by the server's address."""
    served = run.scorer_config.get("served_model")
    if served:
        return str(run.summary.get("label") or served)
    return model_name(run.model)


def model_reference(run: RunView) -> Reference | None:
    """The first of :func:`model_references` (``None`` for the fake scorer)."""
    found = model_references(run)
    return found[0] if found else None


def _weights(scorer: Mapping[str, object]) -> tuple[list[tuple[str, str]], str]:
    """The fields naming the exact weights the run read, and a short tag for the key: the sha256 of
    each file of a local folder, of one vectors file (word vectors), of a model held in memory
    (its state), or the hub revision; "weights not recorded" only when none of them is."""
    hashes, revision, held = scorer.get("file_sha256"), scorer.get("revision"), scorer.get("in_memory")
    if isinstance(hashes, str) and hashes:  # one file: a word-vectors file
        return [("howpublished", "local file"), ("note", bibtex_text(f"file sha256: {hashes}"))], hashes[:8]
    if isinstance(hashes, Mapping) and hashes:
        files = "; ".join(f"{name} {digest}" for name, digest in sorted(hashes.items()))
        return [("howpublished", "local model files"), ("note", bibtex_text(f"file sha256: {files}"))], \
            _short_digest(hashes)
    state = held.get("state_sha256") if isinstance(held, Mapping) else None
    if isinstance(state, str) and state:
        return [("howpublished", "model held in memory"), ("note", bibtex_text(f"state sha256: {state}"))], state[:8]
    if revision:
        return [("howpublished", "Hugging Face Hub model"), ("note", bibtex_text(f"revision {revision}"))], \
            str(revision)[:8]
    return [("note", "weights not recorded")], ""


def _short_digest(hashes: Mapping[str, object]) -> str:
    """Eight hex digits standing for a folder's files: the key differs when the weights do."""
    import hashlib

    text = "\n".join(f"{name} {digest}" for name, digest in sorted(hashes.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def to_bibtex(references: Sequence[Reference], version: str) -> str:
    """The entries as one ``.bib`` file, a comment line on top (BibTeX ignores text outside entries).
    ``@software`` (biasatlas's own entry) is biblatex's type; BibTeX styles print it as ``@misc``."""
    head = (f"% BibTeX of the benchmarks and models in a biasatlas {version} report. "
            "Chinese titles need a CJK-capable setup (XeLaTeX with xeCJK, or biblatex).\n\n")
    return head + "\n".join(ref.bibtex() for ref in references)
