#!/usr/bin/env bash
# Builds libsecp256k1 from a pinned upstream release into Apps/iOS/Vendor/CSecp256k1.xcframework.
#
# Why: the package's `CSecp256k1` target is a pkg-config system library on Linux and Homebrew, which the
# iOS SDK does not have. When the xcframework exists, Package.swift declares `CSecp256k1` as a binary
# target over it instead, with the same module name and headers, so `import CSecp256k1` is unchanged.
#
# Runs on macOS with Xcode (xcodebuild, xcrun, lipo) and CMake 3.22+ (`brew install cmake`).
# Slices: iOS device (arm64), iOS simulator (arm64, x86_64), macOS (arm64, x86_64); static libraries.
# Idempotent: a stamp records the pinned commit and this script's hash; when both match, it does nothing.
# `--force` rebuilds anyway. The output is not committed (see the repository's .gitignore).
set -Eeuo pipefail

# Pinned release: the tag and the commit it must resolve to (checked after the clone).
readonly SECP_TAG="v0.7.1"
readonly SECP_COMMIT="1a53f4961f337b4d166c25fce72ef0dc88806618"
readonly SECP_URL="${SECP256K1_GIT_URL:-https://github.com/bitcoin-core/secp256k1.git}"

# Deployment targets, matching Package.swift's `platforms`.
readonly IOS_MIN="17.0"
readonly MACOS_MIN="14.0"

readonly MODULE_NAME="CSecp256k1"
# The headers `Sources/CSecp256k1/shim.h` includes, i.e. what the Nostr target calls into.
readonly HEADERS=(secp256k1.h secp256k1_extrakeys.h secp256k1_schnorrsig.h secp256k1_ecdh.h)

script_path="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
app_dir="$(cd "$(dirname "$script_path")/.." && pwd)"
readonly script_path app_dir
readonly vendor_dir="$app_dir/Vendor"
readonly output="$vendor_dir/$MODULE_NAME.xcframework"
readonly stamp="$vendor_dir/$MODULE_NAME.stamp"
readonly work="$vendor_dir/.secp256k1-build"

fail() {
    echo "build-secp256k1: error: $*" >&2
    exit 1
}

trap 'echo "build-secp256k1: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

force=0
for arg in "$@"; do
    case "$arg" in
        --force) force=1 ;;
        -h | --help)
            echo "usage: $(basename "$script_path") [--force]"
            exit 0
            ;;
        *) fail "unknown argument: $arg" ;;
    esac
done

[[ "$(uname -s)" == "Darwin" ]] || fail "this script needs macOS with Xcode (found $(uname -s))"
for tool in git cmake xcodebuild xcrun lipo otool nm shasum; do
    command -v "$tool" >/dev/null || fail "missing tool: $tool (install Xcode and \`brew install cmake\`)"
done

script_hash="$(shasum -a 256 "$script_path" | cut -d ' ' -f 1)"
expected_stamp="$SECP_TAG $SECP_COMMIT $script_hash"
if [[ $force -eq 0 && -d "$output" && -f "$stamp" && "$(cat "$stamp")" == "$expected_stamp" ]]; then
    echo "build-secp256k1: $output is up to date ($SECP_TAG)"
    exit 0
fi

# Start clean: a half-built or outdated xcframework must never be picked up by Package.swift.
rm -rf "$output" "$stamp" "$work"
mkdir -p "$work"

# Fetch the pinned tag and check that it is the commit we reviewed.
src="$work/src"
git -c advice.detachedHead=false clone --quiet --depth 1 --branch "$SECP_TAG" "$SECP_URL" "$src"
actual_commit="$(git -C "$src" rev-parse HEAD)"
[[ "$actual_commit" == "$SECP_COMMIT" ]] ||
    fail "$SECP_TAG resolved to $actual_commit, expected $SECP_COMMIT; refusing to build"
echo "build-secp256k1: $SECP_TAG at $actual_commit"

# Builds one architecture of one platform into $work/install-<name>.
#   build_slice <name> <sdk> <arch> <cmake system name or "">
build_slice() {
    local name="$1" sdk="$2" arch="$3" system="$4"
    local build="$work/build-$name" prefix="$work/install-$name" min
    local -a args
    # Configure checks only compile (CMAKE_TRY_COMPILE_TARGET_TYPE), so cross builds link nothing.
    if [[ "$sdk" == macosx ]]; then min="$MACOS_MIN"; else min="$IOS_MIN"; fi
    args=(
        -S "$src" -B "$build"
        -DCMAKE_BUILD_TYPE=Release
        -DCMAKE_OSX_SYSROOT="$sdk"
        -DCMAKE_OSX_ARCHITECTURES="$arch"
        -DCMAKE_OSX_DEPLOYMENT_TARGET="$min"
        -DCMAKE_INSTALL_PREFIX="$prefix"
        -DCMAKE_INSTALL_LIBDIR=lib
        -DCMAKE_INSTALL_INCLUDEDIR=include
        -DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY
        -DBUILD_SHARED_LIBS=OFF
        -DSECP256K1_INSTALL=ON
        -DSECP256K1_ENABLE_MODULE_ECDH=ON
        -DSECP256K1_ENABLE_MODULE_EXTRAKEYS=ON
        -DSECP256K1_ENABLE_MODULE_SCHNORRSIG=ON
        -DSECP256K1_ENABLE_MODULE_RECOVERY=OFF
        -DSECP256K1_ENABLE_MODULE_MUSIG=OFF
        -DSECP256K1_ENABLE_MODULE_ELLSWIFT=OFF
        -DSECP256K1_BUILD_BENCHMARK=OFF
        -DSECP256K1_BUILD_TESTS=OFF
        -DSECP256K1_BUILD_EXHAUSTIVE_TESTS=OFF
        -DSECP256K1_BUILD_CTIME_TESTS=OFF
        -DSECP256K1_BUILD_EXAMPLES=OFF
        -DSECP256K1_VALGRIND=OFF
    )
    if [[ -n "$system" ]]; then args+=(-DCMAKE_SYSTEM_NAME="$system"); fi
    echo "build-secp256k1: building $name"
    cmake "${args[@]}" >"$work/configure-$name.log" 2>&1 ||
        fail "configure of $name failed; see $work/configure-$name.log"
    cmake --build "$build" --parallel "$(sysctl -n hw.ncpu)" >"$work/build-$name.log" 2>&1 ||
        fail "build of $name failed; see $work/build-$name.log"
    cmake --install "$build" >"$work/install-$name.log" 2>&1 ||
        fail "install of $name failed; see $work/install-$name.log"
    [[ -f "$prefix/lib/libsecp256k1.a" ]] || fail "$name produced no lib/libsecp256k1.a"
}

build_slice ios-arm64 iphoneos arm64 iOS
build_slice sim-arm64 iphonesimulator arm64 iOS
build_slice sim-x86_64 iphonesimulator x86_64 iOS
build_slice macos-arm64 macosx arm64 ""
build_slice macos-x86_64 macosx x86_64 ""

# Checks that every object in `library` is built for `platform` (LC_BUILD_VERSION: 1 macOS, 2 iOS,
# 7 iOS simulator; otool prints the number or the name depending on its version).
check_platform() {
    local library="$1" number="$2" name="$3" found
    found="$(otool -l "$library" | awk '$1 == "platform" { print $2 }' | sort -u)"
    [[ -n "$found" ]] || fail "$library has no LC_BUILD_VERSION platform"
    while read -r platform; do
        [[ "$platform" == "$number" || "$platform" == "$name" ]] ||
            fail "$library holds objects for platform $platform, expected $name"
    done <<<"$found"
}

# Checks the architectures of `library` against the expected, space-separated, sorted list.
check_archs() {
    local library="$1" expected="$2" found
    found="$(lipo -archs "$library" | tr ' ' '\n' | sort | xargs)"
    [[ "$found" == "$expected" ]] || fail "$library has architectures '$found', expected '$expected'"
}

# One library per platform: lipo the architectures together.
libs="$work/libs"
mkdir -p "$libs/ios" "$libs/sim" "$libs/macos"
cp "$work/install-ios-arm64/lib/libsecp256k1.a" "$libs/ios/libsecp256k1.a"
lipo -create "$work/install-sim-arm64/lib/libsecp256k1.a" "$work/install-sim-x86_64/lib/libsecp256k1.a" \
    -output "$libs/sim/libsecp256k1.a"
lipo -create "$work/install-macos-arm64/lib/libsecp256k1.a" "$work/install-macos-x86_64/lib/libsecp256k1.a" \
    -output "$libs/macos/libsecp256k1.a"

check_archs "$libs/ios/libsecp256k1.a" "arm64"
check_archs "$libs/sim/libsecp256k1.a" "arm64 x86_64"
check_archs "$libs/macos/libsecp256k1.a" "arm64 x86_64"
check_platform "$libs/ios/libsecp256k1.a" 2 IOS
check_platform "$libs/sim/libsecp256k1.a" 7 IOSSIMULATOR
check_platform "$libs/macos/libsecp256k1.a" 1 MACOS

# The exported API the Nostr target calls must be defined in every slice.
for library in "$libs"/*/libsecp256k1.a; do
    symbols="$(nm -gU "$library")"
    for symbol in secp256k1_context_create secp256k1_keypair_create secp256k1_schnorrsig_sign_custom \
        secp256k1_schnorrsig_verify secp256k1_ecdh secp256k1_xonly_pubkey_parse; do
        grep -q " _$symbol\$" <<<"$symbols" || fail "$library does not define $symbol"
    done
done

# Headers in a folder named after the module, so Xcode can copy several xcframeworks' headers into one
# include directory without their module maps colliding; clang finds <dir>/CSecp256k1/module.modulemap
# when `import CSecp256k1` is resolved.
headers="$work/headers"
mkdir -p "$headers/$MODULE_NAME"
for header in "${HEADERS[@]}"; do
    [[ -f "$work/install-ios-arm64/include/$header" ]] || fail "the build did not install $header"
    cp "$work/install-ios-arm64/include/$header" "$headers/$MODULE_NAME/$header"
done
{
    echo "module $MODULE_NAME {"
    for header in "${HEADERS[@]}"; do echo "    header \"$header\""; done
    echo "    export *"
    echo "}"
} >"$headers/$MODULE_NAME/module.modulemap"

staged="$work/$MODULE_NAME.xcframework"
xcodebuild -create-xcframework \
    -library "$libs/ios/libsecp256k1.a" -headers "$headers" \
    -library "$libs/sim/libsecp256k1.a" -headers "$headers" \
    -library "$libs/macos/libsecp256k1.a" -headers "$headers" \
    -output "$staged" >"$work/xcframework.log" 2>&1 ||
    fail "xcodebuild -create-xcframework failed; see $work/xcframework.log"

for slice in ios-arm64 ios-arm64_x86_64-simulator macos-arm64_x86_64; do
    [[ -f "$staged/$slice/libsecp256k1.a" ]] || fail "the xcframework has no $slice/libsecp256k1.a"
    [[ -f "$staged/$slice/Headers/$MODULE_NAME/module.modulemap" ]] ||
        fail "the xcframework has no $slice/Headers/$MODULE_NAME/module.modulemap"
done

# Publish: move into place, then write the stamp last.
mv "$staged" "$output"
echo "$expected_stamp" >"$stamp"
rm -rf "$work"
echo "build-secp256k1: wrote $output ($SECP_TAG, $SECP_COMMIT)"
# SwiftPM caches the evaluated manifest by its text, so one evaluated before this run still declares
# the pkg-config library.
echo "build-secp256k1: if Xcode or swift build read Package.swift before this run, clear SwiftPM's manifest"
echo "  cache once so it picks up the xcframework (Apps/iOS/README.md, \"Build and run\")."
