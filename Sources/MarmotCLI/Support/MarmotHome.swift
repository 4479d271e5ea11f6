import Foundation

/// Where the CLI keeps its files: `$MARMOT_HOME`, else `~/.local/share/marmot` (XDG data home).
enum MarmotHome {
    static var url: URL {
        let environment = ProcessInfo.processInfo.environment
        if let home = environment["MARMOT_HOME"], !home.isEmpty { return URL(fileURLWithPath: home) }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            return URL(fileURLWithPath: data).appendingPathComponent("marmot")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/marmot")
    }

    /// Creates the folder (0700) when missing and returns it.
    static func prepare() throws -> URL {
        let url = url
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        return url
    }
}
