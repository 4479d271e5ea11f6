# Sourced by scripts/ffi-test.sh and scripts/android-test.sh: builds libMarmotFFI and `marmot`, makes
# a scratch folder removed on exit, and starts `marmot relay` (in memory, free port) in it.
# Expects $label (the caller's name for messages); sets $bin, $lib, $scratch and $relay.
SWIFT="${SWIFT:-swift}"
"$SWIFT" build ${SWIFT_FLAGS:-} --product MarmotFFI -q
"$SWIFT" build ${SWIFT_FLAGS:-} --product marmot -q
bin="$("$SWIFT" build ${SWIFT_FLAGS:-} --show-bin-path)"
lib="$bin/libMarmotFFI.so"
[ -f "$lib" ] || lib="$bin/libMarmotFFI.dylib"
scratch="$(mktemp -d)"
relay_pid=""
cleanup() { [ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null; rm -rf "$scratch"; }
trap cleanup EXIT

MARMOT_HOME="$scratch/relay-home" "$bin/marmot" relay --port 0 --memory >"$scratch/relay.out" 2>"$scratch/relay.err" &
relay_pid=$!
for _ in $(seq 100); do [ -s "$scratch/relay.out" ] && break; sleep 0.1; done
relay="$(head -1 "$scratch/relay.out")"
[ -n "$relay" ] || { echo "$label: the relay did not start" >&2; cat "$scratch/relay.err" >&2; exit 1; }
