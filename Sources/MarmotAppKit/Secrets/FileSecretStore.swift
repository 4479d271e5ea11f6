import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps the secret in one file readable only by its owner (mode 0600), for Linux, the CLI and any
/// platform without a keychain (bible §6.6, Desktop).
///
/// Writes are atomic: the secret goes to a temporary file created with mode 0600 next to the target,
/// is flushed, then renamed over it, so a crash leaves either the old secret or the new one and the
/// secret never sits in a file with wider permissions. The parent folder is created with mode 0700.
/// Permissions are re-checked, and tightened when needed, on every save and load.
public struct FileSecretStore: SecretStore, CustomStringConvertible {
    public let fileURL: URL

    public init(fileURL: URL) { self.fileURL = fileURL }

    private var path: String { fileURL.path }

    public func load() throws(SecretStoreError) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        try ensureOwnerOnly(path)
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            throw .file(operation: "read", path: path, errno: Self.errnoCode(of: error))
        }
        guard let text = String(data: data, encoding: .utf8) else { throw .notText }
        let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return secret.isEmpty ? nil : secret
    }

    public func save(_ secret: String) throws(SecretStoreError) {
        try createParentDirectory()
        let temporary = fileURL.deletingLastPathComponent()
            .appendingPathComponent(".\(fileURL.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).tmp").path
        try writeNew(temporary, Array(secret.utf8) + [0x0A])
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw .file(operation: "rename", path: path, errno: code)
        }
        try ensureOwnerOnly(path)
    }

    public func delete() throws(SecretStoreError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .file(operation: "delete", path: path, errno: errno)
        }
    }

    public var description: String { "FileSecretStore(\(path))" }

    // MARK: Files

    private func createParentDirectory() throws(SecretStoreError) {
        let parent = fileURL.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: parent.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return
        }
        do {
            try FileManager.default.createDirectory(
                at: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .file(operation: "create folder", path: parent.path, errno: Self.errnoCode(of: error))
        }
        // The umask may have removed bits from the requested mode; set it exactly.
        guard chmod(parent.path, 0o700) == 0 else {
            throw .file(operation: "chmod", path: parent.path, errno: errno)
        }
    }

    /// Creates `file` (which must not exist) with mode 0600 and writes `bytes` to disk.
    private func writeNew(_ file: String, _ bytes: [UInt8]) throws(SecretStoreError) {
        let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .file(operation: "create", path: file, errno: errno) }
        var failure: SecretStoreError?
        if fchmod(descriptor, 0o600) != 0 {
            failure = .file(operation: "chmod", path: file, errno: errno)
        }
        var written = 0
        while failure == nil, written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                failure = .file(operation: "write", path: file, errno: errno)
            } else {
                written += count
            }
        }
        if failure == nil, fsync(descriptor) != 0 {
            failure = .file(operation: "sync", path: file, errno: errno)
        }
        close(descriptor)
        if let failure {
            unlink(file)
            throw failure
        }
    }

    /// Checks that only the owner may read or write `file`, tightening the mode when it is wider.
    private func ensureOwnerOnly(_ file: String) throws(SecretStoreError) {
        var info = stat()
        guard stat(file, &info) == 0 else { throw .file(operation: "stat", path: file, errno: errno) }
        let mode = UInt32(info.st_mode) & 0o777
        guard mode != 0o600 else { return }
        guard chmod(file, 0o600) == 0 else { throw .file(operation: "chmod", path: file, errno: errno) }
        guard stat(file, &info) == 0 else { throw .file(operation: "stat", path: file, errno: errno) }
        let fixed = UInt32(info.st_mode) & 0o777
        guard fixed == 0o600 else { throw .insecurePermissions(path: file, mode: fixed) }
    }

    private static func errnoCode(of error: any Error) -> Int32 {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        {
            return Int32(underlying.code)
        }
        return nsError.domain == NSPOSIXErrorDomain ? Int32(nsError.code) : 0
    }
}
