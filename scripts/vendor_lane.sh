#!/usr/bin/env bash
# Install the vendor lane into .cache/vendors/ (gitignored): the real CLIs of the vendors, at
# pinned versions, from the public registries. The differential suite (pytest -m vendor) runs them
# offline against our scripted model servers. Idempotent: each vendor has a stamp naming exactly
# what was installed; a second run checks the stamps and the binaries and does nothing.
#
#   bash scripts/vendor_lane.sh                  # install (or check) the pinned lane
#   bash scripts/vendor_lane.sh --print          # print the lane folder, install nothing
#   bash scripts/vendor_lane.sh --want           # print what each vendor's stamp must say, install nothing
#   bash scripts/vendor_lane.sh --latest         # what the registries call latest, into .cache/vendors-latest/
#   bash scripts/vendor_lane.sh --pin claude=2.1.328 [--pin …]   # another release of a vendor
#
# The drift report (scripts/vendor_drift.py) installs --latest beside the pinned lane; the pinned
# folder is only ever written by a plain run. COMPAT_ADAPTER_VENDOR_DIR overrides the folder.
# A vendor that fails to install is a loud failure (exit non-zero), never a skip.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The pins: the newest release of each vendor on its registry when the lane was last bumped
# (checked with `npm view <package> dist-tags` and `pip index versions codebuddy-agent-sdk`;
# Gemini CLI 0.61.0: its only dist-tag, `latest`, on 2026-12-01).
declare -A VERSION=(
  [claude]="2.1.332"
  [codex]="0.171.0"
  [copilot]="1.0.102"
  [opencode]="1.18.33"
  [codebuddy]="0.3.274"
  [gemini]="0.61.0"
  [qwen]="0.24.4"
)
# Where each vendor's release is published (CodeBuddy: a PyPI wheel, the rest npm).
# A vendor unit may instead state its pin in its own folder, vendors/<id>/lane.pin (read below), so
# that adding a vendor touches no shared file.
declare -A PACKAGE=(
  [claude]="@anthropic-ai/claude-code"
  [codex]="@openai/codex"
  [copilot]="@github/copilot"
  [opencode]="opencode-ai"
  [codebuddy]="codebuddy-agent-sdk"
  [gemini]="@google/gemini-cli"
  [qwen]="@qwen-code/qwen-code"
)

# The vendors pinned here; each vendors/<id>/lane.pin adds one (an npm CLI): lines of "key value",
# keys package, version, binary (relative to its folder) and extra (another package@version its
# folder needs beside it, repeatable; pinned even with --latest).
VENDORS=(claude codex copilot opencode codebuddy gemini qwen)
declare -A EXTRA=()
declare -A BINARY=()
for pin in "$ROOT"/vendors/*/lane.pin; do
  [[ -f "$pin" ]] || continue
  v=$(basename "$(dirname "$pin")")
  while read -r key value; do
    case "$key" in
      ''|'#'*) ;;
      package) PACKAGE[$v]="$value" ;;
      version) VERSION[$v]="$value" ;;
      binary) BINARY[$v]="$value" ;;
      extra) EXTRA[$v]="${EXTRA[$v]:-} $value" ;;
      *) echo "vendor lane: $pin: unknown key $key" >&2; exit 2 ;;
    esac
  done < "$pin"
  [[ -n "${PACKAGE[$v]:-}" && -n "${VERSION[$v]:-}" && -n "${BINARY[$v]:-}" ]] \
    || { echo "vendor lane: $pin needs package, version and binary" >&2; exit 2; }
  VENDORS+=("$v")
done

mode=install
latest=0
declare -A PIN=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --print) mode=print ;;
    --want) mode=want ;;
    --latest) latest=1 ;;
    --pin)
      [[ $# -ge 2 && "$2" == *=* ]] || { echo "vendor lane: --pin needs VENDOR=VERSION" >&2; exit 2; }
      PIN[${2%%=*}]="${2#*=}"
      [[ -n "${VERSION[${2%%=*}]:-}" ]] || { echo "vendor lane: unknown vendor in --pin $2" >&2; exit 2; }
      shift ;;
    *) echo "vendor lane: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

if [[ $latest -eq 1 ]]; then
  LANE="${COMPAT_ADAPTER_VENDOR_DIR:-$ROOT/.cache/vendors-latest}"
else
  LANE="${COMPAT_ADAPTER_VENDOR_DIR:-$ROOT/.cache/vendors}"
fi
if [[ "$mode" == print ]]; then
  echo "lane=$LANE"
  exit 0
fi

registry_latest() {  # vendor -> the version its registry calls latest
  local v=$1 found
  if [[ "$v" == codebuddy ]]; then
    found=$(python3 -m pip index versions "${PACKAGE[$v]}" 2>/dev/null | sed -n 's/^[^(]*(\([^)]*\)).*/\1/p' | head -1)
  else
    found=$(npm view "${PACKAGE[$v]}" version 2>/dev/null)
  fi
  [[ -n "$found" ]] || { echo "vendor lane: the registry gave no latest version of ${PACKAGE[$v]}" >&2; return 1; }
  echo "$found"
}

for v in "${VENDORS[@]}"; do
  if [[ -n "${PIN[$v]:-}" ]]; then
    VERSION[$v]="${PIN[$v]}"
  elif [[ $latest -eq 1 ]]; then
    VERSION[$v]="$(registry_latest "$v")"
  fi
done

CLAUDE="${PACKAGE[claude]}@${VERSION[claude]}"
CODEX="${PACKAGE[codex]}@${VERSION[codex]}"
COPILOT="${PACKAGE[copilot]}@${VERSION[copilot]}"
OPENCODE="${PACKAGE[opencode]}@${VERSION[opencode]}"
# The plugin package is released with the CLI under the same version.
OPENCODE_PLUGIN="@opencode-ai/plugin@${VERSION[opencode]}"
CODEBUDDY_WHEEL="${PACKAGE[codebuddy]}==${VERSION[codebuddy]}"
GEMINI="${PACKAGE[gemini]}@${VERSION[gemini]}"
QWEN="${PACKAGE[qwen]}@${VERSION[qwen]}"

NPM_FLAGS=(--no-audit --no-fund --loglevel=error --no-update-notifier)

# The binary each vendor is run from (relative to its folder): the install is "done" only when it
# exists and the stamp matches.
BINARY+=(
  [claude]="node_modules/@anthropic-ai/claude-code/bin/claude.exe"
  [codex]="node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
  [copilot]="node_modules/@github/copilot-linux-x64/copilot"
  [opencode]="node_modules/opencode-linux-x64/bin/opencode"
  [codebuddy]="wheel/codebuddy_agent_sdk/bin/codebuddy-headless"
  [gemini]="node_modules/@google/gemini-cli/bundle/gemini.js"
  [qwen]="node_modules/@qwen-code/qwen-code/cli-entry.js"
)
declare -A WANT=(
  [claude]="$CLAUDE"
  [codex]="$CODEX"
  [copilot]="$COPILOT"
  [opencode]="$OPENCODE $OPENCODE_PLUGIN"
  [codebuddy]="$CODEBUDDY_WHEEL"
  [gemini]="$GEMINI"
  [qwen]="$QWEN"
)
for v in "${VENDORS[@]}"; do
  [[ -n "${WANT[$v]:-}" ]] || WANT[$v]="${PACKAGE[$v]}@${VERSION[$v]}${EXTRA[$v]:-}"
done

if [[ "$mode" == want ]]; then
  for v in "${VENDORS[@]}"; do printf '%s\t%s\n' "$v" "${WANT[$v]}"; done
  exit 0
fi
mkdir -p "$LANE"

up_to_date() {
  local v=$1
  [[ -f "$LANE/$v/.stamp" && "$(cat "$LANE/$v/.stamp")" == "${WANT[$v]}" && -e "$LANE/$v/${BINARY[$v]}" ]]
}

npm_install() {  # vendor, packages...
  local v=$1; shift
  local dir="$LANE/$v"
  rm -rf "$dir"
  mkdir -p "$dir"
  printf '{"name":"compat-adapter-vendor-%s","private":true}\n' "$v" > "$dir/package.json"
  npm install --prefix "$dir" "${NPM_FLAGS[@]}" "$@"
}

install_one() {
  local v=$1
  case "$v" in
    claude) npm_install claude "$CLAUDE" ;;
    codex)
      # The Linux binary is an optional dependency published under an alias of the main package
      # (`@openai/codex-linux-x64` -> `@openai/codex@<version>-linux-x64`); npm installs it with
      # the wrapper on a matching platform. Checked below, so a missing binary is loud.
      npm_install codex "$CODEX" ;;
    copilot) npm_install copilot "$COPILOT" ;;
    gemini) npm_install gemini "$GEMINI" ;;
    qwen) npm_install qwen "$QWEN" ;;
    opencode)
      # The plugin package is installed next to the CLI so that runs can link it into every config
      # folder; otherwise OpenCode npm-installs it at every start (70 s stall offline).
      npm_install opencode "$OPENCODE" "$OPENCODE_PLUGIN" ;;
    codebuddy)
      # Not on npm: `codebuddy-headless` ships inside the PyPI wheel of the agent SDK.
      local dir="$LANE/codebuddy"
      rm -rf "$dir"
      mkdir -p "$dir/dl"
      python3 -m pip download -q --no-deps --only-binary=:all: --dest "$dir/dl" "$CODEBUDDY_WHEEL"
      python3 -m zipfile -e "$dir"/dl/codebuddy_agent_sdk-*.whl "$dir/wheel"
      chmod +x "$dir/wheel/codebuddy_agent_sdk/bin/"*
      rm -rf "$dir/dl" ;;
    *)  # a unit's own pin (vendors/<id>/lane.pin): its npm package and extras
      # shellcheck disable=SC2086  # the extras are words
      npm_install "$v" "${PACKAGE[$v]}@${VERSION[$v]}" ${EXTRA[$v]:-} ;;
  esac
  [[ -e "$LANE/$v/${BINARY[$v]}" ]] || { echo "vendor lane: $v installed but ${BINARY[$v]} is missing" >&2; return 1; }
  # It must also run. Copilot's first start unpacks its JS payload into the cache the runs share
  # (XDG_CACHE_HOME below), so that no scenario pays for it.
  XDG_CACHE_HOME="$LANE/copilot/xdg-cache" HOME="$LANE/$v" timeout 120 "$LANE/$v/${BINARY[$v]}" --version \
    || { echo "vendor lane: $v does not run (${BINARY[$v]} --version failed)" >&2; return 1; }
  printf '%s' "${WANT[$v]}" > "$LANE/$v/.stamp"
}

started=$(date +%s)
# The lane reads what a hook tells the person off Claude Code's and Codex's terminal UIs, run in tmux.
if ! command -v tmux >/dev/null; then
  if command -v apt-get >/dev/null; then
    apt-get install -y --no-install-recommends tmux >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null && apt-get install -y --no-install-recommends tmux >/dev/null; }
  else
    echo "vendor lane: tmux is needed to read the CLIs' terminal UIs (apt-get install tmux)" >&2; exit 1
  fi
fi

todo=()
for v in "${VENDORS[@]}"; do
  up_to_date "$v" || todo+=("$v")
done
if [[ ${#todo[@]} -eq 0 ]]; then
  echo "vendor lane: up to date in $LANE"
  exit 0
fi
command -v npm >/dev/null || { echo "vendor lane: npm is needed (apt-get install npm)" >&2; exit 1; }

# The installs are independent and mostly wait on the network: run them side by side.
declare -A PIDS=()
for v in "${todo[@]}"; do
  install_one "$v" > "$LANE/$v.install.log" 2>&1 &
  PIDS[$v]=$!
done
failed=()
for v in "${todo[@]}"; do
  if ! wait "${PIDS[$v]}"; then
    failed+=("$v")
    echo "vendor lane: installing $v FAILED; its log:" >&2
    cat "$LANE/$v.install.log" >&2
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "vendor lane: ${failed[*]} did not install" >&2
  exit 1
fi
echo "vendor lane: installed ${todo[*]} into $LANE in $(( $(date +%s) - started )) s"
