// swift-tools-version: 6.2
// Marmot for Swift: an MLS-over-Nostr messenger, one package, one target per layer.
import Foundation
import PackageDescription

/// libsecp256k1 (BIP-340, extrakeys, ECDH) for the `Nostr` target, as module `CSecp256k1`.
///
/// Debian's (or Homebrew's) through pkg-config, see scripts/setup.sh; the iOS SDK has none, so when
/// `Apps/iOS/scripts/build-secp256k1.sh` has built the xcframework on a Mac, that is used instead.
let secp256k1XCFramework = "Apps/iOS/Vendor/CSecp256k1.xcframework"
let cSecp256k1: Target =
    FileManager.default.fileExists(atPath: Context.packageDirectory + "/" + secp256k1XCFramework)
    ? .binaryTarget(name: "CSecp256k1", path: secp256k1XCFramework)
    : .systemLibrary(name: "CSecp256k1", pkgConfig: "libsecp256k1", providers: [.apt(["libsecp256k1-dev"])])

let package = Package(
    name: "Marmot",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "Nostr", targets: ["Nostr"]),
        .library(name: "MLS", targets: ["MLS"]),
        .library(name: "NostrRelay", targets: ["NostrRelay"]),
        .library(name: "NostrClient", targets: ["NostrClient"]),
        // For the fuzz package (Fuzz/Package.swift), which needs the Marmot decoders only.
        .library(name: "MarmotWire", targets: ["MarmotWire"]),
        .library(name: "Marmot", targets: ["Marmot"]),
        .library(name: "MarmotAppKit", targets: ["MarmotAppKit"]),
        .library(name: "MarmotContract", targets: ["MarmotContract"]),
        // The core's C ABI (include/marmot.h) as a shared library, for JNI, ctypes and other hosts.
        .library(name: "MarmotFFI", type: .dynamic, targets: ["MarmotFFI"]),
        .executable(name: "marmot", targets: ["MarmotCLI"]),
        .executable(name: "marmot-bench", targets: ["MarmotBench"]),
        .executable(name: "marmot-conformance", targets: ["MarmotConformance"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        cSecp256k1,
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
        // Marmot's wire (MIP-00..04 as MDK 0.8.0, v2 as MDK 0.9.14): group data, events, rumors, key
        // packages, welcomes, media and image schemes, routing, each encoded, decoded and checked.
        // No relays, no storage: what the fuzz package builds with sanitizers.
        .target(
            name: "MarmotWire",
            dependencies: [
                "Nostr",
                "MLS",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Marmot's groups: the rules (v1/v2), the engine, convergence, the client over the relay pool
        // and the encrypted store.
        .target(
            name: "Marmot",
            dependencies: [
                "Nostr",
                "MLS",
                "MarmotWire",
                "NostrClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Embedded NIP-01 relay: Hummingbird WebSocket server over GRDB storage.
        .target(
            name: "NostrRelay",
            dependencies: [
                "Nostr",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Relay client (state machine + WebSocket I/O) and the relay pool.
        .target(
            name: "NostrClient",
            dependencies: [
                "Nostr",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The app core: state, actions, updates and the actor that owns them (RMP architecture).
        .target(
            name: "MarmotCore",
            dependencies: ["Nostr", "MLS", "Marmot", "NostrClient", .product(name: "Logging", package: "swift-log")]
        ),
        // The SwiftUI app's manager and secret stores, in plain Swift so they are tested on Linux.
        .target(
            name: "MarmotAppKit",
            dependencies: ["MarmotCore", .product(name: "Logging", package: "swift-log")]
        ),
        // The versioned JSON contract of AppState, AppAction and AppUpdate (docs/ffi-contract.md).
        .target(name: "MarmotContract", dependencies: ["MarmotCore"]),
        // The C ABI over the JSON contract: create, state, dispatch, listener, free (include/marmot.h).
        .target(
            name: "MarmotFFI",
            dependencies: ["MarmotContract", "MarmotCore", "MarmotAppKit", .product(name: "Logging", package: "swift-log")],
            exclude: ["include"]
        ),
        // `marmot`, the terminal client (and `marmot web`, the browser renderer).
        .executableTarget(
            name: "MarmotCLI",
            dependencies: [
                "Nostr", "NostrRelay", "MarmotCore", "MarmotAppKit", "MarmotContract",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `marmot-bench`: speed figures per layer (printed, never asserted).
        .executableTarget(
            name: "MarmotBench",
            dependencies: [
                "Nostr", "MLS", "NostrRelay", "NostrClient", "Marmot", "MarmotCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `marmot-conformance`: MDK's portable conformance vectors run against our v2 group engine.
        .executableTarget(
            name: "MarmotConformance",
            dependencies: ["Nostr", "MLS", "Marmot", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Locates ../shared (MARMOT_SHARED) for vector and interop tests.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "NostrTests", dependencies: ["Nostr", "TestSupport"]),
        .testTarget(name: "MLSTests", dependencies: ["MLS", "TestSupport"]),
        .testTarget(
            name: "MarmotWireTests",
            dependencies: ["MarmotWire", "Marmot", "NostrClient", "TestSupport", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "MarmotTests",
            dependencies: ["Marmot", "MarmotWire", "NostrClient", "NostrRelay", "TestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "MarmotCLITests",
            dependencies: ["Nostr", "NostrClient", "TestSupport", "MarmotCLI", "MarmotCore", "MarmotAppKit"]
        ),
        .testTarget(name: "NostrRelayTests", dependencies: ["NostrRelay", "NostrClient", "TestSupport"]),
        .testTarget(
            name: "NostrClientTests",
            dependencies: ["NostrClient", "NostrRelay", "TestSupport", .product(name: "Hummingbird", package: "hummingbird")],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "MarmotCoreTests",
            dependencies: ["MarmotCore", "Marmot", "MarmotWire", "MLS", "Nostr", "NostrClient", "NostrRelay", "TestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "MarmotAppKitTests", dependencies: ["MarmotAppKit", "MarmotCore", "TestSupport"]),
        .testTarget(name: "MarmotContractTests", dependencies: ["MarmotContract", "MarmotCore"]),
    ],
    swiftLanguageModes: [.v6]
)
