#!/usr/bin/env bash
# Tests scripts/check-manifests.sh on made-up package roots: it must refuse a dependency whose manifest
# needs newer tools than ours (the issue 20 failure: Package.swift at 6.1 over hummingbird at 6.2), pick
# the `Package@swift-X.swift` variant SwiftPM would, skip checkouts the graph no longer pins, and
# refuse to pass when there is nothing to check. Run by `make test`; prints "N passed, N failed"
# (`-v`: each case too).
set -uo pipefail
script="$(cd "$(dirname "$0")" && pwd)/check-manifests.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
verbose=0
if [ "${1:-}" = "-v" ]; then verbose=1; fi

# make_root NAME OURS: a package root whose Package.swift declares OURS.
make_root() {
    mkdir -p "$work/$1/.build/checkouts"
    printf '// swift-tools-version: %s\nimport PackageDescription\n' "$2" >"$work/$1/Package.swift"
}

# add_manifest ROOT DEP FILE VERSION: a checkout DEP with manifest FILE declaring VERSION (as
# packages write it, without a space after the colon).
add_manifest() {
    mkdir -p "$work/$1/.build/checkouts/$2"
    printf '// swift-tools-version:%s\nimport PackageDescription\n' "$4" >"$work/$1/.build/checkouts/$2/$3"
}

# expect NAME ROOT STATUS [PATTERN...]: the script on ROOT exits STATUS and prints every PATTERN
# (grep -E); a pattern starting with ! must not appear.
expect() {
    local name="$1" root="$2" status="$3"
    shift 3
    local output code ok=1
    output="$(bash "$script" "$work/$root" 2>&1)"
    code=$?
    if [ "$code" -ne "$status" ]; then ok=0; fi
    for pattern in "$@"; do
        if [ "${pattern:0:1}" = "!" ]; then
            if grep -qE -- "${pattern:1}" <<<"$output"; then ok=0; fi
        elif ! grep -qE -- "$pattern" <<<"$output"; then
            ok=0
        fi
    done
    if [ "$ok" -eq 1 ]; then
        passed=$((passed + 1))
        if [ "$verbose" -eq 1 ]; then echo "ok: $name"; fi
    else
        failed=$((failed + 1))
        echo "FAILED: $name (exit $code, expected $status)"
        sed 's/^/    /' <<<"$output"
    fi
}

# Ours at 6.1 over a 6.2-only dependency: what Xcode 16.3 met (hummingbird 2.28.1).
make_root old 6.1
add_manifest old hummingbird Package.swift 6.2
add_manifest old swift-nio Package.swift 6.1
expect "a dependency needing newer tools fails, one line naming it" old 1 \
    "FAIL hummingbird .*needs swift-tools-version 6.2, ours is 6.1" \
    "!FAIL swift-nio" \
    "1 of 2 dependencies need a newer toolchain"

# The same graph with ours raised to 6.2 passes, with a summary.
make_root raised 6.2
add_manifest raised hummingbird Package.swift 6.2
add_manifest raised swift-nio Package.swift 6.1
expect "every dependency at or below ours passes with a summary" raised 0 \
    "all 2 dependencies load with swift-tools-version 6.2"

# Variants: SwiftPM picks the highest Package@swift-X.swift with X <= ours, and that file's own
# declared version is what must load.
make_root variants 6.1
add_manifest variants collections Package.swift 6.2
add_manifest variants collections Package@swift-6.0.swift 6.0
add_manifest variants picky Package.swift 6.3
add_manifest variants picky Package@swift-5.9.swift 5.9
add_manifest variants picky Package@swift-6.1.swift 6.2
add_manifest variants future Package.swift 6.3
add_manifest variants future Package@swift-6.3.swift 6.3
expect "a variant for an older toolchain makes a newer Package.swift loadable; the picked variant is checked" variants 1 \
    "!FAIL collections" \
    "FAIL picky .*Package@swift-6.1.swift needs swift-tools-version 6.2" \
    "FAIL future .*Package.swift needs swift-tools-version 6.3" \
    "2 of 3 dependencies"

# Patch versions compare numerically: 5.10 is newer than 5.9.
make_root patch 5.9
add_manifest patch atomics Package.swift 5.10
add_manifest patch algorithms Package.swift 5.7.1
expect "versions compare field by field (5.10 > 5.9, 5.7.1 <= 5.9)" patch 1 \
    "FAIL atomics .*5.10" "!FAIL algorithms"

# A checkout the resolved graph no longer pins is not loaded by SwiftPM, so it is not checked.
make_root stale 6.2
add_manifest stale hummingbird Package.swift 6.2
add_manifest stale leftover Package.swift 9.9
printf '{ "pins" : [ { "identity" : "hummingbird", "kind" : "remoteSourceControl" } ], "version" : 3 }\n' \
    >"$work/stale/Package.resolved"
expect "checkouts Package.resolved does not pin are skipped" stale 0 \
    "all 1 dependencies load" "!leftover"

# Nothing to check is an error, never a pass.
mkdir -p "$work/unresolved"
printf '// swift-tools-version: 6.2\n' >"$work/unresolved/Package.swift"
expect "no checkouts is an error, not a pass" unresolved 2 "not found"
make_root unversioned 6.2
printf 'import PackageDescription\n' >"$work/unversioned/Package.swift"
expect "our Package.swift without a tools version is an error" unversioned 2 "no swift-tools-version"

echo "check-manifests-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
