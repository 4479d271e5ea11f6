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
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
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
        // Marmot protocol (MIP-00..03 as MDK 0.8.0): group data, events, key packages, welcomes, storage.
        .target(
            name: "Marmot",
            dependencies: [
                "Nostr",
                "MLS",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
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
        .testTarget(name: "MarmotTests", dependencies: ["Marmot", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
