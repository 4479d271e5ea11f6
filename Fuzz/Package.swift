// swift-tools-version: 6.2
// libFuzzer targets for every decoder that takes untrusted bytes (issue 15). A separate package so
// that the root `swift build` never compiles them: build and run with `scripts/fuzz.sh [SECONDS]`.
//
// The executable has no `main`: libFuzzer provides it, so it only links with
// `-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library` (what scripts/fuzz.sh passes).
import PackageDescription

let package = Package(
    name: "MarmotFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Marmot", path: ".."),
    ],
    targets: [
        // The declaration of libFuzzer's LLVMFuzzerRunDriver, which our entry point calls.
        .target(name: "CFuzzerDriver"),
        .executableTarget(
            name: "MarmotFuzz",
            dependencies: [
                "CFuzzerDriver",
                .product(name: "Nostr", package: "Marmot"),
                .product(name: "MLS", package: "Marmot"),
                .product(name: "MarmotWire", package: "Marmot"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
