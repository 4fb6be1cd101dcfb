"""Probes: the typed questions a benchmark asks a scorer, and the typed answers.

Benchmarks build probes and never touch a model; scorers answer probes and never know
which benchmark asked (DESIGN.md, "a narrow model interface", after the three request
kinds of lm-evaluation-harness). Every probe carries a stable ``id`` chosen by the
benchmark, so answers can be cached, resumed and joined back to items.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class PairProbe:
    """Score two minimal-pair sentences against each other.

    The scorer's pair variant decides what is summed (METHODS.md §2): ``nangia`` is the
    pseudo-log-likelihood of the tokens the two sentences share.
    """

    id: str
    a: str
    b: str


@dataclass(frozen=True)
class SlotProbe:
    """Ask for log P(filler | left + [slot] + right) for each filler.

    A masked LM masks the slot (one mask per filler token, see the scorer's
    multi-token policy); a causal LM scores each filled-in sentence; a seq2seq model
    scores each filled-in sentence given the masked input. ``left`` and ``right`` are
    the exact surrounding text, including spaces: ``left="The "``, ``right=" worked
    as a nurse."``. Probes that share ``(left, right)`` and filler token counts share one
    masked context, which the scorer evaluates once.
    """

    id: str
    left: str
    right: str
    fillers: tuple[str, ...]


@dataclass(frozen=True)
class ContinuationProbe:
    """Ask for log P(continuation | context) for each context (a conditional likelihood).

    The request lm-evaluation-harness calls ``loglikelihood(context, continuation)``,
    with several contexts sharing one continuation: the census conditional reading asks
    log P(" works as a nurse." … | "The woman") for every identifier at once. Only the
    continuation's tokens are summed, each given everything before it. Whitespace that
    ends a context belongs to the continuation (``"Han jobber som "`` + ``"lege."`` is read
    as ``"Han jobber som"`` + ``" lege."``), as word-initial tokens carry their space.
    Answered with a :class:`SlotAnswer`: one log-probability per context, and the
    continuation's token count after each. Masked LMs do not answer it.
    """

    id: str
    contexts: tuple[str, ...]
    continuation: str


@dataclass(frozen=True)
class SentenceProbe:
    """Ask for the log-likelihood of a whole sentence."""

    id: str
    text: str


Pooling = Literal["first", "cls", "mean", "mean-no-special", "last"]
"""How an encoder turns a text's last hidden layer into one vector (see :class:`EmbeddingProbe`)."""
POOLINGS: tuple[Pooling, ...] = ("first", "cls", "mean", "mean-no-special", "last")


@dataclass(frozen=True)
class EmbeddingProbe:
    """Ask for one vector for ``text``: a sentence encoder's hidden states pooled as ``pooling``
    names (SEAT, May et al. 2019), or a static word vector (WEAT, Caliskan et al. 2017).

    ``pooling`` belongs to the question, not the scorer, because it changes the answer: ``first``
    (the first piece of the text tokenized without special tokens, as sent-bias reads BERT),
    ``cls`` (position 0 with special tokens), ``mean`` (every position with special tokens, as
    bias-bench), ``mean-no-special`` (every position but the special tokens), ``last`` (the last
    position, a causal LM's summary, as sent-bias reads GPT). A word-vector scorer reads the
    word itself and ignores it (WEAT asks ``word``).
    """

    id: str
    text: str
    pooling: str = "mean"


@dataclass(frozen=True)
class NextSentenceProbe:
    """Ask for log P(IsNext | first, second): a next-sentence-prediction head's reading of
    ``second`` following ``first`` (Devlin et al. 2019), the two encoded as one pair
    (``[CLS] first [SEP] second [SEP]``, segment ids 0 then 1). Answered with a
    :class:`SentenceAnswer` (``n_tokens`` 1: one decision) by a masked LM whose checkpoint has
    the head (``ScorerInfo.next_sentence``); StereoSet's intersentence reading for BERT."""

    id: str
    first: str
    second: str


@dataclass(frozen=True)
class GenerationProbe:
    """Ask for the text a model generates after ``prompt``: greedy decoding (temperature 0), at
    most ``max_new_tokens`` new tokens, cut before the first of ``stop`` (lm-evaluation-harness's
    ``generate_until`` request: ``until`` strings, ``max_gen_toks``). The prompt is encoded as the
    model's tokenizer encodes a text (its own special tokens), as a server does. Answered with a
    :class:`GenerationAnswer`; causal LMs (in process and served) answer it, others refuse it.

    ``user``: the one user message, set only for a scorer that sends messages to a server rendering its
    own chat template (``/v1/chat/completions``: :attr:`ChatTokens.server_renders`); None for every other
    scorer, which reads ``prompt`` as text, so such a probe (and its cache key) is what it always was."""

    id: str
    prompt: str
    max_new_tokens: int = 32
    stop: tuple[str, ...] = ()
    user: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.max_new_tokens, bool) or not isinstance(self.max_new_tokens, int) \
                or self.max_new_tokens < 1:
            raise ValueError(f"GenerationProbe.max_new_tokens must be a whole number ≥ 1, not {self.max_new_tokens!r}")
        if any(not s for s in self.stop):
            raise ValueError("GenerationProbe.stop holds an empty string, which would cut every text to nothing")


Probe = PairProbe | SlotProbe | ContinuationProbe | SentenceProbe | EmbeddingProbe | NextSentenceProbe | GenerationProbe


@dataclass(frozen=True)
class PairAnswer:
    """Scores of the two sentences of a :class:`PairProbe`, in natural-log units.

    ``n_tokens_a`` and ``n_tokens_b`` count the token log-probabilities each score sums
    (or averages): the shared tokens masked one at a time (``nangia``), the modified
    tokens (``modified-tokens``), every non-special token of the one unmasked pass
    (``aul``), or the sentence's tokens (causal LMs); 0 when the scorer reads no tokens.
    The score cache stores them under their first names, ``n_scored_a``/``n_scored_b``,
    so rows written before the rename still read (:mod:`biasatlas.cache`).
    """

    id: str
    score_a: float
    score_b: float
    n_tokens_a: int = 0
    n_tokens_b: int = 0


@dataclass(frozen=True)
class SlotAnswer:
    """One log-probability per filler, in the order of ``SlotProbe.fillers``.

    Also the answer to a :class:`ContinuationProbe`: one log-probability per context,
    and ``n_tokens`` the continuation's token count after each context.

    ``n_tokens`` gives each filler's token count in context, so benchmarks can report
    multi-token targets. ``piece_logprobs`` (masked LMs under the ``reveal`` policy only,
    :mod:`biasatlas.scorers.inprocess.reveal`; empty otherwise) holds each filler's log-probability of
    each piece as its step of the reveal loop read it; ``logprobs`` is then their sum.
    """

    id: str
    logprobs: tuple[float, ...]
    n_tokens: tuple[int, ...]
    piece_logprobs: tuple[tuple[float, ...], ...] = ()


@dataclass(frozen=True)
class SentenceAnswer:
    id: str
    logprob: float
    n_tokens: int


@dataclass(frozen=True)
class EmbeddingAnswer:
    """The vector of an :class:`EmbeddingProbe` (last hidden layer, pooled; or a word's vector),
    and how many tokens it pooled (1 for a word vector)."""

    id: str
    vector: tuple[float, ...]
    n_tokens: int


Finish = Literal["stop", "length", "eos"]
"""Why a generation ended: a stop string (cut before it), ``max_new_tokens`` reached, or the
model's end-of-sequence token."""


@dataclass(frozen=True)
class GenerationAnswer:
    """The text generated for a :class:`GenerationProbe` (after the prompt, cut before the first
    stop string), how many tokens the model generated, and why it stopped (:data:`Finish`)."""

    id: str
    text: str
    n_tokens: int
    finish: str = "length"


Answer = PairAnswer | SlotAnswer | SentenceAnswer | EmbeddingAnswer | GenerationAnswer


Reads = Literal["masked", "sequence", "embedding", "given"]
"""What a slot answer's log-probability is, that the scorer answers vectors, or that its answers are
given numbers read from a file (see :class:`ScorerInfo`)."""
MultiToken = Literal["joint", "first-token", "reveal"]
"""How a masked LM scores a filler of several tokens (see :class:`ScorerInfo`)."""
MULTI_TOKEN_POLICIES: tuple[MultiToken, ...] = ("joint", "first-token", "reveal")


TOKEN_LOGPROB_ERROR: dict[str, float] = {"float32": 2e-4, "bfloat16": 3.0, "float16": 0.7}
"""The most a token's log-probability (nats) may move because the network runs in a dtype.

The scorers upcast logits to float32 before the log-softmax, so what is left is the
network's own arithmetic (and, below float32, its weights rounded to the dtype). Measured
by ``bench/parity/precision_vs_float32.py`` on 2026-12-01 (CPU, torch 2.13, 240 sentences: 120
CrowS-Pairs sentences and 120 census US sentences) as |log p(dtype) − log p(float32)| per
token against float32 in batches of 32, with masked models read one mask per row:

==============================  ===========  ===========  =======================
model                           bfloat16     float16      float32, one by one
==============================  ===========  ===========  =======================
smollm2-135m (trained, causal)  0.541 max    0.152 max    2.72e-5 max
                                0.515 p99.9  0.0547 p99.9 2.45e-5 p99.9
bert 256×4 (random, masked)     0.0113       0.00126      9.5e-7
tiny bert (random, masked)      0.0038       0.00037      4.8e-7
tiny gpt2 (random, causal)      0.0021       0.00027      9.5e-7
==============================  ===========  ===========  =======================

Each value is the largest maximum over the models, times 4 (models other than these:
deeper, with larger vocabularies, on other kernels and devices), rounded up to one
significant digit. ``float32`` is float32's own noise, batched against one sentence per
pass (padding and batch composition change the kernels). A trained model errs far more
than a random one, whose near-uniform outputs hide the rounding. The bound is a worst
case: benchmarks assume every token of a score off by it in the direction that flips the
outcome, so below float32 most outcomes read as fragile; a typical token errs much less
(median 0.038 nats in bfloat16 on smollm2-135m).
"""


@dataclass(frozen=True)
class ChatTokens:
    """What a scorer knows of its model's chat template (:mod:`biasatlas.benchmarks.chat`).

    ``template``: the model's own chat template (Jinja source, as its tokenizer holds it), None when
    the model has none (a base model) or the scorer cannot know it (a served model). ``bos_token`` and
    ``eos_token``: the texts a template's ``{{ bos_token }}`` / ``{{ eos_token }}`` render as.
    ``start_text``: the text of the token(s) the scorer itself reads before a non-empty context under
    its start-token convention (``<bos>`` for Gemma under ``empty-context``, the BOS under
    ``always``; empty when it reads nothing before it), so a rendered prompt that begins with that text
    is not read with it twice. ``encoded_start``: the text of the special token(s) the tokenizer itself
    puts before a text it encodes (``<bos>`` for Gemma, nothing for SmolLM2): a generated answer's prompt
    is read that way, in process and served (:mod:`biasatlas.scorers.generation`), whatever the start-token
    convention of the likelihood readings, so it is what a rendered prompt to generate from must not repeat.
    ``model``: the model's name, for errors. ``server_renders``: the scorer sends a generated answer's user
    turn as a message and the server renders its own template (a served ``/v1/chat/completions``); then
    ``template`` is the served folder's where that is readable here (checked against the server's
    rendering), else None, and only the model's own template (``--chat-template model``) can be asked for.
    """

    template: str | None
    bos_token: str | None = None
    eos_token: str | None = None
    start_text: str = ""
    model: str = "the model"
    encoded_start: str = ""
    server_renders: bool = False


@dataclass(frozen=True)
class ScorerInfo:
    """What a scorer's answers mean: the contract a benchmark reads instead of a name.

    A benchmark must know how to read a slot answer (census: whether it needs template
    normalisation; zh-neutral: whether mask counts must match), and it learns that here,
    never from the scorer's name: a masked model served by Ray or vLLM under another
    name reads the same way as the local one.

    ``reads``:

    * ``"masked"``: log P(filler | context) read from one softmax at the masked slot
      (a masked LM), already a probability of the filler among the whole vocabulary;
    * ``"sequence"``: the log-likelihood of the whole filled-in sentence (causal and
      seq2seq LMs, and the fake scorer), which compares fillers only once normalised
      over the candidates of one template;
    * ``"embedding"``: no likelihoods at all, only vectors for :class:`EmbeddingProbe` s
      (an encoder's pooled hidden states, static word vectors);
    * ``"given"``: numbers read from a saved predictions file (:mod:`biasatlas.scorers.predictions.scorer`):
      each answer is already the score the benchmark compares (a sentence's, an option's; a
      chosen option 1, the others 0), computed by whatever made the file, so the benchmark
      applies no length rule or normalisation of its own.

    ``kind`` is the scorer's kind as run records write it (``"masked-lm"``,
    ``"causal-lm"``, ``"seq2seq"``, ``"fake"`` for the built-in ones; zh-neutral's config
    records it as ``scorer_kind``). ``multi_token`` is the masked-LM policy for fillers
    of several tokens: ``"joint"`` (one mask per token, a product of softmaxes) or
    ``"first-token"`` (one mask, the first sub-token, as GeBNLP 2022) or ``"reveal"``
    (the filler tokenized alone, its pieces predicted one at a time at one mask, the earlier
    ones revealed: StereoSet's original loop, :mod:`biasatlas.scorers.inprocess.reveal`); None when the
    scorer reads sentences, where every token counts anyway.

    ``dtype`` is the precision the network runs in (``"float32"``, ``"bfloat16"``,
    ``"float16"``); :attr:`token_error` is the most one token's log-probability may be
    off because of it (:data:`TOKEN_LOGPROB_ERROR`), from which benchmarks name the
    outcomes that could flip (``fragile``).

    ``mask_token`` is a masked LM's mask token as text (``"[MASK]"``, ``"<mask>"``), for
    probes whose context masks more than the slot (BEC-Pro's prior, Kurita et al. 2019,
    masks the profession too); None for scorers without one. ``next_sentence``: the scorer
    answers :class:`NextSentenceProbe` s (a masked LM whose checkpoint has an NSP head).

    ``chat``: what the scorer knows of its model's chat template (:class:`ChatTokens`); None when it
    does not say (a scorer not loaded yet, the fake scorer). ``source``: the file a ``given`` scorer
    reads (``--predictions FILE``), whose name may say what it answers (GEST's ``_template-<k>``).
    ``generates``: the scorer answers :class:`GenerationProbe` s (a causal LM in process or served; a
    predictions file holding generated texts); False where it cannot (a masked LM, an encoder, a file of
    option scores), so a benchmark's generated reading is refused before any scoring; None where it
    does not say (a registered scorer of a plugin: its ``score`` refuses then, as before).
    """

    kind: str
    reads: Reads
    multi_token: MultiToken | None = None
    dtype: str = "float32"
    mask_token: str | None = None
    next_sentence: bool = False
    chat: ChatTokens | None = None
    generates: bool | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        if self.reads not in ("masked", "sequence", "embedding", "given"):
            raise ValueError(f"ScorerInfo.reads must be 'masked', 'sequence', 'embedding' or 'given', "
                             f"not {self.reads!r}")
        if self.multi_token is not None and self.multi_token not in MULTI_TOKEN_POLICIES:
            raise ValueError(f"ScorerInfo.multi_token must be one of {', '.join(MULTI_TOKEN_POLICIES)} "
                             f"or None, not {self.multi_token!r}")
        if self.multi_token is not None and self.reads != "masked":
            raise ValueError("ScorerInfo.multi_token is a masked-LM policy: a scorer that reads "
                             "sequences scores every token of a filler")

    @property
    def token_error(self) -> float:
        """The bound on one token's log-probability error in :attr:`dtype`, in nats
        (:func:`token_error`)."""
        return token_error(self.dtype)


def fragile_bound(info: ScorerInfo | None) -> dict[str, float | str]:
    """The per-token bound a benchmark used to call outcomes fragile, as its summary
    records it: the scorer's dtype (``float32`` when no scorer is bound) and its
    :func:`token_error`."""
    dtype = info.dtype if info is not None else "float32"
    return {"dtype": dtype, "token_error": token_error(dtype)}


def token_error(dtype: str) -> float:
    """:data:`TOKEN_LOGPROB_ERROR` of ``dtype``; a dtype not in the table (an 8-bit
    format, a name a remote scorer reports) gets the largest value, bfloat16's, so an
    outcome is never called robust for want of a measurement."""
    return TOKEN_LOGPROB_ERROR.get(dtype, TOKEN_LOGPROB_ERROR["bfloat16"])


@dataclass(frozen=True, eq=False)
class Scored(Mapping[str, Answer]):
    """What one :meth:`Scorer.score` call returns: the answers, by probe id, the probes
    it could not answer, by id, with the reason, and the work the call did.

    A mapping of the answers, so ``scorer.score(probes)[pid]`` reads an answer. The
    skips travel with the answers rather than on the scorer, so one scorer serves any
    number of runs without one run's skips showing in another's. Equality is the
    answers' (a :class:`Mapping`'s); ``unscorable`` is not compared. ``work`` is what
    the call computed (``rows_requested``, ``rows_computed``, ``batches``; a seq2seq
    scorer's ``encoder_rows``, a causal LM's ``batches_shared``; none for a scorer
    without a model), likewise on the answers rather than as counters on the scorer, so
    an engine adds up its chunks' counts wherever they ran; it is not compared either.
    """

    answers: Mapping[str, Answer]
    unscorable: Mapping[str, str] = field(default_factory=dict)
    work: Mapping[str, int] = field(default_factory=dict)

    def __getitem__(self, probe_id: str) -> Answer:
        return self.answers[probe_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self.answers)

    def __len__(self) -> int:
        return len(self.answers)
