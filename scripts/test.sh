#!/usr/bin/env bash
# `make test`: every test of the README, with all temporary files of the run (test stores, the MDK
# peers' data, the relays' blobs, build scratch) in one folder (TMPDIR) that is removed when the run
# ends, pass or fail. Test stores are left in place while a run lasts so a failure can be inspected;
# without this folder every run left about a gigabyte of them in /tmp and repeated runs filled the disk.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
SWIFT_FLAGS="${SWIFT_FLAGS:-}"
FUZZ_SECONDS="${FUZZ_SECONDS:-5}"
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/marmot-test.XXXXXX")"
# At the end: the scratch folder, and any test relay left running from this checkout's build (one
# whose test process died before stopping it); nothing else of the checkout's is touched.
trap 'rm -rf "$SCRATCH"; pkill -f -- "$PWD/.build/.*/marmot relay --port 0 --memory" 2>/dev/null || true' EXIT
export TMPDIR="$SCRATCH"
echo "test: temporary files of this run in $SCRATCH (removed at the end)"

bash scripts/setup.sh --interop
# shellcheck disable=SC2086
"$SWIFT" build $SWIFT_FLAGS --build-tests
bash scripts/check-manifests-test.sh
bash scripts/check-manifests.sh
bash scripts/check-renderers.sh
# Two passes. Tests that only compute (MLS, Nostr and wire vectors, the group engine, the random
# race histories) run first; the tests over sockets, relays and child processes run after them.
# Together they starved Swift's cooperative pool (one thread per core) for tens of seconds, and
# tests waiting on a relay timed out on a loaded 2-core machine although nothing was wrong.
# Bounded: a test process that hangs fails the run instead.
COMPUTE='^(MLSTests|NostrTests|MarmotWireTests)\.|\.(RandomRaceAgreementTests|GroupEngineTests|EngineChangesTests|EngineLimitsTests|EngineRecordTests)/'
# shellcheck disable=SC2086
timeout 1500 "$SWIFT" test $SWIFT_FLAGS --skip-build --filter "$COMPUTE"
# shellcheck disable=SC2086
timeout 1500 "$SWIFT" test $SWIFT_FLAGS --skip-build --skip "$COMPUTE"
bash scripts/conformance.sh
TUI_CHAT=1 TUI_GROUP=1 bash scripts/tui-test.sh
SWIFT="$SWIFT" SWIFT_FLAGS="$SWIFT_FLAGS" bash scripts/ffi-test.sh
bash scripts/android-test.sh
SWIFT="$SWIFT" SWIFT_FLAGS="$SWIFT_FLAGS" bash scripts/web-test.sh
SWIFT="$SWIFT" bash scripts/fuzz.sh "$FUZZ_SECONDS"
