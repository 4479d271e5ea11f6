#!/usr/bin/env python3
"""mdk_media_bench.py - MDK 0.8.0 (mdk-python) beside `marmot-bench media`.

The same work as Sources/MarmotBench/MediaBench.swift, against the same Blossom server: for each
size, MDK encrypts a file for upload (encrypt_media_for_upload_with_options, mip04-v2, with EXIF
sanitising and previews off so the work equals ours) and the blob is PUT to `/upload` with a signed
kind-24242 token (BUD-02, BUD-11); then each blob is fetched with GET and opened with
parse_media_imeta_tag + decrypt_media_from_download. HTTP is Python's http.client over one
connection per request, as ours opens one session per request. Prints rows in the Swift side's
format: median milliseconds, MB/s, and the growth of the resident high-water mark during one
operation (MB; /proc/self/clear_refs resets it first).

Usage: python mdk_media_bench.py --server http://127.0.0.1:PORT
Run with the interop venv's python (.venv-interop or $MDK_VENV).
"""
import argparse
import base64
import hashlib
import http.client
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse

try:
    from mdk import MediaProcessingOptionsInput, new_mdk_with_key
    from nostr_sdk import EventBuilder, Keys, Kind, Tag
except Exception as exc:  # noqa: BLE001
    print(f"mdk media bench: cannot import mdk / nostr_sdk: {exc}", file=sys.stderr)
    sys.exit(2)

SIZES = [("100 KB", 100_000, 9), ("1 MB", 1_000_000, 5), ("10 MB", 10_000_000, 3)]
RELAY = "ws://127.0.0.1:7777"
MIME = "application/octet-stream"
NAME = "bench.bin"


def kb(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def peak(body):
    """(milliseconds, MB the high-water mark rose above the resident size at the start, result)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    before = kb("VmRSS")
    start = time.perf_counter()
    value = body()
    millis = (time.perf_counter() - start) * 1000
    return millis, max(0, kb("VmHWM") - before) / 1024, value


def request(method, url, body=None, headers=None):
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    try:
        conn.request(method, parts.path or "/", body=body, headers=headers or {})
        answer = conn.getresponse()
        data = answer.read()
        if not 200 <= answer.status < 300:
            raise RuntimeError(f"{method} {url}: {answer.status} {answer.getheader('X-Reason')}")
        return data
    finally:
        conn.close()


def token(keys, blob_hash, host):
    expiration = int(time.time()) + 300
    tags = [Tag.parse(["t", "upload"]), Tag.parse(["x", blob_hash]), Tag.parse(["expiration", str(expiration)]),
            Tag.parse(["server", host])]
    event = EventBuilder(Kind(24242), "Upload blob").tags(tags).finalize(keys)
    return "Nostr " + base64.b64encode(event.as_json().encode()).decode()


def group(root):
    """An MDK group of two (creator and one invitee), as the group bench makes it: the creator's view."""
    keys = [Keys.generate() for _ in range(2)]
    mdks = [new_mdk_with_key(os.path.join(root, f"m{i}.sqlite3"), os.urandom(32), None) for i in range(2)]
    kp = mdks[1].create_key_package_for_event(keys[1].public_key().to_hex(), [RELAY])
    event = EventBuilder(Kind(30443), kp.key_package).tags([Tag.parse(t) for t in kp.tags]).finalize(keys[1])
    creator = keys[0].public_key().to_hex()
    result = mdks[0].create_group(creator, [event.as_json()], "media bench", "", [RELAY], [creator])
    return mdks[0], result.group.mls_group_id


def median(values):
    return statistics.median(values) if values else 0.0


def row(label, size, up, down):
    def rate(millis):
        return f"{millis:7.1f} ms {size / 1e6 / max(millis / 1000, 1e-9):7.1f} MB/s"
    return (f"{'mdk':<5} {label:<7} {rate(median([u[0] for u in up]))}  {max(u[1] for u in up):6.1f} MB   "
            f"{rate(median([d[0] for d in down]))}  {max(d[1] for d in down):6.1f} MB")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    args = parser.parse_args()
    server = args.server.rstrip("/")
    host = urllib.parse.urlsplit(server).hostname
    root = tempfile.mkdtemp(prefix="mdk-media-bench-")
    try:
        mdk, gid = group(root)
        keys = Keys.generate()
        options = MediaProcessingOptionsInput(
            sanitize_exif=False, generate_blurhash=False, generate_thumbhash=False,
            max_dimension=None, max_file_size=None, max_filename_length=None)
        for label, size, runs in SIZES:
            base = bytearray(((i * 2654435761) >> 13) & 0xFF for i in range(size))
            up, down, tags = [], [], []
            for run in range(runs):
                base[0] = run & 0xFF
                base[1] = time.perf_counter_ns() & 0xFF
                data = bytes(base)

                def upload():
                    sealed = mdk.encrypt_media_for_upload_with_options(gid, data, MIME, NAME, options)
                    blob = bytes(sealed.encrypted_data)
                    blob_hash = hashlib.sha256(blob).hexdigest()
                    answer = json.loads(request("PUT", server + "/upload", blob, {
                        "Content-Type": MIME, "Content-Length": str(len(blob)), "X-SHA-256": blob_hash,
                        "Authorization": token(keys, blob_hash, host)}))
                    if answer.get("sha256") != blob_hash:
                        raise RuntimeError("the server named another hash")
                    return mdk.create_media_imeta_tag(gid, sealed, answer["url"])[0]
                millis, grew, tag = peak(upload)
                up.append((millis, grew))
                tags.append(tag)
            for tag in tags:
                url = next(field[4:] for field in tag if field.startswith("url "))

                def download():
                    reference = mdk.parse_media_imeta_tag(gid, [tag])
                    return bytes(mdk.decrypt_media_from_download(gid, request("GET", url), reference))
                millis, grew, plain = peak(download)
                if len(plain) != size:
                    raise RuntimeError(f"decrypted {len(plain)} bytes, not {size}")
                down.append((millis, grew))
            print(row(label, size, up, down), flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
