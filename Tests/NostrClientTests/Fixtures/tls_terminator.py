#!/usr/bin/env python3
"""A TLS terminator on loopback for tests (issue 44): TLS in front of a plain TCP backend.

Usage: tls_terminator.py --cert CERT.pem --key KEY.pem --backend PORT [--port N]
                         [--forwarded-proto https]

Accepts TLS on 127.0.0.1 (Python's ssl, the certificate the test made), and pipes each
connection's bytes both ways to 127.0.0.1:BACKEND unchanged, as stunnel would. Prints
"ready PORT" on stdout once it listens, and runs until SIGTERM/SIGINT. A client that refuses
the certificate ends its own connection; that is logged on stderr only.
"""
import argparse
import asyncio
import signal
import ssl
import sys


async def pipe(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError, OSError):
        pass
    finally:
        try:
            writer.close()
        except Exception:
            pass


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--backend", type=int, required=True)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(args.cert, args.key)

    async def handle(reader, writer):
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", args.backend)
        except OSError as error:
            print(f"backend unreachable: {error}", file=sys.stderr, flush=True)
            writer.close()
            return
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, ctx: print(f"tls: {ctx.get('message')}: {ctx.get('exception')}",
                                                        file=sys.stderr, flush=True))
    server = await asyncio.start_server(handle, "127.0.0.1", args.port, ssl=context,
                                        ssl_handshake_timeout=10)
    port = server.sockets[0].getsockname()[1]
    print(f"ready {port}", flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(main())
