import MarmotCore

/// The open chat's messages laid out as lines: the peer's bubbles on the left, this account's on the
/// right, each followed by a line with the core's time label and, for own messages, the delivery mark.
///
/// Shared by the renderer and the key map, so paging and "load older" agree with what is on screen.
struct ChatTranscript: Equatable {
    var lines: [StyledLine]
    /// Lines of each message, by message id.
    var ranges: [MessageID: Range<Int>]

    /// Lays out `chat` for a screen `width` cells wide, highlighting `selected`.
    init(chat: ChatViewState, width: Int, selected: MessageID?) {
        var lines: [StyledLine] = []
        var ranges: [MessageID: Range<Int>] = [:]
        if chat.canLoadOlder {
            lines.append(StyledLine("↑ older messages: PgUp to load", .dim).centered(in: width))
        } else if !chat.messages.isEmpty {
            lines.append(StyledLine("· start of the conversation ·", .dim).centered(in: width))
        }
        if chat.messages.isEmpty {
            lines.append(StyledLine("No messages yet. Type below and press Enter.", .dim).centered(in: width))
        }
        let bubbleWidth = Self.bubbleWidth(for: width)
        for message in chat.messages {
            let start = lines.count
            lines +=
                message.kind == .system
                ? Self.systemLine(message, width: width, selected: message.id == selected)
                : Self.bubble(message, width: width, bubbleWidth: bubbleWidth, selected: message.id == selected)
            ranges[message.id] = start..<lines.count
        }
        self.lines = lines
        self.ranges = ranges
    }

    /// Text columns of a bubble: three quarters of the screen, at least 8.
    static func bubbleWidth(for width: Int) -> Int {
        max(min(8, width), min(width - 2, width * 3 / 4))
    }

    /// A system line (membership change): the core's wording and time, centred and dim, without
    /// bubble, sender or delivery mark.
    private static func systemLine(_ message: ChatMessage, width: Int, selected: Bool) -> [StyledLine] {
        var style = TextStyle.dim
        if selected { style.reverse = true }
        let inner = max(width - 1, 1)
        let time = TextWidth.sanitized(message.displayTimestamp)
        let text = TextWidth.sanitized(message.content) + (time.isEmpty ? "" : " · \(time)")
        return TextWidth.wrapped("· \(text) ·", width: max(inner - 2, 1)).map { line in
            StyledLine([Span(selected ? "▌" : " ", .bold)] + StyledLine(line, style).centered(in: inner).spans)
        }
    }

    /// A message's lines: column 0 is a gutter marking the highlighted message (visible without
    /// colour too), then the text block, left for the peer and right for this account, then its
    /// time and delivery lines.
    private static func bubble(_ message: ChatMessage, width: Int, bubbleWidth: Int, selected: Bool) -> [StyledLine] {
        var style: TextStyle = message.isMine ? .color(.green) : message.mentionsMe ? .color(.yellow, bold: true) : .color(.cyan)
        if selected { style.reverse = true }
        let gutter = Span(selected ? "▌" : " ", .bold)
        let inner = max(width - 1, 1)
        var lines: [StyledLine] = []
        // A reply quotes its target (or says it is not available) above the text.
        if let quote = message.replyTo {
            let who = quote.senderDisplay.isEmpty ? "" : "\(quote.senderDisplay): "
            let quoted = TextWidth.wrapped("↳ \(who)\(TextWidth.sanitized(quote.text))", width: bubbleWidth).prefix(2)
            for line in quoted {
                lines.append(place(StyledLine(line, .dim), mine: message.isMine, gutter: gutter, inner: inner, margin: 1))
            }
        }
        // A file sent without a caption shows only its attachment line.
        let text = message.content.isEmpty && !message.attachments.isEmpty ? [] : TextWidth.wrapped(message.content, width: bubbleWidth)
        let blockWidth = text.map { TextWidth.of($0) }.max() ?? 0
        lines += text.map { line -> StyledLine in
            let padding = String(repeating: " ", count: blockWidth - TextWidth.of(line))
            return place(StyledLine(" \(line)\(padding) ", style), mine: message.isMine, gutter: gutter, inner: inner)
        }
        // Pictures and files: one line each (name, type, size, state); ^O saves the first.
        for file in message.attachments {
            let state = file.stateText.isEmpty ? "" : " · \(file.stateText)"
            for line in TextWidth.wrapped("📎 \(TextWidth.sanitized(file.label))\(state)", width: bubbleWidth).prefix(2) {
                lines.append(place(StyledLine(line, .color(.magenta)), mine: message.isMine, gutter: gutter, inner: inner, margin: 1))
            }
        }
        for meta in metaLines(message, selected: selected, width: bubbleWidth) {
            lines.append(place(meta, mine: message.isMine, gutter: gutter, inner: inner, margin: 1))
        }
        return lines
    }

    private static func place(_ line: StyledLine, mine: Bool, gutter: Span, inner: Int, margin: Int = 0) -> StyledLine {
        let placed =
            mine
            ? line.rightAligned(in: inner, margin: margin)
            : StyledLine([Span(String(repeating: " ", count: 1 + margin))] + line.spans)
        return StyledLine([gutter] + placed.spans)
    }

    /// The time label and, for own messages, the delivery mark; a failure's reason follows on lines
    /// of its own, wrapped to the bubble.
    private static func metaLines(_ message: ChatMessage, selected: Bool, width: Int) -> [StyledLine] {
        let edited = message.editedMark.isEmpty ? "" : " · \(message.editedMark)"
        let time = Span(TextWidth.sanitized(message.displayTimestamp) + edited, .dim)
        // Reactions under the bubble: "👍 2  ❤️ 1", ours in bold.
        let reactions: [StyledLine] =
            message.reactions.isEmpty
            ? []
            : [StyledLine(message.reactions.enumerated().map { index, reaction in
                Span((index == 0 ? "" : "  ") + TextWidth.sanitized(reaction.label), reaction.includesMe ? .bold : .dim)
            })]
        if let invalidated = message.invalidatedLabel {
            return reactions + [StyledLine([time, Span(" · " + invalidated, .color(.yellow))])]
        }
        let mark = message.deliveryMark
        guard !mark.isEmpty else { return reactions + [StyledLine([time])] }
        return reactions + deliveryLines(message, time: time, mark: mark, selected: selected, width: width)
    }

    private static func deliveryLines(
        _ message: ChatMessage, time: Span, mark: String, selected: Bool, width: Int
    ) -> [StyledLine] {
        switch message.delivery {
        case .pending:
            return [StyledLine([time, Span(" · \(mark)", .dim)])]
        case .sent:
            return [StyledLine([time, Span(" \(mark)", .color(.green))])]
        case .failed:
            var first = [time, Span(" \(mark)", .color(.red, bold: true))]
            if selected && message.canRetry { first.append(Span(" · r: retry", .color(.red, bold: true))) }
            let reasons = TextWidth.wrapped(message.failureReason ?? "", width: width).filter { !$0.isEmpty }
            return [StyledLine(first)] + reasons.map { StyledLine($0, .color(.red)) }
        }
    }

    /// The first line to show in a viewport of `height` lines.
    ///
    /// With a highlighted message the viewport moves just enough to show it; otherwise it sits
    /// `scroll` lines above the newest line (clamped). Returns the start and the scroll it amounts to.
    func window(height: Int, scroll: Int, selected: MessageID?) -> (start: Int, scroll: Int) {
        let maxStart = max(lines.count - height, 0)
        var start = maxStart - min(max(scroll, 0), maxStart)
        if let selected, let range = ranges[selected] {
            if range.lowerBound < start { start = range.lowerBound }
            if range.upperBound > start + height { start = min(range.upperBound - height, maxStart) }
            start = max(start, 0)
        }
        return (start, maxStart - start)
    }

    /// Whether the viewport at `scroll` already shows the first line.
    func isAtTop(height: Int, scroll: Int) -> Bool {
        window(height: height, scroll: scroll, selected: nil).start == 0
    }
}
