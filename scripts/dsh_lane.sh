#!/usr/bin/env bash
# Install the real DeepSeek Harness lane the way DSH users install it: `deepseek-harness-sdk` from
# PyPI (the official Python SDK and the one `dsh` 0.2.1-rc.2 executable) into the project's venv,
# pnpm (which `dsh plugin` needs) from npm into .cache/dsh/pnpm, and bubblewrap (the sandbox backend
# DSH's bash tool needs) from Debian. Idempotent: a second run checks and does nothing.
#
#   bash scripts/dsh_lane.sh            # install (or check) the lane
#   bash scripts/dsh_lane.sh --print    # print the lane folder and the dsh runtime, install nothing
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LANE="${COMPAT_ADAPTER_DSH_DIR:-$ROOT/.cache/dsh}"
PY="${COMPAT_ADAPTER_PYTHON:-$ROOT/.venv/bin/python}"
SDK="deepseek-harness-sdk==0.2.1rc2"
PNPM="pnpm@12.4.2"   # newer pnpm releases may refuse the lock (their other-platform builds are not served)

if [[ "${1:-}" == "--print" ]]; then
  echo "lane=$LANE"
  echo "python=$PY"
  echo "pnpm=$LANE/pnpm/node_modules/.bin/pnpm"
  exit 0
fi

started=$(date +%s)
[[ -x "$PY" ]] || { echo "dsh lane: no python at $PY (make the venv first)" >&2; exit 1; }
if ! "$PY" -c 'import importlib.metadata as m, sys; sys.exit(m.version("deepseek-harness-sdk") != "0.2.1rc2")' 2>/dev/null; then
  "$PY" -m pip install -q --pre "$SDK"
fi
if ! command -v bwrap >/dev/null; then
  if command -v apt-get >/dev/null; then
    apt-get install -y --no-install-recommends bubblewrap >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null && apt-get install -y --no-install-recommends bubblewrap >/dev/null; }
  else
    echo "dsh lane: DSH's bash tool needs bubblewrap (bwrap); install it" >&2; exit 1
  fi
fi
if [[ ! -x "$LANE/pnpm/node_modules/.bin/pnpm" ]]; then
  command -v npm >/dev/null || { echo "dsh lane: npm is needed for pnpm (apt-get install npm)" >&2; exit 1; }
  mkdir -p "$LANE/pnpm"
  printf '{"name":"compat-adapter-dsh-pnpm","private":true}\n' > "$LANE/pnpm/package.json"
  (cd "$LANE/pnpm" && npm install -E --no-audit --no-fund --loglevel=error --no-update-notifier "$PNPM")
fi
DSH_VERSION=$(DSH_HOME="$LANE/home" "$PY" -c 'import subprocess, sys
from deepseek_harness_runtime import resolve_bundled_launch_args
print(subprocess.run([*resolve_bundled_launch_args(), "--version"], capture_output=True, text=True, check=True).stdout.strip())')
echo "dsh lane: dsh $DSH_VERSION, pnpm $("$LANE/pnpm/node_modules/.bin/pnpm" --version), bwrap ready in $LANE ($(( $(date +%s) - started )) s)"
