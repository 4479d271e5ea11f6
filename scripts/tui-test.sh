#!/usr/bin/env bash
# Drives the interactive `marmot` UI in a detached tmux session (80x24) and checks what it shows.
#
# Usage: scripts/tui-test.sh            (builds `marmot` if needed)
#   MARMOT_BIN=path/to/marmot            binary to run (default .build/debug/marmot)
#   MARMOT_TUI_ARGS="..."                arguments that start the interactive UI (default: none)
#   KEEP=1                               keep the temp homes and tmux server for inspection
#   TUI_CHAT=1                           also run the two-account chat over `marmot relay`
#   TUI_GROUP=1                          also run the three-account group over `marmot relay`
#
# Structure, for extending: `start NAME` runs marmot in its own tmux session with its own
# MARMOT_HOME; `send NAME KEY...` presses tmux keys (Enter, Escape, C-c, n, ...); `type_text NAME TEXT`
# types literal text; `wait_for NAME TEXT [TIMEOUT]` polls the screen until TEXT shows (fails with
# the screen printed), `wait_match` the same with a regex; `screen NAME` prints the pane;
# `start_relay` runs `marmot relay` and points later `start`s at it. Scenarios are functions named
# `scenario_*`, run in order by `main`.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MARMOT_BIN="${MARMOT_BIN:-$ROOT/.build/debug/marmot}"
MARMOT_TUI_ARGS="${MARMOT_TUI_ARGS:-}"
SOCKET="marmot-tui-test-$$"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/marmot-tui-test.XXXXXX")"
COLUMNS_TUI=80
ROWS_TUI=24

RESTORED_CHECK="stty -a | grep -Eq '(^| )icanon( |\$)' && stty -a | grep -Eq '(^| )echo( |\$)' && echo 'terminal restored'"

log() { printf '[tui-test] %s\n' "$*"; }
fail() {
    printf '[tui-test] FAIL: %s\n' "$*" >&2
    exit 1
}

cleanup() {
    if [[ "${KEEP:-0}" == 1 ]]; then
        log "kept: $WORK (tmux -L $SOCKET attach)"
        return
    fi
    tmux -L "$SOCKET" kill-server 2>/dev/null || true
    [[ -n "$RELAY_PID" ]] && kill "$RELAY_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

ensure_tools() {
    if ! command -v tmux >/dev/null 2>&1; then
        log "installing tmux"
        local sudo=""
        [[ $(id -u) -eq 0 ]] || sudo="sudo"
        $sudo apt-get install -y tmux >/dev/null || { $sudo apt-get update >/dev/null && $sudo apt-get install -y tmux >/dev/null; }
    fi
    if [[ ! -x "$MARMOT_BIN" ]]; then
        log "building marmot"
        (cd "$ROOT" && swift build --product marmot 2>&1 | grep -E "error|Build" || true)
    fi
    [[ -x "$MARMOT_BIN" ]] || fail "no marmot binary at $MARMOT_BIN"
}

# Extra VAR=value settings for every `start` (e.g. MARMOT_RELAYS=ws://...).
RUN_ENV=()
RELAY_PID=""

# home NAME: the MARMOT_HOME of instance NAME.
home() { printf '%s/%s' "$WORK" "$1"; }

# start NAME [EXTRA_ARGS...]: runs marmot for NAME in a detached 80x24 tmux session. When marmot
# exits, the pane stays and shows "marmot exited with N", then "terminal restored" if the tty is back
# in canonical mode with echo (the UI's raw mode was undone).
start() {
    local name="$1"
    shift
    mkdir -p "$(home "$name")"
    local command
    command="$(printf '%q ' env "MARMOT_HOME=$(home "$name")" TERM=xterm-256color "${RUN_ENV[@]}" \
        "$MARMOT_BIN" $MARMOT_TUI_ARGS "$@")"
    tmux -L "$SOCKET" -f /dev/null new-session -d -s "$name" -x "$COLUMNS_TUI" -y "$ROWS_TUI" \
        "$command; echo \"marmot exited with \$?\"; $RESTORED_CHECK; sleep 600"
    log "started $name (home $(home "$name"))"
}

# stop NAME: ends NAME's tmux session.
stop() { tmux -L "$SOCKET" kill-session -t "$1" 2>/dev/null || true; }

# screen NAME: the visible pane of NAME, as text.
screen() { tmux -L "$SOCKET" capture-pane -p -t "$1"; }

# send NAME KEY...: presses tmux keys in NAME (e.g. Enter Escape C-c Up PageUp n), with a short pause
# after each so a lone Escape is not merged with the next key.
send() {
    local name="$1"
    shift
    for key in "$@"; do
        tmux -L "$SOCKET" send-keys -t "$name" "$key"
        sleep 0.15
    done
}

# type_text NAME TEXT: types TEXT literally in NAME.
type_text() {
    tmux -L "$SOCKET" send-keys -t "$1" -l "$2"
    sleep 0.15
}

# poll_screen NAME SHOWN GREP_FLAG PATTERN TIMEOUT WHAT: waits until PATTERN is (SHOWN=yes) or is no
# longer (SHOWN=no) on NAME's screen; on timeout prints the screen and fails with WHAT.
poll_screen() {
    local name="$1" shown="$2" flag="$3" pattern="$4" timeout="$5" what="$6"
    local deadline=$((SECONDS + timeout))
    while ((SECONDS < deadline)); do
        if screen "$name" | grep -q "$flag" -- "$pattern"; then
            [[ "$shown" == yes ]] && return 0
        else
            [[ "$shown" == no ]] && return 0
        fi
        sleep 0.2
    done
    screen "$name" >&2 || true
    fail "$name: $what"
}

# wait_for NAME TEXT [TIMEOUT]: waits until TEXT is on NAME's screen (default 30 s).
wait_for() { poll_screen "$1" yes -F "$2" "${3:-30}" "'$2' not shown within ${3:-30}s"; }

# wait_match NAME REGEX [TIMEOUT]: like wait_for, with an extended regular expression (capture-pane
# drops trailing spaces, so anchor with $ rather than spaces).
wait_match() { poll_screen "$1" yes -E "$2" "${3:-30}" "/$2/ not shown within ${3:-30}s"; }

# wait_gone NAME TEXT [TIMEOUT]: waits until TEXT is no longer on NAME's screen.
wait_gone() { poll_screen "$1" no -F "$2" "${3:-30}" "'$2' still shown after ${3:-30}s"; }

# expect_absent NAME TEXT: fails if TEXT is on NAME's screen now.
expect_absent() {
    if screen "$1" | grep -qF -- "$2"; then
        screen "$1" >&2
        fail "$1: '$2' should not be shown"
    fi
}

# pid_of NAME: the process id of NAME's marmot (the child of the pane's shell).
pid_of() { pgrep -P "$(tmux -L "$SOCKET" display-message -p -t "$1" '#{pane_pid}')" | head -n 1; }

# npub_of NAME: the account npub NAME's chat list shows ("Your npub: npub1…").
npub_of() { screen "$1" | grep -o 'npub1[02-9ac-hj-np-z]\{58\}' | head -n 1; }

# --- scenarios ---------------------------------------------------------------------------------

scenario_create_account() {
    start alice
    wait_for alice "Create a new account"
    wait_for alice "c create"
    send alice c
    wait_for alice "Your npub: npub1"
    wait_for alice "No chats yet."
    ALICE_NPUB="$(npub_of alice)"
    [[ -n "$ALICE_NPUB" ]] || fail "no npub on alice's chat list"
    log "alice is $ALICE_NPUB"
    expect_absent alice "nsec1"
    # The nsec is stored under MARMOT_HOME, owner-only.
    local secret_files
    secret_files="$(grep -rl 'nsec1' "$(home alice)" 2>/dev/null || true)"
    [[ -n "$secret_files" ]] || fail "no file under alice's home holds the nsec"
    while read -r file; do
        [[ "$(stat -c %a "$file")" == 600 ]] || fail "$file is not mode 600"
    done <<<"$secret_files"
}

scenario_navigation() {
    send alice n
    wait_for alice "Start a chat"
    type_text alice "npub1bogus"
    send alice Enter
    wait_for alice "Invalid npub"
    send alice Escape
    wait_gone alice "Invalid npub"
    send alice Escape
    wait_for alice "Your npub: $ALICE_NPUB"
    expect_absent alice "Start a chat"
}

scenario_relays_and_name() {
    # R: the embedded relay, connected; a refused URL shows the core's reason on the screen.
    send alice R
    wait_for alice "Marmot · Relays"
    wait_match alice "^ > ws://127\.0\.0\.1:[0-9]+.* connected( · last event .*)?$" 30
    send alice a
    wait_for alice "Add relay:"
    type_text alice "http://nope"
    send alice Enter
    wait_for alice "! Not a relay address"
    send alice Escape
    wait_gone alice "Esc dismiss"
    send alice Escape
    wait_for alice "Your npub: $ALICE_NPUB"
    # P: the name is saved through the relay and shown.
    send alice P
    wait_for alice "Name: not set"
    type_text alice "Alice Tmux"
    send alice Enter
    wait_for alice "Name: Alice Tmux" 30
    send alice Escape
    wait_for alice "Your npub: $ALICE_NPUB"
}

scenario_quit_and_restore() {
    send alice q
    wait_for alice "marmot exited with 0" 15
    wait_for alice "terminal restored" 5
    stop alice
    start alice
    wait_for alice "Your npub: $ALICE_NPUB" 60
    expect_absent alice "Create a new account"
    send alice C-c
    wait_for alice "marmot exited with 0" 15
    wait_for alice "terminal restored" 5
    stop alice
}

scenario_sigterm_restores_terminal() {
    start alice
    wait_for alice "Your npub: $ALICE_NPUB" 60
    local pid
    pid="$(pid_of alice)"
    [[ -n "$pid" ]] || fail "no marmot process for alice"
    kill -TERM "$pid"
    wait_for alice "marmot exited with" 15
    wait_for alice "terminal restored" 5
    stop alice
}

# start_relay: runs `marmot relay` on a free loopback port (in memory) and points every later
# `start` at it through MARMOT_RELAYS.
start_relay() {
    "$MARMOT_BIN" relay --port 0 --memory --log-level error >"$WORK/relay.out" 2>"$WORK/relay.err" &
    RELAY_PID=$!
    local deadline=$((SECONDS + 30)) url=""
    while ((SECONDS < deadline)); do
        url="$(head -n 1 "$WORK/relay.out" 2>/dev/null || true)"
        [[ "$url" == ws://* ]] && break
        sleep 0.2
    done
    [[ "$url" == ws://* ]] || fail "marmot relay did not print its URL"
    RUN_ENV=("MARMOT_RELAYS=$url")
    log "relay at $url"
}

# Alice and Bob each create an account; Alice starts a chat with Bob's npub and writes; Bob sees
# Alice's invitation (and nothing of the chat) at the top of his list, accepts it with `a`, and the
# core opens the chat with Alice's message; Bob answers; Alice sees the answer.
scenario_chat() {
    start_relay
    start alice2
    start bob
    wait_for alice2 "c create"
    wait_for bob "c create"
    send alice2 c
    send bob c
    wait_for alice2 "Your npub: npub1" 60
    wait_for bob "Your npub: npub1" 60
    local bob_npub
    bob_npub="$(npub_of bob)"
    log "bob is $bob_npub"

    send alice2 n
    wait_for alice2 "Start a chat"
    type_text alice2 "$bob_npub"
    send alice2 Enter
    wait_for alice2 "No messages yet. Type below" 60
    type_text alice2 "hello bob"
    send alice2 Enter
    wait_for alice2 "hello bob"
    wait_for alice2 "✓" 60

    # The invitation comes first, highlighted, with how to answer it; the chat is not joined yet.
    wait_for bob "Invitations (1)" 60
    wait_match bob "^ > ✉ npub1.* invites you to a chat"
    wait_for bob "a accept · d decline"
    wait_for bob "a accept  d decline"
    expect_absent bob "hello bob"
    send bob a
    # Accepting joins the chat and the core opens it, with Alice's message.
    wait_for bob "Esc back" 60
    wait_for bob "hello bob" 60
    expect_absent bob "Invitations"
    type_text bob "hi alice"
    send bob Enter
    wait_for bob "✓" 60
    wait_for alice2 "hi alice" 60
    send bob Escape
    wait_for bob "You: hi alice"
    expect_absent bob "Invitations"
}

# Alice, Bob and Carol each create an account over one relay; Alice creates the group "Climbing" with
# Bob and Carol on the New Group screen (N, name, Tab, npubs, Enter); Bob and Carol accept the
# invitations with `a`; messages go around; Bob's Group Info offers only leave; Alice renames the group
# from Group Info (Ctrl-G, n) and Bob's screen shows the new name.
scenario_group() {
    [[ -n "$RELAY_PID" ]] || start_relay
    local started=$SECONDS
    start galice
    start gbob
    start gcarol
    for name in galice gbob gcarol; do wait_for "$name" "c create"; done
    for name in galice gbob gcarol; do send "$name" c; done
    for name in galice gbob gcarol; do wait_for "$name" "Your npub: npub1" 60; done
    local bob_npub carol_npub
    bob_npub="$(npub_of gbob)"
    carol_npub="$(npub_of gcarol)"
    [[ -n "$bob_npub" && -n "$carol_npub" ]] || fail "no npub on bob's or carol's chat list"

    send galice N
    wait_for galice "Start a group"
    type_text galice "Climbing"
    send galice Tab
    type_text galice "$bob_npub, $carol_npub"
    wait_for galice "2 npubs typed"
    send galice Enter
    wait_for galice "Climbing (3 members)" 60
    wait_for galice "^G group info"

    for name in gbob gcarol; do
        wait_for "$name" "Invitations (1)" 60
        wait_match "$name" "^ > ✉ npub1.* invites you to"
        send "$name" a
        wait_for "$name" "Climbing (3 members)" 60
    done

    type_text galice "hello group"
    send galice Enter
    wait_for gbob "hello group" 60
    wait_for gcarol "hello group" 60
    type_text gbob "hi from bob"
    send gbob Enter
    wait_for galice "hi from bob" 60
    wait_for gcarol "hi from bob" 60

    # Bob is no admin: his Group Info lists the members and offers only leaving.
    send gbob C-g
    wait_for gbob "Climbing · Info"
    wait_for gbob "(you)"
    wait_for gbob "l leave  Esc back"
    expect_absent gbob "a add"
    send gbob Escape
    wait_for gbob "^G group info"

    send galice C-g
    wait_for galice "Climbing · Info"
    wait_for galice "admin (you)"
    wait_for galice "$bob_npub"
    wait_for galice "$carol_npub"
    wait_for galice "n rename"
    send galice n
    wait_for galice "New name:"
    type_text galice "Summit"
    send galice Enter
    wait_for galice "Summit · Info" 60
    wait_for gbob "Summit (3 members)" 60
    wait_for gcarol "Summit (3 members)" 60
    log "group scenario took $((SECONDS - started)) s"
}

main() {
    ensure_tools
    scenario_create_account
    scenario_navigation
    scenario_relays_and_name
    scenario_quit_and_restore
    scenario_sigterm_restores_terminal
    if [[ "${TUI_CHAT:-0}" == 1 ]]; then scenario_chat; fi
    if [[ "${TUI_GROUP:-0}" == 1 ]]; then scenario_group; fi
    log "PASS"
}

main "$@"
