#!/usr/bin/env python3
"""rust-nostr (nostr-sdk) peer for the relay interop tests of NostrClient/NostrRelay.

Prints JSON lines on stdout, diagnostics on stderr. Loopback relays only.

  publish URL [--recipient HEX] [--group HEX]
      Publishes one event each of kinds 1, 443, 1059 (a real NIP-59 gift wrap
      to RECIPIENT, or to a fresh key), 445 (tag h GROUP) and prints
      {"id", "kind", "accepted", "reason"} per event, then {"done": true}.
      Exit 0 iff every event was accepted.

  receive URL --ids ID,ID,... [--timeout S]
      Subscribes to kinds 1, 443, 1059, 445 (no "since": gift wraps are
      back-dated), prints {"ready": true} once subscribed, then
      {"id", "kind", "valid"} for every wanted event received (stored or live),
      and finally {"done": true, "missing": [...]}. Exit 0 iff none missing.
"""
import argparse
import asyncio
import json
import sys
from datetime import timedelta

from nostr_sdk import (Client, EventBuilder, Filter, Keys, Kind, PublicKey,
                       RelayUrl, ReqTarget, Tag, UnsignedEvent,
                       nip59_make_gift_wrap)

KINDS = [1, 443, 1059, 445]


def emit(obj):
    print(json.dumps(obj), flush=True)


async def connect(url, timeout=5.0):
    client = Client()
    notifications = client.notifications()  # before connecting: miss nothing
    await client.add_relay(RelayUrl.parse(url))
    await client.connect(timedelta(seconds=timeout))
    return client, notifications


async def shutdown(client):
    try:
        await asyncio.wait_for(client.shutdown(), timeout=3)
    except Exception:  # noqa: BLE001
        pass


async def publish(args):
    keys = Keys.generate()
    recipient = (PublicKey.parse(args.recipient) if args.recipient
                 else Keys.generate().public_key())
    group = args.group or "ab" * 32
    events = [
        EventBuilder(Kind(1), "hello from nostr-sdk").finalize(keys),
        EventBuilder(Kind(443), "AAEAAQ==").tags([
            Tag.parse(["mls_protocol_version", "1.0"]),
            Tag.parse(["mls_ciphersuite", "0x0001"]),
            Tag.parse(["encoding", "base64"]),
        ]).finalize(keys),
        nip59_make_gift_wrap(keys, recipient, UnsignedEvent.from_json(json.dumps({
            "pubkey": keys.public_key().to_hex(), "created_at": 1_700_000_000,
            "kind": 14, "tags": [], "content": "rumor"}))),
        EventBuilder(Kind(445), "Y2lwaGVydGV4dA==").tags([
            Tag.parse(["h", group]), Tag.parse(["encoding", "base64"]),
        ]).finalize(keys),
    ]
    client, _ = await connect(args.url)
    ok = True
    try:
        for event in events:
            out = await client.send_event(event)
            accepted = bool(out.success) and not out.failed
            ok = ok and accepted
            emit({"id": event.id().to_hex(), "kind": event.kind().as_u16(),
                  "accepted": accepted, "reason": str(out.failed) if out.failed else ""})
    finally:
        await shutdown(client)
    emit({"done": True})
    return 0 if ok else 1


async def receive(args):
    wanted = {i for i in args.ids.split(",") if i}
    got = set()
    client, notifications = await connect(args.url)

    def take(event):
        eid = event.id().to_hex()
        if eid in wanted and eid not in got:
            got.add(eid)
            emit({"id": eid, "kind": event.kind().as_u16(), "valid": event.verify()})

    try:
        filt = Filter.from_json(json.dumps({"kinds": KINDS}))
        out = await client.subscribe(ReqTarget.auto([filt]), None)
        if out.failed or not out.success:
            emit({"error": f"subscribe failed: {out.failed}"})
            return 1
        emit({"ready": True})
        loop = asyncio.get_running_loop()
        deadline = loop.time() + args.timeout
        while got != wanted:
            left = deadline - loop.time()
            if left <= 0:
                break
            try:
                n = await asyncio.wait_for(notifications.next(), timeout=left)
            except asyncio.TimeoutError:
                break
            if n is None or n.is_SHUTDOWN():
                break
            if n.is_NEW_EVENT():
                take(n.event)
    finally:
        await shutdown(client)
    missing = sorted(wanted - got)
    emit({"done": True, "missing": missing})
    return 0 if not missing else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("publish")
    p.add_argument("url")
    p.add_argument("--recipient")
    p.add_argument("--group")
    r = sub.add_parser("receive")
    r.add_argument("url")
    r.add_argument("--ids", required=True)
    r.add_argument("--timeout", type=float, default=10.0)
    args = ap.parse_args()
    if not args.url.startswith(("ws://127.0.0.1:", "ws://localhost:")):
        print("nostr_sdk_peer: loopback relays only", file=sys.stderr)
        return 2
    return asyncio.run(publish(args) if args.cmd == "publish" else receive(args))


if __name__ == "__main__":
    sys.exit(main())
