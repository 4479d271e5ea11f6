#!/usr/bin/env bash
# Installs what building and testing Marmot needs, idempotently and quietly:
#   - Debian's libsecp256k1-dev (BIP-340 / ECDH for Nostr) and pkg-config;
#   - with --interop (what the tests need), tmux for the terminal UI test, openssl for the test CA of
#     the TLS tests (Tests/TestSupport/TLSFixture.swift), and the Python venv of
#     ../shared/interop (MDK peer, rust-nostr relay);
#   - with --interop, also Debian's chromium and chromium-driver and a venv `.venv-web` with selenium,
#     for the browser test of `marmot web` (scripts/web-test.sh);
#   - with --interop, also Debian's kotlin, libjna-java, libgoogle-gson-java and junit4, for the JVM
#     tests of the Kotlin side of Android (scripts/android-test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
dpkg -s libsecp256k1-dev >/dev/null 2>&1 || need+=(libsecp256k1-dev)
if [ "${1:-}" = "--interop" ]; then
    command -v tmux >/dev/null 2>&1 || need+=(tmux)
    command -v openssl >/dev/null 2>&1 || need+=(openssl)
    command -v chromium >/dev/null 2>&1 || need+=(chromium)
    command -v chromedriver >/dev/null 2>&1 || need+=(chromium-driver)
    command -v kotlinc >/dev/null 2>&1 || need+=(kotlin)
    dpkg -s libjna-java >/dev/null 2>&1 || need+=(libjna-java)
    dpkg -s libgoogle-gson-java >/dev/null 2>&1 || need+=(libgoogle-gson-java)
    dpkg -s junit4 >/dev/null 2>&1 || need+=(junit4)
fi
if [ ${#need[@]} -gt 0 ]; then
    echo "setup: installing ${need[*]}" >&2
    as_root apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
    echo "setup: swift is not on PATH (Swift 6.2 or later is required)" >&2
    exit 1
fi

if [ "${1:-}" = "--interop" ]; then
    shared="${MARMOT_SHARED:-../shared}"
    if [ -f "$shared/interop/setup.sh" ]; then
        export MDK_VENV="${MDK_VENV:-$PWD/.venv-interop}"
        bash "$shared/interop/setup.sh"
        # mls-rs beside us in `marmot-bench groups` (scripts/mlsrs_group_bench.py).
        if ! "$MDK_VENV/bin/python" -c 'import mls_rs_uniffi' >/dev/null 2>&1; then
            "$MDK_VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q 'agentvault-mls-rs-uniffi==0.1.1'
        fi
    elif [ "${CI:-}" = "true" ]; then
        echo "setup: $shared/interop/setup.sh not found (set MARMOT_SHARED)" >&2
        exit 1
    else
        echo "setup: $shared/interop not found; interop tests will skip" >&2
    fi
fi

if [ "${1:-}" = "--interop" ]; then
    if ! .venv-web/bin/python -c 'import selenium' >/dev/null 2>&1; then
        python3 -m venv .venv-web
        .venv-web/bin/python -m pip install --disable-pip-version-check --no-input -q 'selenium==4.*'
    fi
fi
