#!/usr/bin/env python3
"""mdk_group_bench.py - MDK 0.8.0 (mdk-python) beside `marmot-bench groups`.

The same group operations as Sources/MarmotBench/GroupChatBench.swift, at the same sizes, with one
MDK instance per member, each on its own encrypted SQLite store in a temp directory (MDK writes its
state on every operation, as our side writes to its encrypted store). In process, no relay: events
and rumors are handed between instances directly. Prints one table, same columns, median ms.

MDK keeps its groups in its store, not as values, so an operation cannot be replayed from one
state: runs follow each other (add k, then remove k; update, then process it; ...).

Usage: python mdk_group_bench.py [--sizes 2,10,50,200] [--budget SECONDS]
Run with the interop venv's python (.venv-interop or $MDK_VENV). Stores go under $TMPDIR: on a
real disk MDK's figures are mostly fsync waits (its SQLite commits); TMPDIR=/dev/shm shows the CPU
cost alone (`TMPDIR=/dev/shm .build/release/marmot-bench groups` does it for both sides).
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

from group_bench_common import median_ms, run_sizes, runs_for, timed

try:
    from mdk import new_mdk_with_key
    from nostr_sdk import EventBuilder, Keys, Kind, Tag, UnsignedEvent
except Exception as exc:  # noqa: BLE001
    print(f"mdk bench: cannot import mdk / nostr_sdk: {exc}", file=sys.stderr)
    sys.exit(2)

RELAY = "ws://127.0.0.1:7777"
KIND_KEY_PACKAGE = 30443
KIND_CHAT = 9
TEXT = "a" * 100  # a 100-byte message, as ours


class Member:
    """One MDK instance on its own encrypted store, with a Nostr identity."""

    def __init__(self, root, name):
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir)
        self.keys = Keys.generate()
        self.pk = self.keys.public_key().to_hex()
        self.mdk = new_mdk_with_key(os.path.join(self.dir, "mdk.sqlite3"), os.urandom(32), None)

    def key_package_event(self):
        """A signed kind-30443 KeyPackage event (JSON), as published to relays."""
        kp = self.mdk.create_key_package_for_event(self.pk, [RELAY])
        ev = (EventBuilder(Kind(KIND_KEY_PACKAGE), kp.key_package)
              .tags([Tag.parse(t) for t in kp.tags]).finalize(self.keys))
        return ev.id().to_hex(), ev.as_json()




def rumor_for(rumors, kp_event_id, index):
    """The Welcome rumor addressed to the key package `kp_event_id` (by its e tag, else by order)."""
    for r in rumors:
        for tag in json.loads(r).get("tags", []):
            if len(tag) >= 2 and tag[0] == "e" and tag[1] == kp_event_id:
                return r
    return rumors[index] if len(rumors) > index else rumors[0]


def with_id(rumor_json):
    rumor = UnsignedEvent.from_json(rumor_json)
    if rumor.id() is None:
        rumor = rumor.ensure_id()
    return rumor.as_json()


def measure(size, root):
    runs = runs_for(size)
    creator = Member(root, "creator")
    invitees = [Member(root, f"m{i}") for i in range(1, size)]
    kps = [m.key_package_event() for m in invitees]

    # Create: the group with its Add commit for every invitee (MDK merges it itself), stored.
    # Each run makes a new group with the same key packages; the last one is used below.
    create_t, res = [], None
    for _ in range(runs):
        t, res = timed(lambda: creator.mdk.create_group(
            creator.pk, [k[1] for k in kps], f"bench {size}", "", [RELAY], [creator.pk]))
        create_t.append(t)
    gid = res.group.mls_group_id
    rumors = res.welcome_rumors_json

    # Join: one invitee processes and accepts its Welcome (a different invitee each run).
    join_t = []
    for i, (member, (kp_id, _)) in enumerate(zip(invitees[:runs], kps[:runs])):
        rumor = with_id(rumor_for(rumors, kp_id, i))
        wrapper_id = os.urandom(32).hex()  # the gift wrap's id (no relay, no wrap)

        def join():
            welcome = member.mdk.process_welcome(wrapper_id, rumor)
            member.mdk.accept_welcome(welcome)
        join_t.append(timed(join)[0])
    member = invitees[0]

    # Add one, then remove it: commit by the admin (merged), processed by the member.
    newcomer = Member(root, "newcomer")
    add_t, remove_t = [], []
    for _ in range(runs):
        _, kp = newcomer.key_package_event()

        def add():
            r = creator.mdk.add_members(gid, [kp])
            creator.mdk.merge_pending_commit(gid)
            member.mdk.process_message(r.evolution_event_json)
        add_t.append(timed(add)[0])

        def remove():
            r = creator.mdk.remove_members(gid, [newcomer.pk])
            creator.mdk.merge_pending_commit(gid)
            member.mdk.process_message(r.evolution_event_json)
        remove_t.append(timed(remove)[0])

    # Self-update: created and merged by the admin, then processed by the member.
    upd_c, upd_p = [], []
    for _ in range(runs):
        def update():
            r = creator.mdk.self_update(gid)
            creator.mdk.merge_pending_commit(gid)
            return r.evolution_event_json
        t, ev = timed(update)
        upd_c.append(t)
        upd_p.append(timed(lambda: member.mdk.process_message(ev))[0])

    # One 100-byte message: encrypted by the admin (kind-445 event), decrypted by the member.
    msg_t = []
    for _ in range(runs * 5):
        def message():
            ev = creator.mdk.create_message(gid, creator.pk, TEXT, KIND_CHAT, None, None)
            r = member.mdk.process_message(ev)
            if not r.is_APPLICATION_MESSAGE():
                raise RuntimeError("message not decrypted")
        msg_t.append(timed(message)[0])

    return [median_ms(v) for v in (create_t, join_t, add_t, remove_t, upd_c, upd_p, msg_t)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="2,10,50,200")
    ap.add_argument("--budget", type=float, default=150.0, help="seconds for the whole run")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]


    def measure_in_folder(size):
        root = tempfile.mkdtemp(prefix=f"mdk-bench-{size}-")
        try:
            return measure(size, root)
        finally:
            shutil.rmtree(root, ignore_errors=True)

    run_sizes(sizes, args.budget, measure_in_folder, "MDK")

if __name__ == "__main__":
    main()
