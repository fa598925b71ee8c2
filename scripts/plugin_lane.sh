#!/usr/bin/env bash
# Install the OpenCode plugin host's runtime into .cache/plugins/ (gitignored): Bun from the npm
# registry (the runtime OpenCode itself runs plugins on: TypeScript as written, Bun's `$` shell) and
# the real `@opencode-ai/plugin` package at the version the vendor lane measured. Idempotent: a
# second run checks a stamp and does nothing. Nothing is installed at run time.
#
#   bash scripts/plugin_lane.sh                 # install (or check) the runtime
#   bash scripts/plugin_lane.sh --project DIR   # also install the npm plugins DIR/opencode.json lists
#   bash scripts/plugin_lane.sh --print         # print the lane folder and the bun binary
#
# Why Bun rather than the DSH lane's Node 22 (figures in the closing note of issue 15 and in
# `scripts/bench.py --json`): a sidecar starts in ~30 ms under Bun against ~280 ms under Node 22,
# Bun runs every TypeScript construct where Node's type stripping refuses enums and parameter
# properties, and plugins call Bun's `$`, which Node does not have.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LANE="${COMPAT_ADAPTER_PLUGIN_DIR:-$ROOT/.cache/plugins}"
BUN_VERSION="1.4.5"
PLUGIN_VERSION="1.18.33"
PACKAGES=("@oven/bun-linux-x64@$BUN_VERSION" "@opencode-ai/plugin@$PLUGIN_VERSION")

BUN_BIN="$LANE/runtime/node_modules/@oven/bun-linux-x64/bin/bun"
MODULES="$LANE/runtime/node_modules"
NPM_PLUGINS="$LANE/npm"

if [[ "${1:-}" == "--print" ]]; then
  echo "lane=$LANE"
  echo "bun=$BUN_BIN"
  echo "modules=$MODULES"
  echo "npm_plugins=$NPM_PLUGINS/node_modules"
  exit 0
fi

NPM_FLAGS=(--no-audit --no-fund --loglevel=error --no-update-notifier)
command -v npm >/dev/null || { echo "plugin lane: npm is needed (apt-get install npm)" >&2; exit 1; }

WANT="${PACKAGES[*]}"
STAMP="$LANE/.stamp"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" && -x "$BUN_BIN" \
      && -f "$MODULES/@opencode-ai/plugin/package.json" ]]; then
  echo "plugin lane: up to date in $LANE (bun $("$BUN_BIN" --version))"
else
  started=$(date +%s)
  mkdir -p "$LANE/runtime"
  # Exact versions in a generated package.json, so nothing floats between runs.
  printf '{"name":"compat-adapter-plugin-lane","private":true,"type":"module","dependencies":{"%s":"%s","%s":"%s"}}\n' \
    "@oven/bun-linux-x64" "$BUN_VERSION" "@opencode-ai/plugin" "$PLUGIN_VERSION" > "$LANE/runtime/package.json"
  (cd "$LANE/runtime" && npm install "${NPM_FLAGS[@]}")
  "$BUN_BIN" --version >/dev/null
  printf '%s' "$WANT" > "$STAMP"
  echo "plugin lane: installed in $LANE in $(( $(date +%s) - started )) s (bun $("$BUN_BIN" --version))"
fi

if [[ "${1:-}" == "--project" ]]; then
  DIR="${2:?--project needs a directory}"
  # The npm plugins the project's opencode.json (or .jsonc) lists, read by Bun (JSONC-tolerant
  # enough for the `plugin` array: comments are stripped first). File and URL entries are skipped.
  mapfile -t names < <("$BUN_BIN" -e '
    const fs = require("fs"); const path = require("path");
    for (const name of ["opencode.json", "opencode.jsonc"]) {
      const file = path.join(process.argv[1], name);
      if (!fs.existsSync(file)) continue;
      const text = fs.readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
      const data = JSON.parse(text.replace(/,(\s*[}\]])/g, "$1"));
      for (const entry of data.plugin ?? []) {
        const spec = Array.isArray(entry) ? entry[0] : entry;
        if (typeof spec === "string" && !/^(file:|\.|\/|https?:)/.test(spec)) console.log(spec);
      }
    }' "$DIR")
  if [[ ${#names[@]} -gt 0 ]]; then
    mkdir -p "$NPM_PLUGINS"
    [[ -f "$NPM_PLUGINS/package.json" ]] || printf '{"name":"compat-adapter-npm-plugins","private":true}\n' > "$NPM_PLUGINS/package.json"
    (cd "$NPM_PLUGINS" && npm install "${NPM_FLAGS[@]}" "${names[@]}")
    echo "plugin lane: npm plugins ${names[*]} installed in $NPM_PLUGINS"
  else
    echo "plugin lane: $DIR lists no npm plugins"
  fi
fi
