import Foundation
import MarmotAppKit
import MarmotContract
import MarmotCore

// The C ABI of include/marmot.h: a thin shell over `MarmotApp` and the JSON contract.
// Every function checks its pointers and never traps on input; codes are the header's.

/// Return codes of include/marmot.h.
enum FFICode {
    static let ok: Int32 = 0
    static let nullArgument: Int32 = 1
    static let invalidSecret: Int32 = 6
    static let storage: Int32 = 7
    static let listenerSet: Int32 = 8
    static let invalidRelay: Int32 = 9
}

/// One app behind an opaque `marmot_app *`: the core plus the listener's state.
///
/// Why a class with a lock: the listener runs on the core's listener task while the host may call
/// `marmot_app_destroy` from any thread; the lock makes "no callback after destroy returns" true.
/// It is recursive because the listener may call back in (destroy, set_listener) on its own thread
/// while `deliver` holds it: with a plain lock that call would wait for itself forever.
final class FFIApp: @unchecked Sendable {
    let app: MarmotApp
    private let lock = NSRecursiveLock()
    // Guarded by `lock`.
    private var callback: (@convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void)?
    private var context: UnsafeMutableRawPointer?
    private var listening = false
    private var destroyed = false

    init(app: MarmotApp) { self.app = app }

    func setListener(
        _ callback: @escaping @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void,
        context: UnsafeMutableRawPointer?
    ) -> Int32 {
        let first: Bool = lock.withLock {
            if listening { return false }
            listening = true
            self.callback = callback
            self.context = context
            return true
        }
        guard first else { return FFICode.listenerSet }
        app.listenForUpdates(Reconciler(owner: self))
        return FFICode.ok
    }

    /// Calls the host's callback with one update, unless the app was destroyed.
    fileprivate func deliver(_ update: AppUpdate) {
        let json = ContractJSON.updateString(update)
        lock.withLock {
            guard !destroyed, let callback else { return }
            json.withCString { callback($0, context) }
        }
    }

    func markDestroyed() { lock.withLock { destroyed = true } }

    /// Holds the app weakly: the core's listener task must not keep the app (and so the core) alive
    /// after `marmot_app_destroy`, or the core would never stop.
    private final class Reconciler: AppReconciler, @unchecked Sendable {
        // Written once in init; `weak` loads are atomic.
        weak var owner: FFIApp?
        init(owner: FFIApp) { self.owner = owner }
        func reconcile(_ update: AppUpdate) { owner?.deliver(update) }
    }
}

/// Relay URLs from a comma/space/newline separated list; nil when one is not ws:// or wss://.
func parseRelays(_ text: String) -> [URL]? {
    var urls: [URL] = []
    for part in text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\n" || $0 == "\t" }) {
        guard let url = URL(string: String(part)), let scheme = url.scheme?.lowercased(),
            scheme == "ws" || scheme == "wss", url.host != nil
        else { return nil }
        urls.append(url)
    }
    return urls
}

@_cdecl("marmot_schema_version")
public func marmot_schema_version() -> UInt32 { UInt32(ContractJSON.schemaVersion) }

@_cdecl("marmot_app_create")
public func marmot_app_create(
    _ dataDir: UnsafePointer<CChar>?, _ relays: UnsafePointer<CChar>?, _ secretHex: UnsafePointer<CChar>?,
    _ outApp: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    guard let dataDir, let outApp else { return FFICode.nullArgument }
    outApp.pointee = nil
    let directory = URL(fileURLWithPath: String(cString: dataDir), isDirectory: true)
    guard let relayURLs = parseRelays(relays.map { String(cString: $0) } ?? "") else { return FFICode.invalidRelay }
    do {
        // Owner only, as the CLI keeps its home (surface review 2026-12-01, N14): created 0700,
        // and an existing folder narrowed to it.
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
    } catch {
        return FFICode.storage
    }
    let secret: InstallationSecret
    if let secretHex {
        guard let parsed = InstallationSecret(hex: String(cString: secretHex)) else { return FFICode.invalidSecret }
        secret = parsed
    } else {
        // Same file and format as the CLI's `$MARMOT_HOME/install-secret` (FileSecretStore, 0600).
        let store = FileSecretStore(fileURL: directory.appendingPathComponent("nsec"))
        do { secret = try store.provisionInstallationSecret() } catch { return FFICode.storage }
    }
    var configuration = AppConfiguration(relayURLs: relayURLs, logLevel: .warning, installationSecret: secret)
    if !relayURLs.isEmpty {
        var options = MarmotMessagingOptions()
        options.logLevel = .warning
        configuration.messagingServiceFactory = MarmotMessaging.factory(options)
    }
    let app = FFIApp(app: MarmotApp(dataDirectory: directory, configuration: configuration))
    outApp.pointee = OpaquePointer(Unmanaged.passRetained(app).toOpaque())
    return FFICode.ok
}

/// The app behind a handle, without changing its retain count.
private func resolve(_ handle: OpaquePointer?) -> FFIApp? {
    guard let handle else { return nil }
    return Unmanaged<FFIApp>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
}

@_cdecl("marmot_app_state")
public func marmot_app_state(_ handle: OpaquePointer?) -> UnsafeMutablePointer<CChar>? {
    guard let app = resolve(handle) else { return nil }
    return strdup(ContractJSON.stateString(app.app.state()))
}

@_cdecl("marmot_app_dispatch")
public func marmot_app_dispatch(_ handle: OpaquePointer?, _ actionJSON: UnsafePointer<CChar>?) -> Int32 {
    guard let app = resolve(handle), let actionJSON else { return FFICode.nullArgument }
    do {
        let action = try ContractJSON.action(fromJSON: String(cString: actionJSON))
        app.app.dispatch(action)
        return FFICode.ok
    } catch {
        return error.code
    }
}

@_cdecl("marmot_app_set_listener")
public func marmot_app_set_listener(
    _ handle: OpaquePointer?,
    _ callback: (@convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void)?,
    _ context: UnsafeMutableRawPointer?
) -> Int32 {
    guard let app = resolve(handle), let callback else { return FFICode.nullArgument }
    return app.setListener(callback, context: context)
}

@_cdecl("marmot_error_message")
public func marmot_error_message(_ code: Int32) -> UnsafePointer<CChar>? {
    let text: StaticString =
        switch code {
        case 0: "ok"
        case 1: "a required argument was NULL"
        case 2: "invalid JSON (expected one object)"
        case 3: "unsupported schemaVersion"
        case 4: "unknown action type"
        case 5: "missing or invalid field"
        case 6: "installation secret is not 64 hex digits"
        case 7: "data directory or installation secret file unusable"
        case 8: "a listener is already registered"
        case 9: "a relay is not a ws:// or wss:// URL"
        default: "unknown error code"
        }
    return UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("marmot_string_free")
public func marmot_string_free(_ string: UnsafeMutablePointer<CChar>?) {
    free(string)
}

@_cdecl("marmot_app_destroy")
public func marmot_app_destroy(_ handle: OpaquePointer?) {
    guard let handle else { return }
    let app = Unmanaged<FFIApp>.fromOpaque(UnsafeRawPointer(handle))
    app.takeUnretainedValue().markDestroyed()
    app.release()
}
