#!/usr/bin/env bash
# Tests the core's C ABI (Sources/MarmotFFI/include/marmot.h) from outside Swift, as `make test` does:
# builds libMarmotFFI and `marmot`, starts `marmot relay` (in memory, free port), then compiles and
# runs Tests/FFI/ffi_test.c and runs Tests/FFI/ffi_test.py (ctypes) against two app cores each.
set -euo pipefail
cd "$(dirname "$0")/.."
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
[ -n "$relay" ] || { echo "ffi-test: the relay did not start" >&2; cat "$scratch/relay.err" >&2; exit 1; }

cc -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -I Sources/MarmotFFI/include Tests/FFI/ffi_test.c \
    -L "$(dirname "$lib")" -lMarmotFFI -Wl,-rpath,"$(dirname "$lib")" -lpthread -o "$scratch/ffi_test"
echo "ffi-test: C program (Tests/FFI/ffi_test.c) over $lib, relay $relay"
"$scratch/ffi_test" "$relay" "$scratch/c"
echo "ffi-test: Python ctypes (Tests/FFI/ffi_test.py)"
python3 Tests/FFI/ffi_test.py "$lib" "$relay" "$scratch/py"
