/// What a kept media file is to its group (`media_files_v2.purpose`, migration `v23-media`).
public enum MediaFilePurpose: Int, Sendable, CaseIterable {
    /// A message's attachment (MIP-04).
    case attachment = 0
    /// The group's picture (MIP-01 image fields).
    case groupImage = 1
}
