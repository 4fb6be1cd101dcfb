"""A served model through every edge (command line, ``evaluate``, ``check-server``), against the
fake server behind a real socket on 127.0.0.1 (tests/served_fake.py): the run folder says what
was served, the Python API writes the same items, and the API key is in nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("httpx", reason="the served scorer needs httpx")

from biasatlas.cli import main  # noqa: E402
from served_fake import FakeServer, Listening  # noqa: E402

KEY = "sk-fake-" + "9" * 24


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SERVED_TEST_KEY", KEY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake = FakeServer(key=KEY)
    listening = Listening(fake)
    yield listening.url, fake
    listening.close()


@pytest.fixture
def served(server) -> str:
    return str(server[0])


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as ended:
        main(args)
    said = capsys.readouterr()
    return int(ended.value.code or 0), said.out + said.err


@pytest.mark.slow  # two crows-pairs runs, the command line's and evaluate's
def test_a_run_on_a_served_model_records_the_server_and_writes_no_key(served, isolated_run, capsys,
                                                                       tmp_path: Path) -> None:
    code, said = _cli(["run", "crows-pairs", "--dataset", "en", "--limit", "12", "--model", served,
                       "--served-prefix", "<s>", "--api-key-env", "SERVED_TEST_KEY", "--out", "cli"], capsys)
    assert code == 0, said
    scorer = json.loads((isolated_run / "cli" / "config.json").read_text())["scorer"]
    assert scorer["scorer"] == "served" and scorer["endpoint"] == served and scorer["served_model"] == "toy"
    assert scorer["server_version"] == "fake-1.0" and len(scorer["canary_fingerprint"]) == 16

    import biasatlas

    biasatlas.evaluate("crows-pairs", model=served, served_prefix="<s>", api_key_env="SERVED_TEST_KEY",
                       dataset="en", limit=12, out=isolated_run / "api")
    assert (isolated_run / "api" / "items.jsonl").read_bytes() == (isolated_run / "cli" / "items.jsonl").read_bytes()
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "scores.sqlite" for p in written)
    assert not [p for p in written if KEY.encode() in p.read_bytes()] and KEY not in said


@pytest.mark.slow  # three small crows-pairs runs
def test_another_model_behind_the_same_name_does_not_overwrite_a_run_folder(server, isolated_run, capsys) -> None:
    url, fake = server
    args = ["run", "crows-pairs", "--dataset", "en", "--limit", "6", "--model", url, "--served-prefix", "<s>",
            "--api-key-env", "SERVED_TEST_KEY", "--out", "cli"]
    assert _cli(args, capsys)[0] == 0
    before = (isolated_run / "cli" / "items.jsonl").read_bytes()
    fake.salt = "retrained"  # the same URL and name, other weights
    code, said = _cli(args, capsys)
    assert code == 2 and "holds a run of another model behind the same server and name" in said, said
    assert (isolated_run / "cli" / "items.jsonl").read_bytes() == before
    code, said = _cli([*args, "--force"], capsys)
    assert code == 0, said
    timing = json.loads((isolated_run / "cli" / "timing.json").read_text())
    assert timing["cache_hits"] == 0  # the fingerprint keys the cache: no answer of the other model reused


def test_check_server_passes_a_good_server_and_refuses_a_bad_one_in_one_line(served, capsys) -> None:
    code, said = _cli(["check-server", served, "--served-prefix", "<s>", "--api-key-env", "SERVED_TEST_KEY"],
                      capsys)
    assert code == 0 and "prefix-stable" in said and "trusted" in said, said
    code, said = _cli(["check-server", served, "--api-key-env", "SERVED_TEST_KEY"], capsys)
    assert code == 1 and said.startswith(f"error: {served} (model toy) fails the 'start-token' check")
    assert said.count("\n") == 1


def test_a_wrong_key_is_refused_naming_the_variable_to_check(served, capsys, monkeypatch) -> None:
    monkeypatch.setenv("SERVED_TEST_KEY", "sk-wrong")
    code, said = _cli(["check-server", served, "--served-prefix", "<s>", "--api-key-env", "SERVED_TEST_KEY"],
                      capsys)
    assert code == 1 and "HTTP 401 invalid API key (check the API key's environment variable)" in said
    assert "sk-wrong" not in said
