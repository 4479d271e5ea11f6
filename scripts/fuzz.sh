#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ into .build-fuzz and runs each for SECONDS (default 10)
# from a seed corpus of our own valid encodings, printing executions, exec/s and crashes per target.
# Exits non-zero on any crash; the crashing input is kept under .build-fuzz/crashes/<target>/.
#
#   scripts/fuzz.sh            # the short budget `make test` runs
#   scripts/fuzz.sh 600        # the long run: 10 minutes per target
#   scripts/fuzz.sh 60 json    # some targets only
#
# Corpora grow in .build-fuzz/corpus/<target>/ across runs (git-ignored); delete it to start over.
# Reproduce a crash: MARMOT_FUZZ_TARGET=<target> .build-fuzz/debug/MarmotFuzz <crash file>
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-10}"
shift || true
ROOT="$PWD"
SCRATCH="$ROOT/.build-fuzz"
SWIFT="${SWIFT:-swift}"
# Swift runtime caches look like leaks to LeakSanitizer; crashes and memory errors still fail.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
# The Swift backtracer and ASan fight over a crashing process; libFuzzer prints the stack itself.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

start=$(date +%s)
echo "fuzz: building (scratch $SCRATCH)"
"$SWIFT" build --package-path Fuzz --scratch-path "$SCRATCH" -c debug \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\]|Cannot export local symbol' | tail -20
BIN="$SCRATCH/debug/MarmotFuzz"
[ -x "$BIN" ] || { echo "fuzz: build failed" >&2; exit 1; }
built=$(date +%s)
echo "fuzz: build took $((built - start)) s"

if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(MARMOT_FUZZ_LIST=1 "$BIN" 2>/dev/null | cut -f1)
fi

# Extra seeds from the official MLS vectors in ../shared (MARMOT_SHARED), never copied into the repo.
SHARED="${MARMOT_SHARED:-$ROOT/../shared}"
if [ -f "$SHARED/vectors/mls/messages.json" ] && [ ! -d "$SCRATCH/corpus/.vectors-done" ]; then
    python3 - "$SHARED/vectors/mls/messages.json" "$SCRATCH/corpus" <<'PY'
import json, os, sys
entries = json.load(open(sys.argv[1]))[:12]
plan = {"mls-message": ["mls_welcome", "mls_group_info", "mls_key_package", "public_message_application",
                        "public_message_proposal", "public_message_commit", "private_message"],
        "ratchet-tree": ["ratchet_tree"]}
for target, fields in plan.items():
    os.makedirs(os.path.join(sys.argv[2], target), exist_ok=True)
    for i, entry in enumerate(entries):
        for field in fields:
            with open(os.path.join(sys.argv[2], target, f"vector-{i}-{field}"), "wb") as out:
                out.write(bytes.fromhex(entry[field]))
PY
    mkdir -p "$SCRATCH/corpus/.vectors-done"
fi

failed=()
total_runs=0
printf '%-18s %12s %10s %8s\n' target executions exec/s crashes
for target in "${targets[@]}"; do
    corpus="$SCRATCH/corpus/$target"
    crashes="$SCRATCH/crashes/$target"
    mkdir -p "$corpus" "$crashes"
    if ! ls "$corpus" | grep -q '^seed-'; then
        MARMOT_FUZZ_TARGET="$target" MARMOT_FUZZ_SEEDS="$corpus" "$BIN" >/dev/null 2>&1 \
            || { echo "fuzz: $target: seed generation failed" >&2; failed+=("$target"); continue; }
    fi
    before=$(find "$crashes" -type f | wc -l)
    log="$SCRATCH/logs/$target.log"
    mkdir -p "$(dirname "$log")"
    status=0
    MARMOT_FUZZ_TARGET="$target" "$BIN" "$corpus" \
        -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 -max_len=65536 -timeout=20 -rss_limit_mb=3072 \
        -artifact_prefix="$crashes/" >"$log" 2>&1 || status=$?
    runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || true)
    rate=$(grep -Eo 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || true)
    found=$(( $(find "$crashes" -type f | wc -l) - before ))
    printf '%-18s %12s %10s %8s\n' "$target" "${runs:-?}" "${rate:-?}" "$found"
    total_runs=$((total_runs + ${runs:-0}))
    if [ "$status" -ne 0 ] || [ "$found" -gt 0 ]; then
        failed+=("$target")
        grep -E 'WRONG ANSWER|Fatal error|ERROR: |SUMMARY|Test unit written' "$log" | head -8 | sed 's/^/    /'
    fi
done
end=$(date +%s)
echo "fuzz: ${#targets[@]} targets, $total_runs executions, $((end - built)) s fuzzing, $((end - start)) s in all"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz: FAILED: ${failed[*]} (inputs under $SCRATCH/crashes/, logs under $SCRATCH/logs/)" >&2
    exit 1
fi
