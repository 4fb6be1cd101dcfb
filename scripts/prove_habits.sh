#!/usr/bin/env bash
# Proof that each habit check fails CI when the habit is broken.
#
#   bash scripts/prove_habits.sh
#
# For each tool, a fresh copy of the working tree (tracked and untracked, not ignored
# files) gets one planted violation, then both the tool and its test in
# tests/core/test_habits.py run on the copy. The tool must exit non-zero and name the planted
# site, and the test must fail (pytest exit 1). One line per tool; the script exits
# non-zero if any proof does not hold. Each line also gives the tool's exit on the copy
# before planting: 0 there means the planted violation alone made it fail. Nothing in the
# working tree is touched.
#
#   ruff          an unused import in src/biasatlas/paths.py
#   mypy          a wrong return type in src/biasatlas/probes.py
#   import-linter `import biasatlas.cli` inside a function of src/biasatlas/scorers/fake.py
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PY="$ROOT/.venv/bin/python"
BIN="$ROOT/.venv/bin"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

copy_tree() {  # copy_tree DEST: the files git would see, without .venv and caches
  mkdir -p "$1"
  git ls-files -z -co --exclude-standard \
    | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
    | tar --null -T - -cf - | tar -xf - -C "$1"
}

# prove NAME TEST MARKER PLANT-COMMAND TOOL-COMMAND...
prove() {
  local name=$1 test=$2 marker=$3 plant=$4
  shift 4
  local dir="$WORK/$name"
  copy_tree "$dir"
  local out rc test_rc base_rc
  (cd "$dir" && PYTHONPATH="$dir/src" "$@" >/dev/null 2>&1)
  base_rc=$?
  (cd "$dir" && eval "$plant")
  out=$(cd "$dir" && PYTHONPATH="$dir/src" "$@" 2>&1)
  rc=$?
  (cd "$dir" && PYTHONPATH="$dir/src" "$PY" -m pytest -q -p no:cacheprovider \
      "tests/core/test_habits.py::$test" >/dev/null 2>&1)
  test_rc=$?
  if [ "$rc" -ne 0 ] && grep -q -- "$marker" <<<"$out" && [ "$test_rc" -eq 1 ]; then
    echo "PROVED  $name: exit $base_rc on the copy as it is, exit $rc with the violation planted, reported as" \
         "'$(grep -m1 -- "$marker" <<<"$out" | sed 's/^ *//' | cut -c1-80)'; $test fails"
  else
    echo "FAILED  $name: exit $rc, planted site reported: $(grep -q -- "$marker" <<<"$out" && echo yes || echo no), $test exit $test_rc"
    failed=1
  fi
}

failed=0
prove ruff test_ruff "src/biasatlas/paths.py" \
  "sed -i 's/^from __future__ import annotations$/&\nimport json/' src/biasatlas/paths.py" \
  "$PY" -m ruff check --no-cache src tests scripts bench

prove mypy test_mypy 'probes.py:[0-9]*: error: Incompatible return value type (got "str", expected "int")' \
  "printf '\n\ndef planted_wrong_return() -> int:\n    return \"not an int\"\n' >> src/biasatlas/probes.py" \
  "$PY" -m mypy --no-incremental --show-error-context

prove import-linter test_import_layers "biasatlas.scorers.fake -> biasatlas.cli" \
  "printf '\n\ndef _planted() -> None:\n    import biasatlas.cli  # noqa: F401\n' >> src/biasatlas/scorers/fake.py" \
  "$BIN/lint-imports" --no-cache

exit "$failed"
