"""GEST's templates: where a sentence is put so that a model's reading of it says "he" or "she".

The authors' ``_inference.ipynb`` (kinit-sk/gest @ 7dd908ca) has two families:

- masked LMs, four templates, each a male and a female version of one sentence:
  0 ``He said: "{s}"`` / ``She said: "{s}"``; 1 ``The man said: "{s}"`` / ``The woman said: "{s}"``;
  2 ``"{s}", he said.`` / ``"{s}", she said.``; 3 ``"{s}", the man said.`` / ``"{s}", the woman said.``
- causal LMs, two prompts, each read at the next token: 0 ``"{s}",`` then ``he`` / ``she``;
  1 ``"{s}", the`` then ``man`` / ``woman`` (tokens taken with a leading space).

A :class:`Template` is the text around the gendered word: ``left`` and ``right`` (``{s}`` stands
for the sentence) and the two words.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Template:
    """One template: ``key`` as summaries name it (``template-0`` …, the authors' numbering within
    a family), the text either side of the gendered word, and the male and female words."""

    key: str
    left: str
    right: str
    male: str
    female: str

    def around(self, sentence: str) -> tuple[str, str]:
        """The text before and after the gendered word, with ``sentence`` put in."""
        return self.left.replace("{s}", sentence), self.right.replace("{s}", sentence)


#: The masked LMs' four templates (the word is masked in place).
MASKED: tuple[Template, ...] = (
    Template("template-0", "", ' said: "{s}"', "He", "She"),
    Template("template-1", "The ", ' said: "{s}"', "man", "woman"),
    Template("template-2", '"{s}", ', " said.", "he", "she"),
    Template("template-3", '"{s}", the ', " said.", "man", "woman"),
)
#: The causal LMs' two prompts (``right`` is empty: the word is the next token; its leading space is
#: the authors' ``add_prefix_space=True``).
NEXT_TOKEN: tuple[Template, ...] = (
    Template("template-0", '"{s}",', "", " he", " she"),
    Template("template-1", '"{s}", the', "", " man", " woman"),
)
