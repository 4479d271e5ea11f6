#!/usr/bin/env python3
"""mlsrs_group_bench.py - mls-rs (AWS, PyPI agentvault-mls-rs-uniffi) beside `marmot-bench groups`.

The same group operations as Sources/MarmotBench/GroupChatBench.swift, at the same sizes, with
mls-rs's uniffi bindings: cipher suite 1 (X25519, AES-128-GCM, SHA-256, Ed25519), the group state in
memory (its default storage), no Marmot layer. Only the admin and one member are real clients; the
other members exist as KeyPackages. Prints one table, same columns, median ms, then one line
`mls-rs-json {...}` with the medians in ms by size, for the Swift side's ratios.

mls-rs keeps a group as a mutable object: an operation cannot be replayed from one state, so runs
follow each other (add k, then remove k; update, then process it; ...). A commit is applied by its
creator processing it (mls-rs keeps it pending until then); "create" includes that.

Usage: python mlsrs_group_bench.py [--sizes 2,10,50,200] [--budget SECONDS]
Run with the interop venv's python (.venv-interop or $MDK_VENV).
"""
import argparse
import json
import sys

from group_bench_common import median_ms, run_sizes, runs_for, timed

try:
    from mls_rs_uniffi import CipherSuite, Client, client_config_default, generate_signature_keypair
except Exception as exc:  # noqa: BLE001
    print(f"mls-rs bench: cannot import mls_rs_uniffi: {exc}", file=sys.stderr)
    sys.exit(2)

TEXT = b"a" * 100  # a 100-byte message, as ours
COLUMNS = ["create", "join", "add", "remove", "update_create", "update_process", "message"]


def client(name):
    keys = generate_signature_keypair(CipherSuite.CURVE25519_AES128)
    return Client(name.encode(), keys, client_config_default())


def commit_and_apply(group, make):
    """A commit made by `group` and applied there (mls-rs applies its own commit when processing it)."""
    output = make()
    group.process_incoming_message(output.commit_message)
    return output


def measure(size):
    runs = runs_for(size)
    admin = client("admin")
    members = [client(f"m{i}") for i in range(1, size)]

    # Create: the group with its Add commit for every invitee, applied. A new group each run.
    create_t, group, output = [], None, None
    for _ in range(runs):
        packages = [m.generate_key_package_message() for m in members]

        def create():
            g = admin.create_group(None)
            return g, commit_and_apply(g, lambda: g.add_members(packages))
        t, (group, output) = timed(create)
        create_t.append(t)

    # Join: the first invitee opens the Welcome (the last group's; mls-rs's KeyPackages are single use).
    t, joined = timed(lambda: members[0].join_group(output.ratchet_tree, output.welcome_message))
    join_t = [t]
    member = joined.group

    # Add one, then remove it: commit by the admin (applied), processed by the member.
    newcomer = client("newcomer")
    add_t, remove_t = [], []
    for _ in range(runs):
        package = newcomer.generate_key_package_message()

        def add():
            out = commit_and_apply(group, lambda: group.add_members([package]))
            member.process_incoming_message(out.commit_message)
        add_t.append(timed(add)[0])

        def remove():
            out = commit_and_apply(group, lambda: group.remove_members([newcomer.signing_identity()]))
            member.process_incoming_message(out.commit_message)
        remove_t.append(timed(remove)[0])

    # Self-update: an empty commit with a path by the admin (applied), processed by the member.
    upd_c, upd_p = [], []
    for _ in range(runs):
        t, out = timed(lambda: commit_and_apply(group, group.commit))
        upd_c.append(t)
        upd_p.append(timed(lambda: member.process_incoming_message(out.commit_message))[0])

    # One 100-byte message: encrypted by the admin, decrypted by the member.
    msg_t = []
    for _ in range(runs * 5):
        def message():
            received = member.process_incoming_message(group.encrypt_application_message(TEXT))
            if not received.is_APPLICATION_MESSAGE():
                raise RuntimeError("message not decrypted")
        msg_t.append(timed(message)[0])

    return [median_ms(v) for v in (create_t, join_t, add_t, remove_t, upd_c, upd_p, msg_t)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="2,10,50,200")
    ap.add_argument("--budget", type=float, default=150.0, help="seconds for the whole run")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    rows = run_sizes(sizes, args.budget, measure, "mls-rs")
    print("mls-rs-json " + json.dumps({str(s): dict(zip(COLUMNS, row)) for s, row in rows.items()}))


if __name__ == "__main__":
    main()
