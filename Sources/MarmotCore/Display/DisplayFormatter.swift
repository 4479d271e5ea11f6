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
        let parts = components(unixSeconds)
        switch dayDistance(to: unixSeconds) {
        case 0: return clockTime(parts)
        case 1: return "Yesterday"
        case 2...6: return Self.weekdays[max(0, min(6, (parts.weekday ?? 1) - 1))]
        default: return sameYear(unixSeconds) ? monthDay(parts) : isoDate(parts)
        }
    }

    /// Message label: "14:05" today, "Yesterday 14:05", "Mar 4, 14:05" this year, else
    /// "2023-03-04 14:05".
    public func messageTime(_ unixSeconds: Int64) -> String {
        let parts = components(unixSeconds)
        switch dayDistance(to: unixSeconds) {
        case 0: return clockTime(parts)
        case 1: return "Yesterday \(clockTime(parts))"
        default:
            return sameYear(unixSeconds)
                ? "\(monthDay(parts)), \(clockTime(parts))" : "\(isoDate(parts)) \(clockTime(parts))"
        }
    }

    private func date(_ unixSeconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(unixSeconds)) }

    private func components(_ unixSeconds: Int64) -> DateComponents {
        calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: date(unixSeconds))
    }

    /// Whole calendar days from the timestamp's day to today (0 today, 1 yesterday, negative future).
    private func dayDistance(to unixSeconds: Int64) -> Int {
        let calendar = self.calendar
        let then = calendar.startOfDay(for: date(unixSeconds))
        let today = calendar.startOfDay(for: clock.now())
        return calendar.dateComponents([.day], from: then, to: today).day ?? 0
    }

    private func sameYear(_ unixSeconds: Int64) -> Bool {
        calendar.component(.year, from: date(unixSeconds)) == calendar.component(.year, from: clock.now())
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
