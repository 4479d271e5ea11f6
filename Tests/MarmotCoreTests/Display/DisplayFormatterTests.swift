import Foundation
import Testing
@testable import MarmotCore

/// Wednesday 2026-03-04 12:00:00 UTC.
private let now: Int64 = 1_772_625_600

@Suite("DisplayFormatter")
struct DisplayFormatterTests {
    let utc = DisplayFormatter(clock: .fixed(Date(timeIntervalSince1970: TimeInterval(now))),
                               timeZone: TimeZone(identifier: "UTC")!)

    @Test("short npub keeps npub1 plus four, and the last four")
    func shortNpub() {
        let npub = "npub1abcdefghijklmnopqrstuvwxyz0123456789wxyz"
        #expect(utc.shortNpub(npub) == "npub1abcd…wxyz")
        #expect(utc.shortNpub("npub1short") == "npub1short")
        #expect(utc.displayName(peerName: nil, npub: npub) == "npub1abcd…wxyz")
        #expect(utc.displayName(peerName: " \n", npub: npub) == "npub1abcd…wxyz")
        #expect(utc.displayName(peerName: " Ann\nLee ", npub: npub) == "Ann Lee")
    }

    @Test("previews are one line and truncated with an ellipsis")
    func previews() {
        #expect(utc.preview("a\n\nb\t c ") == "a b c")
        let long = String(repeating: "x", count: 100)
        #expect(utc.preview(long) == String(repeating: "x", count: 80) + "…")
        #expect(utc.preview(String(repeating: "é", count: 80)) == String(repeating: "é", count: 80))
        #expect(utc.lastMessagePreview(nil, isMine: false) == "No messages yet")
        #expect(utc.lastMessagePreview("hi", isMine: true) == "You: hi")
    }

    @Test("list labels: time today, Yesterday, weekday this week, month and day this year, else ISO date",
          arguments: [
            (now - 3_600, "11:00"),
            (now - 12 * 3_600, "00:00"),
            (now - 12 * 3_600 - 1, "Yesterday"),
            (now - 2 * 86_400, "Mon"),
            (now - 6 * 86_400, "Thu"),
            (now - 7 * 86_400, "Feb 25"),
            (now - 70 * 86_400, "2025-12-24"),
          ])
    func listLabels(timestamp: Int64, expected: String) {
        #expect(utc.listTime(timestamp) == expected)
    }

    @Test("message labels carry the time of day", arguments: [
        (now - 60, "11:59"),
        (now - 86_400, "Yesterday 12:00"),
        (now - 7 * 86_400 + 5 * 60, "Feb 25, 12:05"),
        (now - 70 * 86_400, "2025-12-24 12:00"),
    ])
    func messageLabels(timestamp: Int64, expected: String) {
        #expect(utc.messageTime(timestamp) == expected)
    }

    @Test("the time zone decides the day")
    func timeZones() {
        let tokyo = DisplayFormatter(clock: utc.clock, timeZone: TimeZone(identifier: "Asia/Tokyo")!)
        // 12:00 UTC is 21:00 in Tokyo; 14:30 UTC the day before is 23:30 "yesterday" there.
        #expect(tokyo.listTime(now) == "21:00")
        #expect(tokyo.listTime(now - 21 * 3_600 - 30 * 60) == "Yesterday")
        #expect(utc.listTime(nil) == "")
    }

    @Test("labels kept for today are made again once the clock passes midnight, and copies share them")
    func labelsFollowTheDay() {
        let clock = MovableClock(now)
        let formatter = DisplayFormatter(clock: AppClock { clock.date }, timeZone: TimeZone(identifier: "UTC")!)
        let copy = formatter
        #expect(formatter.messageTime(now - 60) == "11:59")
        #expect(formatter.listTime(now - 60) == "11:59")
        #expect(copy.messageTime(now - 60) == "11:59")
        let today = formatter.labelDay
        // Still the same day: the same labels.
        clock.set(now + 11 * 3_600)
        #expect(formatter.labelDay == today)
        #expect(formatter.messageTime(now - 60) == "11:59")
        // The next day: yesterday's message says so, in both copies.
        clock.set(now + 12 * 3_600)
        #expect(formatter.labelDay == today + 86_400)
        #expect(formatter.messageTime(now - 60) == "Yesterday 11:59")
        #expect(copy.listTime(now - 60) == "Yesterday")
        // A clock set back (tests, a corrected system clock) is followed too.
        clock.set(now)
        #expect(copy.messageTime(now - 60) == "11:59")
    }
}

/// A clock a test moves.
private final class MovableClock: @unchecked Sendable {
    private let lock = NSLock()
    private var seconds: Int64

    init(_ seconds: Int64) { self.seconds = seconds }

    var date: Date { lock.withLock { Date(timeIntervalSince1970: TimeInterval(seconds)) } }

    func set(_ seconds: Int64) { lock.withLock { self.seconds = seconds } }
}
