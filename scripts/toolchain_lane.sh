#!/usr/bin/env bash
# Install the programs real teams' hooks start (the corpus of tests/fixtures/real-configs) that the
# registries have, so that "starts with the team's toolchain present" is measured, not assumed
# (scripts/corpus_figure.py, column `with_toolchain`). Idempotent: each piece is a no-op when present.
#
#   bash scripts/toolchain_lane.sh            # install (or check) the toolchain
#   bash scripts/toolchain_lane.sh --print    # print the folder whose bin/ goes first on PATH
#
# What goes where:
# * uv from PyPI (pinned) into .cache/toolchain/uv (claude-code-hooks-mastery, agent-sdk-python and
#   the uv repository start their hooks with `uv run`);
# * pnpm (vercel/ai's `pnpm fix`) and bun (co-safety's `bun scripts/hooks/….ts`): the DSH lane's
#   pnpm and the plugin lane's Bun, linked, never a second download (run those lanes first);
# * go (88labs/go-utils' `go run …/main.go`) and notify-send (a Copilot notification) from Debian,
#   system-wide, as .ci/run installs every Debian package;
# * musl-gcc (Debian's musl-tools), which port builds its compiled shim client with where a machine
#   has it (compat_adapter/port/fastclient.py: a static musl program starts ten times faster than a
#   static glibc one on a VM); tests/test_fastclient.py checks the choice and its fallback.
# The links live in .cache/toolchain/bin/, which only the corpus figure puts first on PATH.
# Not here because no registry this project reaches has them (so the figure keeps them as assumed):
# `sumo` (3rd-Eden/sumo's own CLI: not published under that name on npm, and PyPI's `sumo` is an
# unrelated plotting package) and `pwsh` (PowerShell: Microsoft's own apt repository or a NuGet
# tool; Debian does not package it, and npm's `pwsh` downloads it from elsewhere at install).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LANE="${COMPAT_ADAPTER_TOOLCHAIN_DIR:-$ROOT/.cache/toolchain}"
UV="uv==0.13.8"

if [[ "${1:-}" == "--print" ]]; then
  echo "lane=$LANE"
  echo "bin=$LANE/bin"
  exit 0
fi

started=$(date +%s)
mkdir -p "$LANE/bin"
if ! "$LANE/uv/bin/uv" --version 2>/dev/null | grep -q "^uv ${UV#uv==}"; then
  rm -rf "$LANE/uv"
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$LANE/uv" "$UV"
fi
ln -sf "$LANE/uv/bin/uv" "$LANE/bin/uv"

link_from() {  # name, lane script, the key its --print names the binary by
  local name=$1 script=$2 key=$3 found
  found=$(bash "$ROOT/scripts/$script" --print | sed -n "s/^$key=//p")
  [[ -x "$found" ]] || { echo "toolchain lane: $name is missing at $found (run scripts/$script first)" >&2; exit 1; }
  ln -sf "$found" "$LANE/bin/$name"
}
link_from pnpm dsh_lane.sh pnpm
link_from bun plugin_lane.sh bun

missing=()
command -v go >/dev/null || missing+=(golang-go)
command -v notify-send >/dev/null || missing+=(libnotify-bin)
# The real-config lane observes hook processes from outside (both sides run under strace).
command -v strace >/dev/null || missing+=(strace)
command -v musl-gcc >/dev/null || missing+=(musl-tools)
if [[ ${#missing[@]} -gt 0 ]]; then
  command -v apt-get >/dev/null || { echo "toolchain lane: install ${missing[*]} (Debian packages)" >&2; exit 1; }
  apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null && apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
fi

for name in uv pnpm bun; do "$LANE/bin/$name" --version >/dev/null; done
echo "toolchain lane: uv $("$LANE/bin/uv" --version | cut -d' ' -f2), pnpm $("$LANE/bin/pnpm" --version)," \
  "bun $("$LANE/bin/bun" --version), $(go version | cut -d' ' -f3), notify-send, musl-gcc ready in $LANE" \
  "($(( $(date +%s) - started )) s)"
