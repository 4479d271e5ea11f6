// swift-tools-version: 6.1
// Marmot for Swift: an MLS-over-Nostr messenger, one package, one target per layer.
import PackageDescription

let package = Package(
    name: "Marmot",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "Nostr", targets: ["Nostr"]),
        .library(name: "MLS", targets: ["MLS"]),
        .executable(name: "marmot", targets: ["MarmotCLI"]),
        .executable(name: "marmot-bench", targets: ["MarmotBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // Debian's libsecp256k1 (BIP-340, extrakeys, ECDH); see scripts/setup.sh.
        .systemLibrary(
            name: "CSecp256k1",
            pkgConfig: "libsecp256k1",
            providers: [.apt(["libsecp256k1-dev"])]
        ),
        // Nostr: keys, NIP-01 events and relay messages, NIP-19, NIP-44, NIP-59.
        .target(
            name: "Nostr",
            dependencies: [
                "CSecp256k1",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // MLS (RFC 9420), ciphersuite 0x0001.
        .target(
            name: "MLS",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The app core: state, actions, updates and the actor that owns them (RMP architecture).
        .target(name: "MarmotCore", dependencies: ["Nostr", .product(name: "Logging", package: "swift-log")]),
        // `marmot`, the terminal client.
        .executableTarget(
            name: "MarmotCLI",
            dependencies: ["Nostr"]
        ),
        // `marmot-bench`: speed figures per layer (printed, never asserted).
        .executableTarget(
            name: "MarmotBench",
            dependencies: ["Nostr", "MLS"]
        ),
        // Locates ../shared (MARMOT_SHARED) for vector and interop tests.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "NostrTests", dependencies: ["Nostr", "TestSupport"]),
        .testTarget(name: "MLSTests", dependencies: ["MLS", "TestSupport"]),
        .testTarget(name: "MarmotCoreTests", dependencies: ["MarmotCore", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
