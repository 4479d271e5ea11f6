import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the CLI keeps its files: `$MARMOT_HOME`, else `~/.local/share/marmot` (XDG data home).
///
/// The folder holds the nsec, the chats and the relay's events, so it is the user's alone: created
/// 0700, an existing one open to group or others is tightened to 0700 (with a note on stderr), and
/// one owned by another user is refused (exit code 2) rather than used.
enum MarmotHome {
    static var url: URL {
        let environment = ProcessInfo.processInfo.environment
        if let home = environment["MARMOT_HOME"], !home.isEmpty { return URL(fileURLWithPath: home) }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            return URL(fileURLWithPath: data).appendingPathComponent("marmot")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/marmot")
    }

    /// Creates the folder (0700) when missing, checks and tightens an existing one, and returns it.
    static func prepare() throws(CLIError) -> URL {
        let url = url
        let path = url.path
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CLIError(.usage, "\(path) ($MARMOT_HOME) is not a folder") }
        } else {
            do {
                try manager.createDirectory(at: url, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
            } catch {
                throw CLIError(.failure, "cannot create \(path): \(error.localizedDescription)")
            }
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw CLIError(.failure, "cannot read the permissions of \(path): \(String(cString: strerror(errno)))")
        }
        if status.st_uid != geteuid() {
            throw CLIError(.usage, """
                \(path) ($MARMOT_HOME) belongs to another user (uid \(status.st_uid)); refusing to use it: \
                set MARMOT_HOME to a folder of your own
                """)
        }
        let mode = Int(status.st_mode) & 0o777
        if mode != 0o700 {
            guard chmod(path, 0o700) == 0 else {
                throw CLIError(.failure, "cannot set the permissions of \(path) to 0700: \(String(cString: strerror(errno)))")
            }
            if mode & 0o077 != 0 {
                Output.status("marmot: \(path) was open to other users (mode \(String(mode, radix: 8))); set it to 0700")
            }
        }
        return url
    }

    /// Sets `file` (created by us in the home) to 0600 whatever the umask; a missing file is left alone.
    static func restrict(_ file: URL) throws(CLIError) {
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        guard chmod(file.path, 0o600) == 0 else {
            throw CLIError(.failure, "cannot set the permissions of \(file.path) to 0600: \(String(cString: strerror(errno)))")
        }
    }
}
