#!/usr/bin/env bash
# Tests `marmot web` in a real browser, as `make test` does: one `marmot relay` (in memory), three
# `marmot web` servers (Alice, Bob, and Bob's second installation for Notes and Devices; separate
# MARMOT_HOMEs), a second relay for the Relays page, and Tests/Web/web_test.py driving
# headless Chromium through selenium (.venv-web, made by scripts/setup.sh --interop).
# Screenshots of every screen go to .build/web-screenshots/ (or $WEB_SCREENSHOTS).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT="${SWIFT:-swift}"
"$SWIFT" build ${SWIFT_FLAGS:-} --product marmot -q
bin="$("$SWIFT" build ${SWIFT_FLAGS:-} --show-bin-path)"
shots="${WEB_SCREENSHOTS:-$PWD/.build/web-screenshots}"
scratch="$(mktemp -d)"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$scratch"; }
trap cleanup EXIT

first_line() {  # waits for the first line of a file
    for _ in $(seq 300); do [ -s "$1" ] && { head -1 "$1"; return; }; sleep 0.1; done
    echo "web-test: no URL in $1" >&2; cat "${1%.out}.err" >&2 || true; exit 1
}

MARMOT_HOME="$scratch/relay" "$bin/marmot" relay --port 0 --memory >"$scratch/relay.out" 2>"$scratch/relay.err" &
pids+=($!)
relay="$(first_line "$scratch/relay.out")"
# A second relay for the Relays page: Bob adds it, sees it connected, and removes it.
MARMOT_HOME="$scratch/extra" "$bin/marmot" relay --port 0 --memory >"$scratch/extra.out" 2>"$scratch/extra.err" &
pids+=($!)
extra="$(first_line "$scratch/extra.out")"
for who in alice bob bobphone; do
    MARMOT_HOME="$scratch/$who" "$bin/marmot" web --port 0 --relay "$relay" >"$scratch/$who.out" 2>"$scratch/$who.err" &
    pids+=($!)
done
alice="$(first_line "$scratch/alice.out")"
bob="$(first_line "$scratch/bob.out")"
bobphone="$(first_line "$scratch/bobphone.out")"
rm -rf "$shots"
echo "web-test: two \`marmot web\` over $relay; headless Chromium via selenium"
# The test stops the relay (RELAY_PID) and starts it again on the same port for the retry check.
EXTRA_RELAY="$extra" BOB_PHONE="$bobphone" RELAY_PID="${pids[0]}" RELAY_PORT="${relay##*:}" RELAY_HOME="$scratch/relay" MARMOT_BIN="$bin/marmot" \
    .venv-web/bin/python Tests/Web/web_test.py "$alice" "$bob" "$shots"
