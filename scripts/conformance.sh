#!/usr/bin/env bash
# Runs MDK 0.9.14's portable conformance vectors (../shared/vectors/mdk-conformance: every scenario
# and the branch-selector cases) with `marmot-conformance` against our v2 group engine.
# Outside CI a missing shared folder skips with a message; under CI=true it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED="${MARMOT_SHARED:-../shared}"
DIR="$SHARED/vectors/mdk-conformance"
if [ ! -d "$DIR/scenarios" ]; then
  if [ "${CI:-}" = "true" ]; then echo "conformance: $DIR missing (set MARMOT_SHARED)" >&2; exit 1; fi
  echo "SKIP: conformance vectors not found at $DIR (set MARMOT_SHARED)"
  exit 0
fi
BIN="${CONFORMANCE_BIN:-.build/debug/marmot-conformance}"
[ -x "$BIN" ] || swift build --product marmot-conformance -q
echo "conformance: MDK 0.9.14 vectors from $DIR"
"$BIN" "$DIR"/scenarios/*.json "$DIR/policy/policy_cases.json"
