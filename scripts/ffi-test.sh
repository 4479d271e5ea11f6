#!/usr/bin/env bash
# Tests the core's C ABI (Sources/MarmotFFI/include/marmot.h) from outside Swift, as `make test` does:
# builds libMarmotFFI and `marmot`, starts `marmot relay` (in memory, free port), then compiles and
# runs Tests/FFI/ffi_test.c and runs Tests/FFI/ffi_test.py (ctypes) against two app cores each.
set -euo pipefail
cd "$(dirname "$0")/.."
label=ffi-test
source scripts/lib/ffi-relay.sh

cc -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -I Sources/MarmotFFI/include Tests/FFI/ffi_test.c \
    -L "$(dirname "$lib")" -lMarmotFFI -Wl,-rpath,"$(dirname "$lib")" -lpthread -o "$scratch/ffi_test"
echo "ffi-test: C program (Tests/FFI/ffi_test.c) over $lib, relay $relay"
"$scratch/ffi_test" "$relay" "$scratch/c"
echo "ffi-test: Python ctypes (Tests/FFI/ffi_test.py)"
python3 Tests/FFI/ffi_test.py "$lib" "$relay" "$scratch/py"
