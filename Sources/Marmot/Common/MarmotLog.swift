import Logging

/// The loggers of the Marmot target, one label per subsystem.
///
/// Used only for inputs that are dropped or tolerated; never given keys, secrets or plaintext.
enum MarmotLog {
    static let groupData = Logger(label: "marmot.group-data")
    static let groupEvents = Logger(label: "marmot.group-events")
    static let media = Logger(label: "marmot.media")
}
