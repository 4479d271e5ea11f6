#!/usr/bin/env bash
# `make run`: builds the `marmot` command, saying what it does (the first build compiles every
# dependency and takes minutes), then runs the demo. SWIFT and SWIFT_FLAGS as in the Makefile.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
SWIFT_FLAGS=${SWIFT_FLAGS:-}

if [ -x .build/debug/marmot ]; then
    echo "==> Building the marmot command (debug; only what changed since the last build)…"
else
    echo "==> Building the marmot command for the first time: every dependency is compiled, which takes"
    echo "    several minutes (about 6 on 2 cores). Progress is shown below; later runs take seconds."
fi
start=$(date +%s)
# swift build prints one "[step/total] …" line per step: show them as a percentage every 10 %, and
# everything else (fetching, errors, "Build complete!") as it is, except a dependency's note about
# its own CMake files, which is no concern of ours.
# shellcheck disable=SC2086
$SWIFT build $SWIFT_FLAGS --product marmot 2>&1 | awk '
    /^\[[0-9]+\/[0-9]+\]/ {
        split(substr($1, 2, length($1) - 2), step, "/")
        percent = int(100 * step[1] / step[2])
        if (percent >= shown + 10 || step[1] == step[2]) {
            shown = percent - percent % 10
            printf "    %3d %% built (%d of %d steps)\n", percent, step[1], step[2]
            fflush()
        }
        next
    }
    /which are unhandled; explicitly declare them/ { skipping = 1; next }
    skipping && /^    \// { next }
    { skipping = 0; print; fflush() }
'
echo "==> Built in $(( $(date +%s) - start )) s. Running the demo: two accounts, an encrypted chat over a local relay."
# shellcheck disable=SC2086
exec $SWIFT run $SWIFT_FLAGS --skip-build marmot demo
