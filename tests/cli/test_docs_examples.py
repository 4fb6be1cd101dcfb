"""The documentation runs: every ```python block of docs/python.md and of the README's
"From Python" section, and every command of the README's "Using it" block, on tiny models
built in code (tests/tiny_models.py).

Hub ids and packaged models are replaced by tiny model folders of the same kind (a masked
LM for BERT, CamemBERT and RoBERTa ids, a causal LM for the packaged Gemma and SmolLM2), and
the data files a command names but the repository does not ship (``my_pairs.tsv``,
``uk_aps_2021.csv``, ``news.txt``) by small files written here. Commands and ``evaluate``
calls that score a whole data set get a limit (``--limit``, ``limit=``) so that each scores a
few items; nothing else in them changes. A command or block that fails fails the test with
its output.
"""

from __future__ import annotations

import ast
import glob
import json
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PYTHON_DOC = ROOT / "docs" / "python.md"

#: Model names in the docs → the fixture of a tiny model of the same kind.
TINY: dict[str, str] = {
    "bert-base-uncased": "tiny_bert", "bert-base-cased": "tiny_bert_cased", "./my-model-folder": "tiny_bert",
    "camembert-base": "tiny_bert", "roberta-base": "tiny_roberta", "bert-base-chinese": "tiny_chinese_bert",
    "gemma-3-270m": "tiny_gpt2", "smollm2-135m": "tiny_gpt2_chat", "ltg/norbert2": "tiny_bert",
}
#: The model a command without --model would load (the packaged Gemma, a causal LM).
DEFAULT_STAND_IN = "tiny_gpt2"
#: A second masked LM, for a run folder a command compares against but no command makes.
OTHER_MASKED = "tiny_roberta"
#: Items per run: enough for every table and test, few enough for a fast suite.
LIMIT = {"crows-pairs": "20", "census": "4", "zh-neutral": "30", "winogender": "4", "winobias": "3", "bbq": "3",
         "stereoset": "3", "gest": "2", "discrim-eval": "20"}

ZH_SENTENCES = (  # mined by `biasatlas mine`: each holds one gendered keyword of a default pair
    "他在学校里认真学习，每天都很早起床。", "那个男童在公园里玩得很开心。", "记者发现，他每天都会去图书馆读书学习。",
    "父亲这个角色在家庭教育中非常重要。", "这位女士在会上提出了很多建设性的意见。", "她在医院工作了很多年，非常辛苦。",
)


# -- reading the docs -------------------------------------------------------------------------------
def section(text: str, heading: str) -> str:
    """The text under ``heading`` (a ``## `` line) up to the next ``## `` heading."""
    start = text.index(f"\n{heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


def bash_commands(text: str) -> list[list[str]]:
    """Each ``biasatlas …`` command of the first ```bash block, split like a shell (comments dropped,
    ``&&`` chains split into their commands)."""
    block = re.search(r"^```bash\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    assert block is not None, "no bash block"
    commands = []
    for line in block.group(1).splitlines():
        words = shlex.split(line, comments=True)
        while words:
            cut = words.index("&&") if "&&" in words else len(words)
            commands.append(words[:cut])
            words = words[cut + 1:]
    assert all(c[0] == "biasatlas" for c in commands), commands
    return commands


# -- stand-ins --------------------------------------------------------------------------------------
@pytest.fixture
def tiny(request):
    """Model name → tiny model folder (built once per session, on first use)."""
    return lambda name: str(request.getfixturevalue(TINY.get(name, name)))


@pytest.fixture
def work(isolated_run):
    """A fresh working folder and score cache; CrowS-Pairs data from the shared folder."""
    return isolated_run


def write_stand_in(path: Path, shared_data: Path) -> None:
    """A small file for a data file the README names but the repository does not ship."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name == "my_pairs.tsv":  # the CrowS-Pairs format: the French file's header and first 20 pairs
        lines = (shared_data / "crows-pairs-fr" / "crows_pairs_FR.csv").read_text(encoding="utf-8").splitlines()
        path.write_text("\n".join(lines[:21]) + "\n", encoding="utf-8")
    elif path.name == "uk_aps_2021.csv":  # occupation,female_pct; names with shipped English forms
        path.write_text("occupation,female_pct\nChief executives,31.0\nMarketing managers,55.5\n"
                        "Registered nurses,88.0\nSoftware developers,17.0\nCashiers,70.0\n", encoding="utf-8")
    elif path.name == "news.txt":  # a raw Chinese corpus for `biasatlas mine`
        path.write_text("\n".join(ZH_SENTENCES) + "\n", encoding="utf-8")
    else:
        pytest.fail(f"the README names {path}, which the test has no stand-in for: add one to write_stand_in")


def substitute_python(code: str, tiny) -> str:
    """The block with each documented model name replaced by a tiny model folder (in
    ``evaluate(model=...)`` and in a transformers ``from_pretrained(...)``), and a limit on each
    ``evaluate`` call that would score a whole benchmark."""
    tree = ast.parse(code)
    for call in ast.walk(tree):
        called = getattr(call.func, "attr", getattr(call.func, "id", "")) if isinstance(call, ast.Call) else ""
        if called == "resolve_packaged_model" and call.args and isinstance(call.args[0], ast.Constant):
            # the packaged model's folder: the tiny model of its kind stands in, as for --model NAME
            if call.args[0].value not in TINY:
                pytest.fail(f"no tiny stand-in for packaged model {call.args[0].value!r}: add it to TINY")
            call.args[0] = ast.Constant(tiny(call.args[0].value))
            call.func = ast.Name("str", ast.Load())
        if called == "from_pretrained" and call.args and isinstance(call.args[0], ast.Constant):
            if call.args[0].value not in TINY:
                pytest.fail(f"no tiny stand-in for model {call.args[0].value!r}: add it to TINY")
            call.args[0] = ast.Constant(tiny(call.args[0].value))
        if called != "evaluate":
            continue
        keywords = {k.arg: k for k in call.keywords}
        model = keywords.get("model")
        if model is None:
            pytest.fail(f"an evaluate call without model=: {ast.unparse(call)}")
        if not isinstance(model.value, ast.Constant):
            pass  # a model object the block built (in memory, or a Scorer): its names were replaced above
        elif model.value.value != "fake":
            if model.value.value not in TINY:
                pytest.fail(f"no tiny stand-in for model {model.value.value!r}: add it to TINY")
            model.value = ast.Constant(tiny(model.value.value))
        benchmark = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
        if benchmark in LIMIT and not {"limit", "sample"} & set(keywords):
            call.keywords.append(ast.keyword("limit", ast.Constant(int(LIMIT[benchmark]))))
    return ast.unparse(tree)


def run_python_blocks(text: str, where: str, tiny) -> dict:
    blocks = python_blocks(text)
    assert blocks, f"no python block in {where}"
    namespace: dict = {"__name__": "__docs__"}
    for number, code in enumerate(blocks, 1):
        exec(compile(substitute_python(code, tiny), f"{where}, python block {number}", "exec"), namespace)
    return namespace


# -- the Python examples ----------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("card", ["crows-pairs", "census", "zh-neutral", "winogender", "winobias"])
def test_benchmark_card_quick_start_runs(work, tiny, card):
    """Each benchmark card's first Python block: the public ``biasatlas.evaluate``, typed summary."""
    text = (ROOT / "docs" / "benchmarks" / f"{card}.md").read_text(encoding="utf-8")
    first = python_blocks(text)[0]
    assert "biasatlas.evaluate(" in first and "pipeline" not in first
    namespace: dict = {"__name__": "__docs__"}
    exec(compile(substitute_python(first, tiny), f"docs/benchmarks/{card}.md", "exec"), namespace)
    assert namespace["run"].benchmark == card and namespace["run"].records


@pytest.mark.slow
def test_python_doc_examples_run(work, tiny):
    namespace = run_python_blocks(PYTHON_DOC.read_text(encoding="utf-8"), "docs/python.md", tiny)
    assert (work / "runs" / "fr-camembert" / "summary.json").is_file()
    # the last examples' claims: the status lines and the typed error
    # the run before it scored these 50 pairs: this one finds them all in the cache
    start = ("crows-pairs · dataset en (English) · 50 items · model fake (fake, hash) · nothing left to score · "
             "NOT saved (no --out) · resuming: 50 of 50 cached")
    assert namespace["lines"] == ["crows-pairs · loading model fake …", start, "reused 50 cached answers; scored 0"]
    assert namespace["again"].path == Path("runs/fr-camembert")
    assert namespace["held"].records  # the packaged model's folder, loaded and scored in memory


@pytest.mark.slow
def test_readme_python_section_runs(work, tiny):
    text = section(README.read_text(encoding="utf-8"), "## From Python")
    namespace = run_python_blocks(text, "README.md, From Python", tiny)
    assert namespace["census"].path == Path("runs/census-no")
    assert namespace["run"].path is None and not (work / "runs" / "crows-pairs").exists()


def test_python_doc_names_only_models_with_stand_ins():
    """The fast half of the two tests above: every model the Python examples name has a stand-in."""
    text = PYTHON_DOC.read_text(encoding="utf-8") + section(README.read_text(encoding="utf-8"), "## From Python")
    named = set(re.findall(r'model="([^"]+)"', "".join(python_blocks(text))))
    assert named and named <= {*TINY, "fake"}


# -- the README's commands --------------------------------------------------------------------------
def prepare(words: list[str], tiny, shared_data: Path, made: dict[str, list[str]]) -> list[str]:
    """One README command as the test runs it: tiny models, stand-in files, few items, globs expanded."""
    args = list(words[1:])
    command = args[0]
    if command == "run":
        benchmark = args[1]
        if "--model" in args:
            at = args.index("--model") + 1
            args[at] = tiny(args[at])
        else:
            args += ["--model", tiny(DEFAULT_STAND_IN)]
        if not {"--limit", "--sample", "--scenarios"} & set(args):  # DiscrimEval's --scenarios is its subset
            args += ["--limit", LIMIT[benchmark]]
        args = _on_this_machine(args)
    if command == "suite":
        args[1] = str(_tiny_suite(Path(ROOT / args[1]), tiny))
    for option in ("--data", "--census", "--corpus"):
        if option in args:
            path = Path(args[args.index(option) + 1])
            if not path.exists() and not str(path).startswith("mined/"):  # mined/… comes from `mine`
                write_stand_in(path, shared_data)
    if command == "compare":
        for folder in args[1:]:
            if not folder.startswith("-") and not Path(folder).exists():
                _make_like(folder, args[1], tiny, made)
    expanded = []
    for arg in args:
        expanded += sorted(glob.glob(arg)) if "*" in arg else [arg]
    if command == "run" and "--out" in expanded:
        made[expanded[expanded.index("--out") + 1]] = expanded
    return expanded


def _on_this_machine(args: list[str]) -> list[str]:
    """A GPU command run on the CPU when there is no GPU, with two Ray workers (two cores)."""
    import torch

    args = list(args)
    if "--device" in args and args[args.index("--device") + 1].startswith("cuda") and not torch.cuda.is_available():
        args[args.index("--device") + 1] = "cpu"
    if "--workers" in args:
        args[args.index("--workers") + 1] = "2"
    return args


def _tiny_suite(path: Path, tiny) -> Path:
    """The documented suite with tiny models and few items, written beside the working folder."""
    import tomllib

    suite = tomllib.loads(path.read_text(encoding="utf-8"))
    lines = [f"[defaults]\n{_toml(suite.get('defaults', {}))}"]
    for bench in suite["benchmark"]:
        bench = {k: v for k, v in bench.items() if k not in ("limit", "sample")} | {"limit": int(LIMIT[bench["name"]])}
        lines.append(f"[[benchmark]]\n{_toml(bench)}")
    lines += [f"[[model]]\n{_toml(model | {'id': tiny(model['id']), 'label': model.get('label', model['id'])})}"
              for model in suite["model"]]  # two documented models may share one stand-in
    out = Path.cwd() / path.name
    out.write_text("\n".join(lines), encoding="utf-8")
    return out


def _toml(table: dict) -> str:
    return "".join(f"{key} = {json.dumps(value)}\n" for key, value in table.items())


def _make_like(folder: str, reference: str, tiny, made: dict[str, list[str]]) -> None:
    """A run folder the README compares but no command makes: the reference run's command
    with another tiny masked LM (same data and settings, so the two can be paired)."""
    args = list(made[reference])
    args[args.index("--model") + 1] = tiny(OTHER_MASKED)
    args[args.index("--out") + 1] = folder
    _invoke(args)


def _invoke(args: list[str]) -> str:
    from typer.testing import CliRunner

    from biasatlas.cli import app

    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, f"biasatlas {shlex.join(args)}\n{result.output}\n{result.exception!r}"
    return result.output


@pytest.mark.slow
def test_readme_using_it_commands_run(work, tiny, shared_data):
    commands = bash_commands(section(README.read_text(encoding="utf-8"), "## Using it"))
    assert len(commands) >= 10
    made: dict[str, list[str]] = {}
    outputs = {}
    for words in commands:
        args = prepare(words, tiny, shared_data, made)
        outputs[shlex.join(words)] = _invoke(args)
    assert (work / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert any("McNemar" in text or "Holm" in text for text in outputs.values())  # compare printed its tests
    for folder in made:
        assert (work / folder / "summary.json").is_file(), folder
    assert (work / "runs" / "suite" / "report.html").is_file()  # the suite's closing report


def test_readme_commands_are_all_covered():
    """Every README command is one the test knows how to run (the fast half of the test above)."""
    commands = bash_commands(section(README.read_text(encoding="utf-8"), "## Using it"))
    for words in commands:
        assert words[1] in ("list", "run", "lint", "mine", "report", "compare", "suite"), words
        if words[1] == "run":
            assert words[2] in LIMIT
            if "--model" in words:
                assert words[words.index("--model") + 1] in TINY, words
