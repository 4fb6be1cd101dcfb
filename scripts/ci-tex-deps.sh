#!/usr/bin/env bash
# Install what the LaTeX and BibTeX tests (tests/report/test_report_latex.py,
# tests/report/test_report_hostile_tex.py) run on a fresh Debian machine: pdflatex and bibtex
# (texlive-latex-base, which brings texlive-binaries) and booktabs, which the report's
# tables need (texlive-latex-recommended). About 150 MB installed; recommends are not
# pulled in (they would add the full font and documentation sets).
#
# Usage: scripts/ci-tex-deps.sh
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

export DEBIAN_FRONTEND=noninteractive
# setup.sh --test runs scripts/ci-browser-deps.sh first, which updates the package lists.
$SUDO apt-get install -y -q --no-install-recommends texlive-latex-base texlive-latex-recommended
pdflatex --version | head -n 1
bibtex --version | head -n 1
