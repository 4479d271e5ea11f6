"""Drives two Marmot app cores through libMarmotFFI with ctypes (stdlib only), as a Python host would.

Usage: python3 ffi_test.py <libMarmotFFI.so> <relay ws:// URL> <scratch dir>. Run by scripts/ffi-test.sh.
Checks: accounts, rev continuity over 200 actions, invitation accepted, messages both ways with the
delivery mark, error codes, and the installation secret passed as hex. Never prints the nsec.
"""
import ctypes
import json
import os
import sys
import threading
import time

CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p)


class Mirror:
    """The host-side AppManager: applies the next rev, drops stale, resyncs on a gap."""

    def __init__(self, lib, app, name):
        self.lib, self.app, self.name = lib, app, name
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.state = None
        self.gaps = self.stale = self.applied = 0
        self.account = None  # (npub, nsec), kept as a platform would keep it in secure storage
        self.callback = CALLBACK(self.on_update)  # must outlive the app
        with self.lock:  # no update is handled before the first snapshot is in place
            assert lib.marmot_app_set_listener(app, self.callback, None) == 0
            assert lib.marmot_app_set_listener(app, self.callback, None) == 8  # one listener only
            self.state = self.read_state()

    def read_state(self):
        raw = self.lib.marmot_app_state(self.app)
        try:
            return json.loads(ctypes.string_at(raw).decode())
        finally:
            self.lib.marmot_string_free(raw)

    def on_update(self, raw, _context):
        update = json.loads(raw.decode())
        with self.changed:
            assert update["schemaVersion"] == 1
            if update["type"] == "accountCreated":  # before the rev check
                self.account = (update["npub"], update["nsec"])
            rev = update["rev"]
            if rev <= self.state["rev"]:
                self.stale += 1
            elif rev == self.state["rev"] + 1:
                self.apply(update)
                self.applied += 1
            else:
                self.gaps += 1
                self.state = self.read_state()
            self.changed.notify_all()

    def apply(self, update):
        kind = update["type"]
        slices = {
            "routerChanged": "router", "authChanged": "auth", "chatListChanged": "chatList",
            "currentChatChanged": "currentChat", "toastChanged": "toast", "busyChanged": "busy",
            "networkChanged": "network", "invitesChanged": "invites",
        }
        if kind == "fullState":
            self.state = update["state"]
        elif kind == "outcomeChanged":
            self.state["lastOutcome"], self.state["toast"] = update["outcome"], update["toast"]
        elif kind in slices:
            self.state[slices[kind]] = update[slices[kind]]
        self.state["rev"] = update["rev"]

    def dispatch(self, action):
        code = self.lib.marmot_app_dispatch(self.app, json.dumps(action).encode())
        assert code == 0, f"{self.name}: dispatch {action['type']} -> {code}"

    def wait(self, what, predicate, timeout=30):
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                value = predicate(self.state)
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{self.name}: timed out waiting for {what}")
                self.changed.wait(left)


def load(path):
    lib = ctypes.CDLL(path)
    lib.marmot_schema_version.restype = ctypes.c_uint32
    lib.marmot_app_create.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                      ctypes.POINTER(ctypes.c_void_p)]
    lib.marmot_app_create.restype = ctypes.c_int32
    lib.marmot_app_state.argtypes = [ctypes.c_void_p]
    lib.marmot_app_state.restype = ctypes.c_void_p  # freed with marmot_string_free
    lib.marmot_app_dispatch.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.marmot_app_dispatch.restype = ctypes.c_int32
    lib.marmot_app_set_listener.argtypes = [ctypes.c_void_p, CALLBACK, ctypes.c_void_p]
    lib.marmot_app_set_listener.restype = ctypes.c_int32
    lib.marmot_error_message.argtypes = [ctypes.c_int32]
    lib.marmot_error_message.restype = ctypes.c_char_p
    lib.marmot_string_free.argtypes = [ctypes.c_void_p]
    lib.marmot_app_destroy.argtypes = [ctypes.c_void_p]
    return lib


def create(lib, directory, relay, secret_hex=None):
    app = ctypes.c_void_p()
    code = lib.marmot_app_create(directory.encode(), relay.encode(),
                                 secret_hex.encode() if secret_hex else None, ctypes.byref(app))
    assert code == 0, f"create -> {code} {lib.marmot_error_message(code)}"
    return app


def main():
    lib_path, relay, scratch = sys.argv[1:4]
    started = time.monotonic()
    lib = load(lib_path)
    assert lib.marmot_schema_version() == 1
    alice = Mirror(lib, create(lib, os.path.join(scratch, "alice"), relay, os.urandom(32).hex()), "alice")
    bob = Mirror(lib, create(lib, os.path.join(scratch, "bob"), relay), "bob")
    # The data folders are the owner's only, as the CLI's home (surface review N14).
    for name in ("alice", "bob"):
        mode = os.stat(os.path.join(scratch, name)).st_mode & 0o777
        assert mode == 0o700, f"{name}'s data folder is {oct(mode)}"

    assert lib.marmot_app_dispatch(alice.app, b"[1,2]") == 2
    assert lib.marmot_app_dispatch(alice.app, b'{"type":"openChat"}') == 5
    assert lib.marmot_app_dispatch(alice.app, b'{"type":"launchRocket"}') == 4

    for mirror in (alice, bob):
        mirror.dispatch({"schemaVersion": 1, "type": "createAccount"})
    for mirror in (alice, bob):
        mirror.wait("login and key package", lambda s: s["auth"]["type"] == "loggedIn"
                    and s["network"]["keyPackagePublished"])
        npub, nsec = mirror.account
        assert npub == mirror.state["auth"]["npub"] and nsec.startswith("nsec1")
    print(f"ffi_test.py: two accounts in {time.monotonic() - started:.2f}s")

    before = alice.state["rev"]
    for _ in range(100):
        alice.dispatch({"type": "pushScreen", "screen": {"type": "newChat"}})
        alice.dispatch({"type": "updateScreenStack", "screenStack": []})
    alice.wait("200 revs", lambda s: s["rev"] >= before + 200)
    assert alice.gaps == 0, "rev gap"
    print(f"ffi_test.py: 200 actions, revs {before + 1}..{alice.state['rev']} applied in order")

    alice.dispatch({"type": "createChat", "peerNpub": bob.account[0]})
    chat_a = alice.wait("chat open", lambda s: s["currentChat"] and s["currentChat"]["chatId"])
    invite = bob.wait("invitation", lambda s: s["invites"] and s["invites"][0]["inviteId"])
    bob.dispatch({"type": "acceptInvite", "inviteId": invite})
    chat_b = bob.wait("chat after accept", lambda s: not s["invites"] and s["currentChat"]
                      and s["currentChat"]["chatId"])
    alice.dispatch({"type": "sendMessage", "chatId": chat_a, "content": "hello from Python, alice"})
    bob.wait("alice's message", lambda s: any(m["content"] == "hello from Python, alice"
                                              for m in (s["currentChat"] or {}).get("messages", [])))
    alice.wait("sent mark", lambda s: any(m["isMine"] and m["delivery"]["type"] == "sent"
                                          for m in s["currentChat"]["messages"]))
    bob.dispatch({"type": "sendMessage", "chatId": chat_b, "content": "hello from Python, bob"})
    alice.wait("bob's message", lambda s: any(m["content"] == "hello from Python, bob"
                                              for m in (s["currentChat"] or {}).get("messages", [])))
    # The mirror built from updates equals the core's snapshot at the same rev.
    with alice.lock:
        snapshot = alice.read_state()
        if snapshot["rev"] == alice.state["rev"]:
            mirrored = dict(alice.state, schemaVersion=1)
            assert mirrored == snapshot, "mirror differs from snapshot"
    assert alice.gaps == 0 and bob.gaps == 0
    print(f"ffi_test.py: alice applied {alice.applied} (stale {alice.stale}), bob {bob.applied} "
          f"(stale {bob.stale}), no gaps")
    lib.marmot_app_destroy(alice.app)
    lib.marmot_app_destroy(bob.app)
    print(f"ffi_test.py: ok in {time.monotonic() - started:.2f}s")


if __name__ == "__main__":
    main()
