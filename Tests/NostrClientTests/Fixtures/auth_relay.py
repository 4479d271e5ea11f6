#!/usr/bin/env python3
"""rust-nostr's LocalRelay with NIP-42 authentication, on loopback, for tests (issue 44).

Usage: auth_relay.py --mode auth_dm|both|read|write [--port N]

  auth_dm  serves kind-1059 gift wraps only to a connection authenticated as their
           `p` recipient (what NIP-17 inbox relays do); everything else is open.
  both     requires AUTH for every REQ and EVENT (private and paid relays);
  read / write   only for reads or writes.

Prints its ws:// URL on stdout once it accepts connections (nothing else on
stdout) and runs until SIGTERM/SIGINT. Events are kept in memory. Rate and
filter limits are raised so chatty tests are not throttled.
"""
import argparse
import asyncio
import signal
import socket
import sys
import time

HOST = "127.0.0.1"


def pick_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def listening(port):
    try:
        with socket.create_connection((HOST, port), timeout=0.2):
            return True
    except OSError:
        return False


async def run(mode, port, ready_timeout):
    from nostr_sdk import (LocalRelayBuilder, LocalRelayBuilderNip42,
                           LocalRelayBuilderNip42Mode, RateLimit)

    builder = (LocalRelayBuilder()
               .addr(HOST)
               .port(port)
               .rate_limit(RateLimit(max_reqs=1000, notes_per_minute=1_000_000))
               .default_filter_limit(10000)
               .max_filter_limit(10000))
    if mode == "auth_dm":
        builder = builder.auth_dm(True)
    else:
        nip42_mode = {"both": LocalRelayBuilderNip42Mode.BOTH,
                      "read": LocalRelayBuilderNip42Mode.READ,
                      "write": LocalRelayBuilderNip42Mode.WRITE}[mode]
        builder = builder.nip42(LocalRelayBuilderNip42(mode=nip42_mode))
    relay = builder.build()
    await relay.run()
    deadline = time.monotonic() + ready_timeout
    while not listening(port):
        if time.monotonic() > deadline:
            print(f"auth_relay: not listening on {HOST}:{port}", file=sys.stderr)
            return 1
        await asyncio.sleep(0.02)
    print(f"ws://{HOST}:{port}", flush=True)

    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, done.set)
    await done.wait()
    relay.shutdown()
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["auth_dm", "both", "read", "write"], required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ready-timeout", type=float, default=10.0)
    args = parser.parse_args()
    port = args.port or pick_port()
    if listening(port):
        print(f"auth_relay: port {port} is already in use", file=sys.stderr)
        return 1
    return asyncio.run(run(args.mode, port, args.ready_timeout))


if __name__ == "__main__":
    sys.exit(main())
