"""Annotation export/import and agreement statistics (SlguSet: three annotators, 100 %)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from biasatlas.errors import DataError
from biasatlas.mining import MiningConfig, read_candidates, run_pipeline
from biasatlas.mining.agreement import agreement, agreement_report, unanimous_neutral
from biasatlas.mining.annotate import export_annotation, import_labels
from biasatlas.mining.records import Candidate

# Five items, three raters, 1 = "either gender fits".
WORKED = np.array([[1, 1, 1], [1, 1, 0], [0, 0, 0], [1, 0, 0], [1, 1, 1]])


def test_fleiss_kappa_and_krippendorff_alpha_on_a_worked_example():
    # Fleiss: N = 5 items, n = 3 raters. Per item P_i = (Σ_j n_ij² − n) / (n(n − 1)):
    #   [3,0] → (9 − 3)/6 = 1;  [2,1] → (4 + 1 − 3)/6 = 1/3;  [0,3] → 1;  [1,2] → 1/3;  [3,0] → 1
    #   P̄ = (1 + 1/3 + 1 + 1/3 + 1)/5 = 11/15.
    #   p_yes = (3 + 2 + 0 + 1 + 3)/15 = 9/15 = 0.6, p_no = 0.4, P_e = 0.36 + 0.16 = 0.52.
    #   κ = (11/15 − 13/25)/(1 − 13/25) = (16/75)/(12/25) = 4/9 ≈ 0.4444.
    # Krippendorff (nominal, no missing): coincidences weighted 1/(m_u − 1) = 1/2 per unit:
    #   o_yy = 3 + 1 + 3 = 7, o_nn = 3 + 1 = 4, o_yn = o_ny = 1 + 1 = 2; n = 15, n_y = 9, n_n = 6.
    #   D_o = 4/15; D_e = 2·9·6/(15·14) = 18/35; α = 1 − (4/15)/(18/35) = 1 − 14/27 = 13/27.
    result = agreement(WORKED)
    assert result.fleiss_kappa == pytest.approx(4 / 9)
    assert result.krippendorff_alpha == pytest.approx(13 / 27)
    assert result.observed == pytest.approx(3 / 5)  # items 1, 3 and 5 are unanimous


def test_agreement_is_none_when_every_label_is_the_same():
    result = agreement(np.ones((4, 3), dtype=int))
    assert result.fleiss_kappa is None and result.krippendorff_alpha is None
    assert result.observed == 1.0


def test_report_per_keyword_pair_and_per_annotator_pair():
    ids = [f"s{i}" for i in range(5)]
    labels = [{i: bool(WORKED[n, r]) for n, i in enumerate(ids)} for r in range(3)]
    pair_of = dict(zip(ids, ["他/她", "他/她", "他/她", "男/女", "男/女"]))
    report = agreement_report(labels, pair_of)
    assert report["overall"]["fleiss_kappa"] == pytest.approx(4 / 9)
    assert report["by_keyword_pair"]["男/女"]["items"] == 2
    # Raters as columns: r1 = [1,1,0,1,1], r2 = [1,1,0,0,1], r3 = [1,0,0,0,1].
    # r1 vs r2 disagree on s3 only: observed 4/5. Fleiss with n = 2: P_i = (Σ n_ij² − 2)/2
    #   = 1,1,1,0,1 → P̄ = 4/5; p_yes = (2+2+0+1+2)/10 = 0.7, P_e = 0.49 + 0.09 = 0.58;
    #   κ = (0.8 − 0.58)/(1 − 0.58) = 0.22/0.42 = 11/21.
    assert report["by_annotator_pair"]["1-2"]["observed"] == pytest.approx(0.8)
    assert report["by_annotator_pair"]["1-2"]["fleiss_kappa"] == pytest.approx(11 / 21)
    # Annotators 1 and 3 disagree on s1 and s3: 3 of 5 agree.
    assert report["by_annotator_pair"]["1-3"]["observed"] == pytest.approx(0.6)
    assert unanimous_neutral(labels) == {"s0", "s4"}


def _cands() -> list[Candidate]:
    return [Candidate("a1", "他在学校里认真学习。", "他", 0, "他/她", "c.txt:1"),
            Candidate("b2", "那个男童在公园里玩。", "男童", 2, "男童/女童", "c.txt:2")]


def test_export_writes_utf8_with_bom_and_refuses_to_overwrite_labels(tmp_path):
    paths = export_annotation(_cands(), tmp_path, annotators=3)
    assert [p.name for p in paths] == ["annotator_1.csv", "annotator_2.csv", "annotator_3.csv"]
    raw = paths[0].read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.DictReader(raw.decode("utf-8-sig").splitlines()))
    assert [r["id"] for r in rows] == ["a1", "b2"] and rows[1]["sentence"] == "那个男童在公园里玩。"
    _fill(paths[0], {"a1": "1", "b2": "0"})
    with pytest.raises(DataError, match="annotator_1.csv.*already holds labels"):
        export_annotation(_cands(), tmp_path, annotators=3)


def _fill(path: Path, labels: dict[str, str]) -> None:
    with open(path, encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    with open(path, "w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "neutral": labels.get(row["id"], row["neutral"])})


@pytest.mark.parametrize(("labels", "message"), [
    ({"a1": "1", "b2": "maybe"}, r"line 3, field 'neutral'.*'maybe'"),
    ({"a1": "", "b2": "1"}, r"line 2, field 'neutral'.*empty"),
])
def test_import_names_file_line_and_field(tmp_path, labels, message):
    path = export_annotation(_cands(), tmp_path, annotators=2)[0]
    _fill(path, labels)
    with pytest.raises(DataError, match=message) as info:
        import_labels(path, ["a1", "b2"])
    assert info.value.path == path


def test_import_rejects_unknown_and_missing_ids(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("id,neutral\na1,1\nzz,0\n", encoding="utf-8-sig")
    with pytest.raises(DataError, match=r"line 3, field 'id'.*'zz'"):
        import_labels(path, ["a1", "b2"])
    path.write_text("id,neutral\na1,是\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"field 'id'.*not labelled"):
        import_labels(path, ["a1", "b2"])
    path.write_text("id,label\na1,1\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"field 'neutral'.*missing column"):
        import_labels(path, ["a1"])


def test_pipeline_round_trip_keeps_only_unanimous_sentences(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("他在学校里认真学习，每天都很早起床。\n那个男童在公园里玩得很开心。\n"
                      "父亲这个角色在家庭教育中非常重要。\n", encoding="utf-8")
    first = run_pipeline([corpus], tmp_path / "out", MiningConfig(export_annotation=True))
    ids = [c.id for c in read_candidates(first.candidates_path)]
    assert len(ids) == 3
    files = sorted((tmp_path / "out" / "annotation").glob("annotator_*.csv"))
    votes = [{ids[0]: "1", ids[1]: "1", ids[2]: "0"},
             {ids[0]: "1", ids[1]: "0", ids[2]: "0"},
             {ids[0]: "yes", ids[1]: "1", ids[2]: "no"}]
    for path, vote in zip(files, votes):
        _fill(path, vote)
    second = run_pipeline([corpus], tmp_path / "out",
                          MiningConfig(export_annotation=True, annotations=tuple(files)))
    assert [c.id for c in read_candidates(second.candidates_path)] == [ids[0]]
    assert {"match", "rules", "segment", "names", "dedupe", "annotation_export"} <= set(second.stages_skipped)
    overall = second.card["agreement"]["overall"]
    # Votes per item: [1,1,1] kept, [1,0,1] and [0,0,0]: two of three items unanimous.
    assert overall["items"] == 3 and overall["observed"] == pytest.approx(2 / 3)
    assert second.card["stages"]["annotation"] == {"in": 3, "out": 1,
                                                   "dropped": {"not_unanimous": 2}}
    assert "Fleiss' kappa" in second.card_markdown.read_text(encoding="utf-8")
