#!/usr/bin/env bash
# Fails when a resolved dependency cannot be loaded by the Swift tools version our Package.swift
# declares, i.e. by the oldest Xcode/toolchain the README promises (issue 20).
#
# Xcode and SwiftPM resolve the whole graph before building anything: one dependency whose manifest
# needs a newer tools version than ours means the package never loads for someone on the toolchain
# we claim to support. For each checkout under .build/checkouts (made by `swift package resolve` or
# a build), the manifest SwiftPM would pick with tools version T is the `Package@swift-X.swift` with
# the highest X <= T, else `Package.swift`; the dependency is loadable if that manifest's own
# `// swift-tools-version:` line is <= T.
#
# Usage: scripts/check-manifests.sh [package-dir]   (default: the repository root)
# Exit status: 0 all loadable, 1 some dependency needs newer tools, 2 cannot check.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
checkouts="$root/.build/checkouts"

# The version on a manifest's first line: `// swift-tools-version:6.2` or `// swift-tools-version: 5.7.1`,
# with an optional `;(settings)` suffix.
tools_version() {
    head -n 1 "$1" | sed -n -E 's#^//[[:space:]]*swift-tools-version:[[:space:]]*([0-9]+(\.[0-9]+)*).*#\1#p'
}

# version_le A B: A <= B, comparing dotted numbers field by field (missing fields are 0).
version_le() {
    local IFS=.
    local -a a=($1) b=($2)
    local i x y
    for i in 0 1 2; do
        x="${a[i]:-0}"
        y="${b[i]:-0}"
        if ((10#$x < 10#$y)); then return 0; fi
        if ((10#$x > 10#$y)); then return 1; fi
    done
    return 0
}

ours="$(tools_version "$root/Package.swift")"
if [ -z "$ours" ]; then
    echo "check-manifests: no swift-tools-version on the first line of $root/Package.swift" >&2
    exit 2
fi
if [ ! -d "$checkouts" ]; then
    echo "check-manifests: $checkouts not found; run 'swift package resolve' (or build) first" >&2
    exit 2
fi

# Only what the graph pins now: a checkout left behind by a dependency since dropped is not loaded.
pinned=""
if [ -f "$root/Package.resolved" ]; then
    pinned="$(sed -n -E 's/.*"identity"[[:space:]]*:[[:space:]]*"([^"]+)".*/\1/p' "$root/Package.resolved")"
fi

checked=0
bad=0
for dir in "$checkouts"/*/; do
    dir="${dir%/}"
    name="$(basename "$dir")"
    [ -f "$dir/Package.swift" ] || continue
    if [ -n "$pinned" ] && ! grep -qixF "$name" <<<"$pinned"; then continue; fi
    checked=$((checked + 1))

    # The manifest SwiftPM picks for tools version $ours.
    manifest="$dir/Package.swift"
    best=""
    for variant in "$dir"/Package@swift-*.swift; do
        [ -f "$variant" ] || continue
        v="$(basename "$variant")"
        v="${v#Package@swift-}"
        v="${v%.swift}"
        if version_le "$v" "$ours" && { [ -z "$best" ] || version_le "$best" "$v"; }; then
            best="$v"
            manifest="$variant"
        fi
    done

    needed="$(tools_version "$manifest")"
    version="$(git -C "$dir" describe --tags --exact-match 2>/dev/null || git -C "$dir" rev-parse --short HEAD 2>/dev/null || echo '?')"
    if [ -z "$needed" ]; then
        echo "check-manifests: FAIL $name $version: no swift-tools-version line in $(basename "$manifest")"
        bad=$((bad + 1))
    elif ! version_le "$needed" "$ours"; then
        if [ -n "$best" ]; then why="the variant SwiftPM picks"; else why="no Package@swift-X.swift with X <= $ours"; fi
        echo "check-manifests: FAIL $name $version: $(basename "$manifest") needs swift-tools-version $needed, ours is $ours ($why)"
        bad=$((bad + 1))
    fi
done

if [ "$checked" -eq 0 ]; then
    echo "check-manifests: no checkouts in $checkouts; run 'swift package resolve' first" >&2
    exit 2
fi
if [ "$bad" -gt 0 ]; then
    echo "check-manifests: $bad of $checked dependencies need a newer toolchain than swift-tools-version $ours; raise ours (and the README's Xcode) or pin older versions"
    exit 1
fi
echo "check-manifests: all $checked dependencies load with swift-tools-version $ours"
