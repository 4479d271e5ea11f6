import Logging

/// The loggers of the MarmotWire and Marmot targets, one label per subsystem.
///
/// Used only for inputs that are dropped or tolerated; never given keys, secrets or plaintext.
package enum MarmotLog {
    package static let groupData = Logger(label: "marmot.group-data")
    package static let groupEvents = Logger(label: "marmot.group-events")
    package static let media = Logger(label: "marmot.media")
}
