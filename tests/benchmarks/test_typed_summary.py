"""The one typed-summary reader (``biasatlas.runs.typed``): checks from type hints.

Every benchmark's summary.json is read back by it (issue 20), so these pin what each hint
accepts, what it turns a value into, and the words and dotted field of each error.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypedDict

import pytest

from biasatlas.runs.checks import Interval
from biasatlas.runs.typed import Summary, read_typed, same_object
from biasatlas.errors import DataError
from biasatlas.registry import benchmark_specs

PATH = Path("run/summary.json")


@dataclass(frozen=True)
class Inner:
    score: float | None = None
    ci: Interval | None = None


class Row(TypedDict, total=False):
    share: float
    note: str | None


@dataclass(frozen=True)
class Record(Summary):
    count: int | None = None
    score: float | None = None
    name: str | None = None
    flag: bool | None = None
    kind: Literal["a", "b"] | None = None
    words: tuple[str, ...] = ()
    maybe_words: tuple[str | None, ...] = ()
    ci: Interval | None = None
    by_name: Mapping[str, Inner] = field(default_factory=dict)
    maybe_by_name: Mapping[str, Inner | None] = field(default_factory=dict)
    inner: Inner = field(default_factory=Inner)
    top: Inner = same_object(Inner)
    rows: Mapping[str, Row] = field(default_factory=dict)
    raw: Any = None


def _error(data: Mapping[str, Any]) -> DataError:
    with pytest.raises(DataError) as info:
        Record.read(data, PATH)
    return info.value


def test_values_come_back_typed_and_as_written():
    r = Record.read({"count": 12, "score": 3, "name": "x", "flag": False, "kind": "b", "words": ["p", "q"],
                     "ci": [1.5, None], "by_name": {"g": {"score": 2.0, "ci": [1, 3]}},
                     "inner": {"score": 7.0}, "rows": {"o": {"share": 40.0, "other": [1]}}, "raw": {"any": [1]}},
                    PATH)
    assert r.count == 12 and isinstance(r.score, int) and r.score == 3  # an int written stays an int
    assert (r.name, r.flag, r.kind, r.words, r.ci) == ("x", False, "b", ("p", "q"), (1.5, None))
    assert r.by_name == {"g": Inner(2.0, (1, 3))} and r.inner == Inner(7.0)
    assert r.rows == {"o": {"share": 40.0, "other": [1]}}  # a TypedDict keeps the keys it does not name
    assert r.raw == {"any": [1]}


def test_absent_null_and_unknown_fields():
    # absent or null: the default; a key the record does not name is never read (a later
    # version's summary, or generic keys such as ``detectable`` and ``lint``)
    r = Record.read({"score": None, "by_name": None, "inner": None, "detectable": {"x": "anything"},
                     "lint": [None]}, PATH)
    assert r == Record()


def test_same_object_reads_the_enclosing_object():
    r = Record.read({"score": 4.0, "ci": [3.0, 5.0]}, PATH)
    assert r.top == Inner(4.0, (3.0, 5.0)) and r.score == 4.0


@pytest.mark.parametrize("data,field_name,words", [
    ({"score": "50%"}, "score", "expected a number or null, got the string '50%'"),
    ({"score": math.nan}, "score", "expected a finite number or null, got nan"),
    ({"score": True}, "score", "expected a number or null, got true"),
    ({"count": 2.5}, "count", "expected a whole number or null, got 2.5"),
    ({"name": 3}, "name", "expected a string or null, got 3"),
    ({"flag": 1}, "flag", "expected true or false or null, got 1"),
    ({"kind": "c"}, "kind", "expected one of 'a', 'b' or null, got the string 'c'"),
    ({"words": "p"}, "words", "expected a list or null, got the string 'p'"),
    ({"words": ["p", None]}, "words[1]", "expected a string, got null"),
    ({"ci": [1.0]}, "ci", "expected an interval [low, high] or null, got a list"),
    ({"ci": "1-2"}, "ci", "expected an interval [low, high] or null, got the string '1-2'"),
    ({"ci": [1.0, "2"]}, "ci[1]", "expected a number or null, got the string '2'"),
    ({"by_name": []}, "by_name", "expected an object or null, got a list"),
    ({"by_name": {"g": None}}, "by_name.g", "expected an object, got null"),
    ({"by_name": {"g": {"ci": [0, "x"]}}}, "by_name.g.ci[1]", "expected a number or null"),
    ({"inner": {"score": {}}}, "inner.score", "expected a number or null, got an object"),
    ({"rows": {"o": {"share": None}}}, "rows.o.share", "expected a number, got null"),
    ({"rows": {"o": {"note": 1}}}, "rows.o.note", "expected a string or null, got 1"),
])
def test_a_wrong_value_names_file_and_dotted_field(data, field_name, words):
    error = _error(data)
    assert (error.path, error.field) == (PATH, field_name)
    assert words in str(error) and str(PATH) in str(error)


def test_null_inside_a_container_only_where_the_hint_says_so():
    r = Record.read({"maybe_words": ["p", None], "maybe_by_name": {"g": None, "h": {"score": 1}}}, PATH)
    assert r.maybe_words == ("p", None) and r.maybe_by_name == {"g": None, "h": Inner(1)}


def test_a_hint_it_cannot_read_is_a_programming_error():
    @dataclass(frozen=True)
    class Odd:
        value: int | str | None = None

    with pytest.raises(TypeError, match="one type or null"):
        read_typed(Odd, {"value": 1}, PATH)


def test_check_runs_after_the_types():
    @dataclass(frozen=True)
    class Ordered(Summary):
        low: float | None = None
        high: float | None = None

        def check(self, path: Path) -> None:
            if self.low is not None and self.high is not None and self.low > self.high:
                raise DataError("low above high", path=path, field="low")

    assert Ordered.read({"low": 1, "high": 2}, PATH) == Ordered(1, 2)
    with pytest.raises(DataError, match="low above high"):
        Ordered.read({"low": 3, "high": 2}, PATH)


@pytest.mark.parametrize("spec", benchmark_specs(), ids=lambda spec: spec.name)
def test_every_registered_summary_reads_an_empty_object_to_its_defaults(spec):
    # a summary without any field the report reads (an old or a foreign run) reads, never raises
    kind = spec.summary_type
    assert kind.read({}, PATH) == kind()
