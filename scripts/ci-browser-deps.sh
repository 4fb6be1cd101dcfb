#!/usr/bin/env bash
# Install what the report's browser test (tests/report/test_report_browser.py) needs on a fresh
# Debian machine: Debian's own chromium (Playwright's browser download is not used), a
# CJK font so matplotlib can draw Chinese labels, and the Python Playwright client that
# drives /usr/bin/chromium through executable_path.
#
# Usage: scripts/ci-browser-deps.sh [PYTHON]   (PYTHON defaults to .venv/bin/python)
set -euo pipefail

PYTHON="${1:-.venv/bin/python}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# chromium: the browser; fonts-wqy-microhei: a small CJK font (one .ttc) for matplotlib
# and for the page's own text; fonts-dejavu-core: Latin fallback with accents and æøå.
$SUDO apt-get install -y -q --no-install-recommends chromium fonts-wqy-microhei fonts-dejavu-core

"$PYTHON" -m pip install -q "playwright>=1.40"

# matplotlib caches the font list; a cache built before the CJK font was installed would
# hide it, so drop the cache and let the next import rebuild it.
"$PYTHON" - <<'PY'
from pathlib import Path
import matplotlib
for cache in Path(matplotlib.get_cachedir()).glob("fontlist-*.json"):
    cache.unlink()
from matplotlib import font_manager  # rebuilds and saves the font list
names = {f.name for f in font_manager.fontManager.ttflist}
print("CJK font for matplotlib:", "WenQuanYi Micro Hei" in names)
PY
/usr/bin/chromium --version
