import Foundation
import Nostr

/// Turns raw values into the strings the UI shows, once, in the core (bible §1.2: the core computes
/// `display_timestamp` and previews so platforms never format on their own and never diverge).
///
/// Formats are fixed and locale-independent (24-hour clock, English month and weekday abbreviations)
/// so that every platform shows the same text; the clock and time zone are injectable for tests.
public struct DisplayFormatter: Sendable {
    public let clock: AppClock
    public let timeZone: TimeZone
    /// Longest preview, in characters, before truncation with "…".
    public let previewLimit: Int
    /// Time labels already made today (see `TimeLabelCache`).
    private let labels = TimeLabelCache()

    public init(clock: AppClock = .system, timeZone: TimeZone = .current, previewLimit: Int = 80) {
        self.clock = clock
        self.timeZone = timeZone
        self.previewLimit = max(previewLimit, 1)
    }

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    // MARK: Names

    /// The peer's name when known and not blank, else the shortened npub.
    public func displayName(peerName: String?, npub: String) -> String {
        if let name = peerName?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty {
            return singleLine(name)
        }
        return shortNpub(npub)
    }

    /// `npub1` plus four characters, an ellipsis and the last four (`npub1abcd…wxyz`).
    public func shortNpub(_ npub: String) -> String { Self.short(npub) }

    /// `shortNpub(_:)` without a formatter instance.
    static func short(_ npub: String) -> String {
        guard npub.count > 13 else { return npub }
        return "\(npub.prefix(9))…\(npub.suffix(4))"
    }

    // MARK: Delivery

    /// The mark after an own message's time: "sending…", "✓" or "✗ not sent"; empty for received
    /// messages and system lines.
    public static func deliveryMark(_ delivery: MessageDeliveryState, isMine: Bool, kind: ChatMessageKind) -> String {
        guard isMine, kind == .text else { return "" }
        switch delivery {
        case .pending: return "sending…"
        case .sent: return "✓"
        case .failed: return "✗ not sent"
        }
    }

    // MARK: Text

    /// The message as one line (runs of whitespace and line breaks become one space), cut at
    /// `previewLimit` characters with a trailing "…".
    public func preview(_ text: String) -> String {
        let line = singleLine(text)
        guard line.count > previewLimit else { return line }
        let cut = line.prefix(previewLimit).trimmingCharacters(in: .whitespaces)
        return cut + "…"
    }

    /// The chat-list preview: "No messages yet" without a message, "You: …" for own messages.
    /// "photo.jpg · image/jpeg · 1.2 MB": what an attachment shows before it is opened.
    public func attachmentLabel(_ file: AttachmentInfo) -> String {
        var parts = [file.filename.isEmpty ? "file" : file.filename, file.mimeType]
        if let size = file.size { parts.append(byteCount(size)) }
        if let width = file.width, let height = file.height { parts.append("\(width)×\(height)") }
        return parts.joined(separator: " · ")
    }

    /// "📎 photo.jpg": the chat list's preview of a file sent without a caption.
    public func attachmentPreview(_ file: AttachmentInfo) -> String {
        "📎 \(file.filename.isEmpty ? file.mimeType : file.filename)"
    }

    /// "512 B", "12.3 KB", "1.2 MB".
    public func byteCount(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        let units = ["KB", "MB", "GB"]
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f", value) + " " + units[unit]
    }

    public func lastMessagePreview(_ text: String?, isMine: Bool) -> String {
        guard let text else { return "No messages yet" }
        let body = preview(text)
        return isMine ? "You: \(body)" : body
    }

    /// One printable line (`UntrustedText.line`): the core's strings are printed as they are by
    /// line-oriented renderers (`marmot listen`, `chats`), so no control or bidi character is left.
    public func singleLine(_ text: String) -> String { UntrustedText.line(text) }

    // MARK: Time

    /// Chat-list label: "14:05" today, "Yesterday", a weekday within the last week, "Mar 4" this
    /// year, "2023-03-04" before; empty without a timestamp.
    public func listTime(_ unixSeconds: Int64?) -> String {
        guard let unixSeconds else { return "" }
        return label(.list, unixSeconds) { now in
            let parts = components(unixSeconds)
            switch dayDistance(to: unixSeconds, now: now) {
            case 0: return clockTime(parts)
            case 1: return "Yesterday"
            case 2...6: return Self.weekdays[max(0, min(6, (parts.weekday ?? 1) - 1))]
            default: return sameYear(unixSeconds, now: now) ? monthDay(parts) : isoDate(parts)
            }
        }
    }

    /// Message label: "14:05" today, "Yesterday 14:05", "Mar 4, 14:05" this year, else
    /// "2023-03-04 14:05".
    public func messageTime(_ unixSeconds: Int64) -> String {
        label(.message, unixSeconds) { now in
            let parts = components(unixSeconds)
            switch dayDistance(to: unixSeconds, now: now) {
            case 0: return clockTime(parts)
            case 1: return "Yesterday \(clockTime(parts))"
            default:
                return sameYear(unixSeconds, now: now)
                    ? "\(monthDay(parts)), \(clockTime(parts))" : "\(isoDate(parts)) \(clockTime(parts))"
            }
        }
    }

    /// The local day `now` falls in, as Unix seconds from its start to the next day's start.
    func today(_ now: Date) -> Range<Int64> {
        let calendar = self.calendar
        let start = calendar.startOfDay(for: now)
        let end = calendar.date(byAdding: .day, value: 1, to: start) ?? start.addingTimeInterval(86_400)
        return Self.seconds(start)..<Self.seconds(end)
    }

    /// Which local day the labels are made for: changes at midnight (and with the injected clock).
    var labelDay: Int64 { labels.day(containing: clock.now(), today: today).lowerBound }

    /// A time label from the cache of today's labels, else made by `make` (with the "now" it is for)
    /// and kept: a label depends only on the timestamp and on the local day of "now".
    private func label(_ kind: TimeLabelCache.Kind, _ unixSeconds: Int64, make: (Date) -> String) -> String {
        let now = clock.now()
        let day = labels.day(containing: now, today: today)
        if let known = labels.label(kind, unixSeconds, day: day) { return known }
        let made = make(now)
        labels.keep(made, kind, unixSeconds, day: day)
        return made
    }

    private static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    private func date(_ unixSeconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(unixSeconds)) }

    private func components(_ unixSeconds: Int64) -> DateComponents {
        calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: date(unixSeconds))
    }

    /// Whole calendar days from the timestamp's day to today (0 today, 1 yesterday, negative future).
    private func dayDistance(to unixSeconds: Int64, now: Date) -> Int {
        let calendar = self.calendar
        let then = calendar.startOfDay(for: date(unixSeconds))
        let today = calendar.startOfDay(for: now)
        return calendar.dateComponents([.day], from: then, to: today).day ?? 0
    }

    private func sameYear(_ unixSeconds: Int64, now: Date) -> Bool {
        calendar.component(.year, from: date(unixSeconds)) == calendar.component(.year, from: now)
    }

    private func clockTime(_ parts: DateComponents) -> String {
        "\(twoDigits(parts.hour ?? 0)):\(twoDigits(parts.minute ?? 0))"
    }

    private func monthDay(_ parts: DateComponents) -> String {
        "\(Self.months[max(0, min(11, (parts.month ?? 1) - 1))]) \(parts.day ?? 1)"
    }

    private func isoDate(_ parts: DateComponents) -> String {
        "\(parts.year ?? 1970)-\(twoDigits(parts.month ?? 1))-\(twoDigits(parts.day ?? 1))"
    }

    private func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

/// The time labels a formatter made for the current local day, by timestamp.
///
/// A label costs several calendar computations, and the core draws every loaded message of the open
/// chat and every chat-list row after each change (issue 27: this was most of "send → Pending"); a
/// label depends only on its timestamp and on which day "now" is, so it is kept until the day (of
/// the formatter's clock) changes. Shared by copies of the formatter; used from any thread.
final class TimeLabelCache: @unchecked Sendable {
    enum Kind: Hashable { case message, list }

    /// Most labels kept per kind; past it that kind starts over (a long history paged through).
    static let capacity = 20_000

    private let lock = NSLock()
    private var current: Range<Int64> = 0..<0
    /// Per kind, by timestamp.
    private var labels: [Kind: [Int64: String]] = [:]

    /// The local day containing `now` (the cached one, else `today(now)`, which starts a new cache).
    func day(containing now: Date, today: (Date) -> Range<Int64>) -> Range<Int64> {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        if let known = lock.withLock({ current.contains(seconds) ? current : nil }) { return known }
        let fresh = today(now)
        lock.withLock {
            guard current != fresh else { return }
            current = fresh
            labels = [:]
        }
        return fresh
    }

    func label(_ kind: Kind, _ unixSeconds: Int64, day: Range<Int64>) -> String? {
        lock.withLock {
            guard current == day else { return nil }
            return labels[kind]?[unixSeconds]
        }
    }

    func keep(_ label: String, _ kind: Kind, _ unixSeconds: Int64, day: Range<Int64>) {
        lock.withLock {
            guard current == day else { return }
            if labels[kind, default: [:]].count >= Self.capacity { labels[kind] = [:] }
            labels[kind, default: [:]][unixSeconds] = label
        }
    }
}
