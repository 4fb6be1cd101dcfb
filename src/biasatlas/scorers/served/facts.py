"""What a server says of itself, for provenance and for which model to ask: ``/v1/models`` and ``/version``.

Both served scorers (completions and chat) read these once, when they connect. Every field is read
as its type (:class:`.answer.Field`): ``{"data": 5}`` or a model whose ``id`` is not a string
is refused naming the URL and the field, never iterated into a TypeError or turned into the name
``"None"``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import UsageError, did_you_mean
from ...hashing import file_hashes, packaged_record
from .answer import Field
from .http import ServedClient, ServerError


@dataclass(frozen=True)
class ServedFacts:
    """What the server says of itself (provenance): the model's id and ``root`` in
    ``/v1/models``, and the software's name and version where it says them."""

    model: str
    root: str | None
    owned_by: str | None
    version: str | None


def served_facts(client: ServedClient, wanted: str | None) -> ServedFacts:
    """The served model ``wanted`` (default: the only one listed) as ``/v1/models`` lists it."""
    listed = Field(client.get("models"), client.url("models")).key("data")
    entries = listed.maybe_items()
    models = {entry.key("id").text(): entry for entry in entries}
    if wanted is None:
        if len(models) != 1:
            raise UsageError(f"{client.endpoint.url} serves {len(models)} models ({', '.join(models)}): "
                             "name one with --served-model")
        wanted = next(iter(models))
    if wanted not in models:
        raise did_you_mean(f"model at {client.endpoint.url}", wanted, list(models))
    entry = models[wanted]
    return ServedFacts(wanted, entry.key("root").maybe_text(), entry.key("owned_by").maybe_text(), _version(client))


def _version(client: ServedClient) -> str | None:
    """The server's ``/version`` (vLLM's), beside the API's base path; None where it has none."""
    path = "../version" if client.endpoint.url.endswith("/v1") else "version"
    try:
        said = client.get(path)
    except ServerError:
        return None
    return Field(said, client.url(path)).key("version").maybe_text() if isinstance(said, dict) else None


def served_weights(root: str | None) -> dict[str, object]:
    """What identifies a served model's weights, where its server's ``root`` (the folder vLLM
    serves) is a folder readable here: the sha256 of its files, as an in-process run of that folder
    records them, and, for a packaged model's converted folder, its record (which packaged model).
    Empty for a server elsewhere: then only the served name and the canary say what answered."""
    if not root:
        return {}
    hashes = file_hashes(root)
    if not hashes:
        return {}
    record = packaged_record(root)
    return {"file_sha256": hashes, **({"packaged": record} if record is not None else {})}
