#!/usr/bin/env bash
# Fails when a renderer decides what the core should decide (issue 16: the core decides, the renderers
# render). Renderers: the TUI and CLI (Sources/MarmotCLI), the app manager (Sources/MarmotAppKit/Manager)
# and the SwiftUI app (Apps/iOS/Marmot). The core (Sources/MarmotCore) is not checked: timers and rules
# belong there.
#
# Rules (grep level):
#  1. No timers: `Task.sleep`, `Timer`, `asyncAfter`. Allowlist: a line that says why with the marker
#     `renderer-check: allow (<reason>)`. Today: the TUI's frame tick (spinner, resize), the CLI's wait
#     deadline (StateWatch) and `listen --timeout` — waits for state or for the user, never policy.
#  2. No string matching on toast text (`toast….hasPrefix/contains/lowercased/==`, `ToastError`): decide
#     from `AppState.lastOutcome.code`.
#  3. No page sizes in renderers: `loadOlderMessages(` (use `loadOlder(chatID:)`), `pageSize`.
#  4. No npub shortening in renderers: `DisplayFormatter(`, `.prefix(9)` (use `AuthState.shortNpub`).
#  5. No behaviour rules built from counts in views and key maps: `.count > 0 &&`, `isEmpty ||`,
#     `|| x.isEmpty`, `&& !x.isEmpty` inside `.disabled(`, and `trimmingCharacters` (the core trims)
#     in Apps/iOS/Marmot and Sources/MarmotCLI/TUI.
#
# What it cannot enforce: a rule re-implemented in another shape (a `switch` on busy flags, a
# comparison of message ids, a hand-made retry condition), layout decisions that look like rules, or
# a renderer reading state it should not (e.g. a view opening the Keychain). Reviews still matter.
#
# Usage: scripts/check-renderers.sh [repo-root]   Exit status: 0 clean, 1 violations.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
cd "$root"

renderers=(Sources/MarmotCLI Sources/MarmotAppKit/Manager Apps/iOS/Marmot)
views=(Apps/iOS/Marmot Sources/MarmotCLI/TUI)
status=0

# check <description> <extended regex> <paths...>: prints offending lines (minus allowlisted ones).
check() {
    local what="$1" pattern="$2"
    shift 2
    local hits
    hits="$(grep -rnE --include='*.swift' "$pattern" "$@" 2>/dev/null | grep -v 'renderer-check: allow (' || true)"
    if [[ -n "$hits" ]]; then
        echo "check-renderers: $what:" >&2
        echo "$hits" | sed 's/^/  /' >&2
        status=1
    fi
}

check "timer in a renderer (the core owns timers; allowlist with 'renderer-check: allow (reason)')" \
    'Task\.sleep|(^|[^A-Za-z])Timer[.(]|asyncAfter' "${renderers[@]}"
check "string matching on toast text (decide from lastOutcome.code)" \
    'toast[A-Za-z?!]*\.(hasPrefix|hasSuffix|contains|lowercased|range\(of|starts\(with)|toast[?!]? *== *"|ToastError' \
    "${renderers[@]}"
check "page size chosen by a renderer (dispatch loadOlder(chatID:))" \
    'loadOlderMessages\(|pageSize' "${renderers[@]}"
check "npub shortened by a renderer (use AuthState.shortNpub / the core's display names)" \
    'DisplayFormatter\(|\.prefix\(9\)' "${renderers[@]}"
check "behaviour rule built from counts in a view (ask the core: canSend, canLogin, canCreateChat, …)" \
    '\.count *> *0 *&&|\.disabled\([^)]*(isEmpty *(\|\||&&)|(\|\||&&) *!?[A-Za-z.]*\.isEmpty)' "${views[@]}"
check "input trimmed by a view (the core trims)" 'trimmingCharacters' "${views[@]}"

if [[ $status -eq 0 ]]; then echo "check-renderers: ok"; fi
exit $status
