/// How the relay's embedded Blossom server (BUD-01, BUD-02, BUD-12) stores blobs.
///
/// Blobs are served on the relay's own port (`http://host:port/<sha256>`), so one `marmot relay`
/// gives a client both its Nostr relay and its media server. The defaults suit a personal server:
/// 100 MiB per blob, 1 GiB in all.
public struct BlossomConfiguration: Sendable, Equatable {
    /// Largest blob accepted; a larger upload gets 413 before more than this is read.
    public var maxBlobBytes: Int64 = 100 << 20
    /// Bytes of blobs stored at most (all uploaders together); beyond it an upload gets 507.
    /// Nil: no quota.
    public var quotaBytes: Int64? = 1 << 30
    /// Bytes one uploader's blobs may take at most; beyond it an upload gets 507. Nil: no cap.
    ///
    /// Why off by default: anyone can make a key, so this only slows a careless client; the total quota
    /// is what protects the disk.
    public var maxBytesPerUploader: Int64? = nil
    /// Folder of blob files and their index; nil: `blobs/` beside the relay database file, or a
    /// temporary folder (removed on stop) when the relay keeps its events in memory.
    public var directory: String? = nil
    /// Uploads in progress at once; further ones get 429 (each holds a temporary file and a socket).
    public var maxConcurrentUploads: Int = 8
    /// An upload whose body brings no byte for this long is cut off (its connection closed), so a
    /// client trickling bytes cannot hold an upload slot forever.
    public var uploadStallTimeout: Duration = .seconds(30)

    public init() {}
}
