"""MBBQ's own generative protocol (issue 38, ``--parser mbbq``): the authors' answer detection on
hand-written answers per language (each expected option worked out by reading ``detect_answer`` in their
``mbbq.py``, step by step in the comments), their per-answer score and ``target_loc`` reimplemented here
from their ``get_samples`` and compared with ours on the data, their prompts, and planted generators whose
scores are known.

The authors' ``answer_detection.py`` (forms, phrases, prompts) is not in the repository nor in CI (no licence):
every test here reads a file of the same shape that it writes itself, with its own vocabulary (:func:`tables`),
served through ``$BIASATLAS_DATA_DIR`` as a user's copy is."""

from __future__ import annotations

import gzip
import hashlib
import json

import pytest

from biasatlas.benchmarks.bbq import BBQ
from biasatlas.benchmarks.bbq.data import MBBQ_CATEGORIES, Example
from biasatlas.benchmarks.bbq.generated import mbbq_upstream
from biasatlas.benchmarks.bbq.generated.mbbq import ALL, author_score, detect, stereotyped
from biasatlas.benchmarks.bbq.generated.mbbq_upstream import Tables
from biasatlas.benchmarks.bbq.spec import SENSITIVITY, SPEC
from biasatlas.benchmarks import fetch
from biasatlas.errors import DataError, UsageError
from biasatlas.probes import GenerationAnswer, GenerationProbe
from shared_data import shared_data_dir

MBBQ = shared_data_dir() / "mbbq"
OPTIONS = {"en": ("The grandfather", "The grandson", "Can't be determined"),
           "nl": ("De grootvader", "De kleinzoon", "Kan niet worden bepaald"),
           "es": ("El abuelo", "El nieto", "No se puede determinar"),
           "tr": ("Büyükbaba", "Torun", "Belirlenemez")}


#: Our own vocabulary in the shape of the authors' ``answer_detection.py``: three letter forms per option (an
#: index above 2 is a marked form), phrases before / after an answer and of "cannot answer" in English, each
#: translated (nl, es, tr), per-language extras, and five prompts (padded: the authors strip them).
FORMS = {k: [k.lower(), k, f"{k.lower()}.", f"{k})", f"({k})", f"({k}):", f"{k}:", f"[{k}]"] for k in "ABC"}
BEFORE, AFTER, UNKNOWN = ["My pick:", "I pick", "Pick:"], ["is my pick"], ["no way to know", "cannot say"]
TRANSLATED = {
    "before_ans": {"nl": ["Mijn keuze:", "Ik kies", "Keuze:"], "es": ["Mi elección:", "Elijo", "Elección:"],
                   "tr": ["Seçimim:", "Seçiyorum", "Cevabım:"]},
    "after_ans": {"nl": ["is mijn keuze"], "es": ["es mi elección"], "tr": ["benim seçimim"]},
    "unknown_ans": {"nl": ["geen manier om te weten", "kan het niet zeggen"],
                    "es": ["no hay forma de saber", "no se puede decir"], "tr": ["bilmenin yolu yok", "söylenemez"]},
}
EXTRA = {"en": {"before_ans": ["So I pick"], "after_ans": ["wins"], "unknown_ans": ["Unclear"]},
         "nl": {"before_ans": ["Dus:"], "after_ans": [], "unknown_ans": ["Onduidelijk"]},
         "es": {"before_ans": [], "after_ans": [], "unknown_ans": ["Incierto"]},
         "tr": {"before_ans": ["Yanıtım:"], "after_ans": [], "unknown_ans": ["Belirsiz"]}}
PROMPTS = [f"  Prompt {n}. Context: {{}} Question: {{}} (A) {{}} (B) {{}} (C) {{}} Your pick:\n" for n in range(1, 6)]
PROMPTS_NL = [f"Vraag {n}. Context: {{}} Vraag: {{}} (A) {{}} (B) {{}} (C) {{}} Jouw keuze: " for n in range(1, 6)]


def tables_source() -> str:
    """The file's text: module-level literals under the authors' names, among statements the reader skips."""
    english = {"before_ans": BEFORE, "after_ans": AFTER, "unknown_ans": UNKNOWN}
    lines = ["import string", f"a_list = {FORMS['A']!r}", f"b_list = {FORMS['B']!r}", f"c_list = {FORMS['C']!r}",
             f"extra_ans_detect = {EXTRA!r}", "helper = dict(skipped=True)  # not read: a name the rule does not use"]
    lines += [f"{kind} = {words!r}" for kind, words in english.items()]
    for kind, words in english.items():
        table = {lang: dict(zip(words, TRANSLATED[kind][lang], strict=True)) for lang in ("nl", "es", "tr")}
        lines.append(f"trans_{kind}_dict = {table!r}")
    own = {"nl": PROMPTS_NL, "es": [p.replace("Prompt", "Pregunta") for p in PROMPTS],
           "tr": [p.replace("Prompt", "Soru") for p in PROMPTS]}
    lines += [f"prompts = {PROMPTS!r}",
              f"trans_prompt_dict = { {lang: dict(zip(PROMPTS, own[lang], strict=True)) for lang in own}!r}",
              "def detect_answer(*args):", "    raise SystemExit('never run')"]
    return "\n".join(lines) + "\n"


@pytest.fixture
def upstream(tmp_path, monkeypatch) -> Tables:
    """Our file served as the user's copy of the authors' (``$BIASATLAS_DATA_DIR`` copies are read as given)."""
    folder = tmp_path / "mbbq-code"
    folder.mkdir()
    (folder / "answer_detection.py").write_text(tables_source(), encoding="utf-8")
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(tmp_path))
    return mbbq_upstream.load()


@pytest.mark.parametrize(("language", "text", "want"), [
    ("en", "The grandson", 1),  # step 1: starts with option 1's text
    ("en", "Grandfather is the one.", 0),  # step 1: first word = option 0's last word, capitalised
    ("en", "Grandson, clearly", None),  # …but "Grandson," is not "Grandson", and no later step finds one
    ("en", "Can't be determined.", 2),  # the final period goes, then step 1
    ("en", "(B)", 1),  # the leading "(" goes as punctuation; step 6: "B)" is a form of B (marked, none other in "")
    ("en", "My pick: (A) The grandfather", 0),  # step 2: "My pick:", then the first word "(A)"
    ("en", "I think (B) is my pick, not (A)", 1),  # step 3: the word before "is my pick"
    ("en", "There is no way to know.", 2),  # step 4: "no way to know"
    ("en", "A", 0),  # step 6: "A" is a form of A
    ("en", "a grandson", 0),  # no option's text ("The grandson"); step 6: first character "a" names A
    ("en", "I think it is the grandson, not the grandfather", None),  # two options' texts, no letter: nothing
    ("en", "Options (A), (B) and (C) are all possible", ALL),  # step 7: all three of "(A)" "(B)" "(C)"
    ("en", "Maybe A: or B:", None),  # step 8: "A:" and "B:" both there at that index, none alone at another
    ("en", "I'd go with [C] here", 2),  # step 8: "[C]", the most marked form, alone
    ("en", "zzz", None),
    ("en", "...", None),  # nothing but punctuation
    ("nl", "Er is geen manier om te weten", 2),  # step 4: the Dutch "no way to know"
    ("en", "Er is geen manier om te weten", None),  # the same text read as English: no rule finds an option
    ("nl", "Onduidelijk", 2),  # a Dutch-only extra unknown phrase
    ("nl", "Ik kies de kleinzoon", 1),  # step 2: "Ik kies"; "de" names none, the line holds exactly option 1
    ("es", "Pues no hay forma de saber", 2),  # step 4: the Spanish phrase
    ("es", "No hay forma de saber", None),  # phrases match case-sensitively ("No" ≠ "no"): nothing
    ("en", "Pues no hay forma de saber", None),
    ("tr", "Cevabım: B", 1),  # step 2: the Turkish "Pick:" (Cevabım:), then "B"
    ("en", "Cevabım: B", 2),  # English has no such phrase: step 6: the first character "C" names C before "B"
    ("tr", "Belirsiz", 2),  # a Turkish-only extra unknown phrase
    ("en", "Belirsiz", 1),  # read as English: its first character "B" names B
])
def test_the_authors_detection_on_worked_answers(upstream: Tables, language: str, text: str,
                                                 want: int | str | None) -> None:
    assert detect(OPTIONS[language], text, 2, language, upstream) == want


def _example(polarity: str, target: int) -> Example:
    return Example(id="x/1", category="Age", template="Age/1", polarity=polarity, ambiguous=True, context="C.",
                   question="Who?", options=OPTIONS["en"], label=2, unknown=2, target=target)


def test_the_authors_per_answer_score_reads_the_stereotyped_option_in_both_polarities() -> None:
    # the grandfather (0) is the stereotyped group; our biased option flips for a non-negative question
    neg, nonneg = _example("neg", 0), _example("nonneg", 1)
    assert stereotyped(neg) == stereotyped(nonneg) == 0
    assert [author_score(neg, c) for c in (0, 1, 2, None)] == [1, -1, 0, None]
    assert [author_score(nonneg, c) for c in (0, 1, 2, None)] == [1, -1, 0, None]


F_WORDS = ["girl", "woman", "vrouw", "meisje", "kız", "kadın", "chica", "mujer", "maestra"]
M_WORDS = ["boy", "man", "jongen", "erkek çocuk", "adam", "chico", "hombre", "maestro"]


def _their_target_loc(record: dict, category: str) -> int:
    """``get_samples``'s target_loc, written from reading it: gender F/M and SES "low SES" mapped to word
    lists, each answer's tag (F → woman, M → man) looked up in them; none or two found → 100."""
    groups = record["additional_metadata"]["stereotyped_groups"]
    if category == "Gender_identity" and groups in (["F"], ["M"]):
        groups = F_WORDS if groups == ["F"] else M_WORDS
    if category == "SES" and groups == ["low SES"]:
        groups = ["lowSES"]
    found = [int(key[-1]) for key, (_, tag) in record["answer_info"].items()
             if {"F": "woman", "M": "man"}.get(tag, tag) in groups]
    return found[0] if len(found) == 1 else 100


def _compare(language: str, categories: tuple[str, ...], control: bool) -> tuple[int, int, int]:
    """(items, their 100s, items where their target_loc and our stereotyped option differ)."""
    bench = BBQ(dataset=f"mbbq-{language}", control=control, data=MBBQ)
    ours = {e.id: e for e in bench.load() if e.control == control}
    n = hundreds = differ = 0
    for category in categories:
        name = f"{category}_control_{language}" if control else f"{category}_{language}"
        with gzip.open(MBBQ / f"{name}.jsonl.gz", "rt", encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                theirs = _their_target_loc(record, category)
                mine = stereotyped(ours[f"{'control/' if control else ''}{category}/{record['example_id']}"])
                n, hundreds = n + 1, hundreds + (theirs == 100)
                differ += (None if theirs == 100 else theirs) != mine
    return n, hundreds, differ


def test_their_target_loc_is_our_stereotyped_option_and_their_100s_are_our_skipped_items() -> None:
    # English Gender_identity: METHODS-MORE.md §3 counted 16 items with no (or two) stereotyped options
    assert _compare("en", ("Gender_identity",), control=False) == (544, 16, 0)


@pytest.mark.slow  # every file of four languages (seconds)
@pytest.mark.parametrize("language", ["en", "nl", "es", "tr"])
def test_their_target_loc_everywhere(language: str) -> None:
    n, hundreds, differ = _compare(language, MBBQ_CATEGORIES, control=False)
    assert (n, hundreds, differ) == (10088, 28 if language == "es" else 16, 0)
    assert _compare(language, MBBQ_CATEGORIES, control=True) == (10072, 0, 0)


def _bench(language: str = "en", **options) -> tuple[BBQ, list[Example]]:
    bench = BBQ(dataset=f"mbbq-{language}", category="Gender_identity", data=MBBQ, sample=12, seed=3,
                answers="generated", parser="mbbq", n_resamples=20, **options)
    return bench, [e for e in bench.load() if e.target is not None]


def test_probes_are_the_five_prompts_in_the_language_with_the_options_lettered_in_data_order(upstream: Tables) -> None:
    bench, items = _bench("nl")
    probes = bench.probes(items)
    assert len(probes) == 5 * len(items) and len({p.id for p in probes}) == len(probes)
    e = items[0]
    second = next(p for p in probes if p.id == f"{e.id}@prompt2")
    a, b, c = e.options
    # the Dutch translation of the second prompt, stripped, filled in order
    assert second == GenerationProbe(f"{e.id}@prompt2", f"Vraag 2. Context: {e.context} Vraag: {e.question} (A) {a} "
                                     f"(B) {b} (C) {c} Jouw keuze:", 100, ())
    some, _ = _bench("en", mbbq_prompts="4,1", max_new_tokens=7)
    chosen = some.probes(items[:1])
    assert [p.id for p in chosen] == [f"{e.id}@prompt4", f"{e.id}@prompt1"] and chosen[0].max_new_tokens == 7
    assert chosen[1].prompt == f"Prompt 1. Context: {items[0].context} Question: {items[0].question} (A) {a} (B) " \
        f"{b} (C) {c} Your pick:"


def _answers(bench: BBQ, items: list[Example], say) -> dict[str, GenerationAnswer]:
    return {p.id: GenerationAnswer(p.id, say(p.id), 4, "eos") for p in bench.probes(items)}


#: How a planted generator names option k, differently per prompt (each found by another detection step:
#: 2, 1 or 6, 6, 2, 2 with :func:`tables_source`'s vocabulary).
SAYS = {1: "My pick: ({})", 2: "{}", 3: "({}):", 4: "Pick: {}", 5: "I pick {}"}


def _letter_of(items: list[Example], pick) -> callable:
    by_id = {e.id: e for e in items}

    def say(pid: str) -> str:
        item, prompt = pid.rsplit("@prompt", 1)
        return SAYS[int(prompt)].format("ABC"[pick(by_id[item])])
    return say


def test_a_generator_answering_the_biased_letter_scores_full_bias_in_every_prompt(upstream: Tables) -> None:
    bench, items = _bench("en")
    s = bench.score(items, _answers(bench, items, _letter_of(items, lambda e: e.target))).summary
    assert s.unparsed == 0 and s.parser == "mbbq" and set(s.undetected.values()) == {0.0}
    for scores in (s.overall, *(s.prompt_sets[str(k)] for k in range(1, 6))):
        # every answer biased: (n − 0)/n; every disambiguated answer right iff the gold is the biased one
        assert (scores.diff_bias_amb, scores.diff_bias_dis, scores.abstain_amb) == (100.0, 100.0, 0.0)
    assert s.overall.n == 5 * sum(not e.control for e in items)


def test_a_generator_answering_the_stereotyped_group_splits_by_polarity(upstream: Tables) -> None:
    # the authors' target_loc in both polarities: biased on negative questions, counter-biased on the others
    bench, items = _bench("en")
    result = bench.score(items, _answers(bench, items, _letter_of(items, stereotyped)))
    amb = [e for e in items if e.ambiguous and not e.control]
    assert {e.polarity for e in amb} == {"neg", "nonneg"}  # both kinds are in the sample, so the split is seen
    want = 100.0 * sum(e.weight * (1 if e.polarity == "neg" else -1) for e in amb) / sum(e.weight for e in amb)
    assert result.summary.overall.diff_bias_amb == pytest.approx(want)
    assert {r["mbbq_score"] for r in result.records} == {1}  # +1 every time by the authors' per-answer score


CANNOT = {"en": "I cannot say.", "nl": "Ik kan het niet zeggen", "es": "Pues no se puede decir",
          "tr": "Bu söylenemez"}  # step 4 in each language: its "cannot say"


@pytest.mark.parametrize("language", ["en", "nl", "es", "tr"])
def test_a_generator_that_says_it_cannot_answer_has_no_bias_and_full_ambiguous_accuracy(upstream: Tables,
                                                                                        language: str) -> None:
    bench, items = _bench(language)
    s = bench.score(items, _answers(bench, items, lambda pid: CANNOT[language])).summary
    o = s.overall
    assert s.unparsed == 0 and (o.diff_bias_amb, o.diff_bias_dis, o.accuracy_amb, o.abstain_dis) == (0, 0, 100, 100)
    assert o.degenerate is not None and "always answers 'unknown'" in o.degenerate
    assert s.control["overall"].accuracy_amb == 100.0  # the control set is asked and read the same way


def test_undetected_answers_are_counted_per_prompt_kept_and_left_out(upstream: Tables) -> None:
    bench, items = _bench("es")
    say = _letter_of(items, lambda e: e.label)
    result = bench.score(items, _answers(bench, items, lambda pid: "zzz" if pid.endswith("@prompt2") else say(pid)))
    s = result.summary
    n_regular, n_control = sum(not e.control for e in items), sum(e.control for e in items)
    assert s.undetected == {"1": 0, "2": n_regular, "3": 0, "4": 0, "5": 0,
                            "control 1": 0, "control 2": n_control, "control 3": 0, "control 4": 0, "control 5": 0}
    assert s.unparsed == len(items) and "2" not in s.prompt_sets
    kept = [r for r in result.records if r["prompt"] == 2]
    assert len(kept) == len(items) and all(r["generated"] == "zzz" and r["answer"] is None for r in kept)
    assert len(result.records) == 5 * len(items)  # nothing dropped
    assert s.overall.accuracy_amb == s.overall.accuracy_dis == 100.0  # the gold letter, where detected


def test_garbage_is_all_undetected(upstream: Tables) -> None:
    bench, items = _bench("tr")
    s = bench.score(items, _answers(bench, items, lambda pid: "zzz")).summary
    assert s.unparsed == 5 * len(items) and s.overall.n is None and not s.prompt_sets


@pytest.mark.parametrize(("options", "match"), [
    ({"dataset": "en", "answers": "generated", "parser": "mbbq"}, "mbbq-en, mbbq-nl"),
    ({"dataset": "mbbq-nl", "parser": "mbbq"}, "add --answers generated"),
    ({"dataset": "mbbq-nl", "answers": "generated", "parser": "lm-eval-0.4.13"}, "reads en, mbbq-en, not mbbq-nl"),
    ({"dataset": "mbbq-es", "answers": "generated", "parser": "mbbq", "mbbq_prompts": "1,6"}, "1-5"),
    ({"dataset": "mbbq-es", "answers": "generated", "parser": "mbbq", "mbbq_prompts": "2,2"}, "1-5"),
])
def test_the_mbbq_parser_needs_an_mbbq_set_and_generated_answers(options: dict, match: str) -> None:
    with pytest.raises(UsageError, match=match):
        BBQ(data=MBBQ, **options)


@pytest.mark.parametrize(("dataset", "rule"), [("mbbq-nl", "mbbq"), ("mbbq-tr", "mbbq"), ("mbbq-en", "lm-eval-0.4.13"),
                                               ("en", "lm-eval-0.4.13"), ("kobbq", "kobbq")])
def test_parser_auto_takes_the_datasets_own_rule(dataset: str, rule: str) -> None:
    """mbbq-en keeps lm-eval's English rule (as before MBBQ's own protocol existed); --parser mbbq asks for MBBQ's."""
    assert BBQ(dataset=dataset, answers="generated").parse_rule == rule


def test_a_parser_sensitivity_run_stays_within_its_protocol() -> None:
    # each protocol's rule reads its own prompts: swapping one for the other is another run, not a perturbation
    rules = SENSITIVITY.kinds["rules"]
    mbbq, _ = _bench("nl")
    plain = BBQ(data=MBBQ, dataset="mbbq-en", answers="generated")
    assert [p.options for p in rules(mbbq, "causal")] == [{"parser": "mbbq"}]
    assert [p.options for p in rules(plain, "causal")] == [{"parser": "lm-eval-0.4.13"}, {"parser": "option-text"}]


@pytest.mark.slow  # config() hashes the data files (seconds)
def test_the_config_records_the_authors_decoding_and_the_prompts_asked(upstream: Tables) -> None:
    config = BBQ(data=MBBQ, dataset="mbbq-tr", category="SES", answers="generated", parser="mbbq",
                 mbbq_prompts="2,5").config()
    assert (config["parser"], config["max_new_tokens"], config["stop"], config["mbbq_prompts"]) == \
        ("mbbq", 100, [], "2,5")
    plain = BBQ(data=MBBQ, dataset="mbbq-en", category="SES", answers="generated").config()
    assert (plain["max_new_tokens"], "mbbq_prompts" in plain, "mbbq_upstream" in plain) == (32, False, False)
    # the file the tables were read from, beside the data's files: ours here, so not the pinned bytes
    ours = hashlib.sha256(tables_source().encode()).hexdigest()
    assert config["mbbq_upstream"] == {"file": upstream.path, "url": mbbq_upstream.DETECTION.url,
                                       "pinned_sha256": mbbq_upstream.DETECTION.sha256}
    assert config["mbbq_upstream_sha256"] == ours and "mbbq_upstream_sha256" not in plain
    # two runs read through different copies of the file are not paired: their prompts and phrases may differ
    assert ("mbbq_upstream_sha256", "MBBQ authors' answer_detection.py sha256") in SPEC.pairing_keys
    assert upstream.path.endswith("mbbq-code/answer_detection.py") and ours != mbbq_upstream.DETECTION.sha256


def test_the_tables_are_read_in_the_order_detect_answer_tries_them(upstream: Tables) -> None:
    assert upstream.forms == (tuple(FORMS["A"]), tuple(FORMS["B"]), tuple(FORMS["C"]))
    assert upstream.before["en"] == ("My pick:", "I pick", "Pick:", "So I pick")
    assert upstream.before["nl"] == ("My pick:", "I pick", "Pick:", "So I pick", "Mijn keuze:", "Ik kies", "Keuze:",
                                     "Dus:")
    assert upstream.after["es"] == ("is my pick", "wins", "es mi elección")
    assert upstream.unknown["tr"] == ("no way to know", "cannot say", "Unclear", "bilmenin yolu yok", "söylenemez",
                                      "Belirsiz")
    assert upstream.prompts["en"][4] == "Prompt 5. Context: {} Question: {} (A) {} (B) {} (C) {} Your pick:"
    assert upstream.prompts["tr"][0] == "Soru 1. Context: {} Question: {} (A) {} (B) {} (C) {} Your pick:"


def _write(tmp_path, old: str, new: str):
    text = tables_source()
    assert old in text
    path = tmp_path / "answer_detection.py"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(("old", "new", "match"), [
    ("before_ans = ['My pick:', 'I pick', 'Pick:']", "before_ans = sorted(['My pick:', 'I pick', 'Pick:'])",
     r"line 7, field 'before_ans': not a literal"),  # a call: read, never run
    ("after_ans = ['is my pick']", "after_ans = [string.ascii_letters]", r"line 8, field 'after_ans': not a literal"),
    (f"a_list = {FORMS['A']!r}", "a_list = 'aA'", r"line 2, field 'a_list': expected a list of strings"),
    ("'Ik kies'", "3", r"field \"trans_before_ans_dict\['nl'\]\": expected a string for each English one"),
    ("prompts = [", "unused = [", "no module-level assignment of prompts"),
    ("'tr': {'before_ans': ['Yanıtım:']", "'xx': {'before_ans': ['Yanıtım:']",
     r"field 'extra_ans_detect': expected a dict with en, nl, es and tr"),
    ("Your pick:\\n']", "Your pick:\\n', 'a sixth']", r"field 'prompts': expected 5 prompts"),
    ("import string", "import string(", "cannot read it as Python source"),
])
def test_the_reader_takes_literals_only_and_names_line_and_field(tmp_path, old: str, new: str, match: str) -> None:
    with pytest.raises(DataError, match=match):
        mbbq_upstream.read(_write(tmp_path, old, new))


def test_a_missing_file_names_it_its_url_and_the_data_folder(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))

    def offline(url: str, timeout: float) -> None:
        raise OSError("no network")
    monkeypatch.setattr(fetch.urllib.request, "urlopen", offline)
    with pytest.raises(DataError, match="answer_detection.py") as error:
        mbbq_upstream.load()
    assert mbbq_upstream.DETECTION.url in str(error.value) and "BIASATLAS_DATA_DIR" in str(error.value)
    assert mbbq_upstream.COMMIT in mbbq_upstream.DETECTION.url


def test_an_altered_cached_copy_is_refused(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv("BIASATLAS_DATA_DIR", raising=False)
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path))
    cached = tmp_path / "data" / mbbq_upstream.DETECTION.sha256[:12] / "answer_detection.py"
    cached.parent.mkdir(parents=True)
    cached.write_text(tables_source(), encoding="utf-8")
    with pytest.raises(DataError, match="does not have the bytes its pin names"):
        mbbq_upstream.load()

