#!/usr/bin/env python3
"""MDK 0.8.0 peer with MIP-04 media commands, for the media interop tests.

Runs the interop kit's `mdk_peer.py` (from $MARMOT_SHARED/interop, default ../shared/interop;
never edited) with more JSON-lines commands, using mdk-python 0.8.0's media API:

  {"cmd":"encrypt_media","group_id":ID,"data_b64":B64,"mime_type":"image/png","filename":"a.png",
   "url_base":"https://blossom.example/"}
     -> {"ok":true,"imeta":[...],"ciphertext_b64":B64,"encrypted_hash":HEX,"original_hash":HEX}
     MDK encrypts with the group's current epoch (encrypt_media_for_upload_with_options; EXIF
     sanitising and preview hashes off so the bytes stay as given) and builds the tag with
     create_media_imeta_tag for url_base + hex(sha256(ciphertext)).
  {"cmd":"decrypt_media","group_id":ID,"ciphertext_b64":B64,"imeta":[...]}
     -> {"ok":true,"data_b64":B64,"sha256":HEX}
     parse_media_imeta_tag then decrypt_media_from_download (MDK finds the epoch from the stored
     message whose imeta names the file, else uses the current one).
  {"cmd":"upload_media","group_id":ID,"data_b64":B64,"mime_type":"image/png","filename":"a.png",
   "server":"http://127.0.0.1:PORT"}
     -> {"ok":true,"imeta":[...],"url":URL,"encrypted_hash":HEX,"original_hash":HEX}
     encrypt_media as above, then the blob is PUT to the Blossom server's /upload (BUD-02) with a
     kind-24242 token signed by the peer's own key (BUD-11); the server's descriptor must name the
     blob's hash, and the imeta carries the URL the server answered.
  {"cmd":"download_media","group_id":ID,"imeta":[...]}
     -> {"ok":true,"data_b64":B64,"sha256":HEX}
     GET of the imeta's url (BUD-01), then decrypt_media as above.
  {"cmd":"prepare_group_image","data_b64":B64,"mime_type":"image/png"}
     -> {"ok":true,"ciphertext_b64":B64,"image_hash":HEX,"image_key":HEX,"image_nonce":HEX,
         "upload_secret_key":HEX,"plaintext_b64":B64}
     prepare_group_image_for_upload (MDK strips EXIF and may re-encode, so the plaintext MDK
     encrypted is given back, decrypted with decrypt_group_image).
  {"cmd":"decrypt_group_image","ciphertext_b64":B64,"image_hash":HEX,"image_key":HEX,"image_nonce":HEX}
     -> {"ok":true,"data_b64":B64,"sha256":HEX}
  {"cmd":"set_group_image","group_id":ID,"image_hash":HEX,"image_key":HEX,"image_nonce":HEX}
     -> the group reply, with "event_id" of the commit: MDK's update_group_data with the three image
     fields (mdk-python 0.8.0's GroupDataUpdate has no image_upload_key), published.
"""
import base64
import hashlib
import http.client
import json
import os
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kit_peer  # noqa: E402
from kit_peer import mdk_peer  # noqa: E402

import mdk as _mdk  # noqa: E402  (after mdk_peer, which reports a failed import as a fatal event)


def _b64(c, key):
    value = c.get(key)
    if not isinstance(value, str):
        raise mdk_peer.PeerError(f"{key} must be base64 text")
    return base64.b64decode(value, validate=True)


class MediaPeer(mdk_peer.Peer):
    async def cmd_encrypt_media(self, c):
        self._need_init()
        g = self._resolve_group(c.get("group_id"))
        data = _b64(c, "data_b64")
        upload = self.mdk.encrypt_media_for_upload_with_options(
            g.mls_group_id, data, c.get("mime_type", ""), c.get("filename", ""), self._options())
        url = str(c.get("url_base", "https://blossom.example/")) + bytes(upload.encrypted_hash).hex()
        tags = self.mdk.create_media_imeta_tag(g.mls_group_id, upload, url)
        return {"imeta": tags[0], "ciphertext_b64": base64.b64encode(bytes(upload.encrypted_data)).decode(),
                "encrypted_hash": bytes(upload.encrypted_hash).hex(),
                "original_hash": bytes(upload.original_hash).hex(), "url": url}

    async def cmd_decrypt_media(self, c):
        self._need_init()
        g = self._resolve_group(c.get("group_id"))
        imeta = c.get("imeta")
        if not (isinstance(imeta, list) and all(isinstance(x, str) for x in imeta)):
            raise mdk_peer.PeerError("imeta must be a list of strings")
        reference = self.mdk.parse_media_imeta_tag(g.mls_group_id, [imeta])
        data = bytes(self.mdk.decrypt_media_from_download(g.mls_group_id, _b64(c, "ciphertext_b64"), reference))
        return {"data_b64": base64.b64encode(data).decode(), "sha256": hashlib.sha256(data).hexdigest()}

    def _options(self):
        return _mdk.MediaProcessingOptionsInput(
            sanitize_exif=False, generate_blurhash=False, generate_thumbhash=False,
            max_dimension=None, max_file_size=None, max_filename_length=None)

    @staticmethod
    def _http(method, url, body=None, headers=None):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise mdk_peer.PeerError(f"not an http URL: {url}")
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        try:
            conn.request(method, parts.path or "/", body=body, headers=headers or {})
            answer = conn.getresponse()
            data = answer.read()
            if not 200 <= answer.status < 300:
                raise mdk_peer.PeerError(f"{method} {url}: {answer.status} {answer.getheader('X-Reason')}")
            return data
        finally:
            conn.close()

    async def cmd_upload_media(self, c):
        self._need_init()
        from nostr_sdk import EventBuilder, Kind, Tag
        g = self._resolve_group(c.get("group_id"))
        server = str(c.get("server", "")).rstrip("/")
        upload = self.mdk.encrypt_media_for_upload_with_options(
            g.mls_group_id, _b64(c, "data_b64"), c.get("mime_type", ""), c.get("filename", ""), self._options())
        blob = bytes(upload.encrypted_data)
        blob_hash = hashlib.sha256(blob).hexdigest()
        host = urllib.parse.urlsplit(server).hostname or ""
        auth = (EventBuilder(Kind(24242), "Upload blob")
                .tags([Tag.parse(["t", "upload"]), Tag.parse(["x", blob_hash]),
                       Tag.parse(["expiration", str(int(time.time()) + 300)]), Tag.parse(["server", host])])
                .finalize(self.keys))
        answer = json.loads(self._http("PUT", server + "/upload", blob, {
            "Content-Type": "application/octet-stream", "Content-Length": str(len(blob)), "X-SHA-256": blob_hash,
            "Authorization": "Nostr " + base64.b64encode(auth.as_json().encode()).decode()}))
        if answer.get("sha256") != blob_hash:
            raise mdk_peer.PeerError("the Blossom server named another hash")
        tags = self.mdk.create_media_imeta_tag(g.mls_group_id, upload, answer["url"])
        return {"imeta": tags[0], "url": answer["url"], "encrypted_hash": blob_hash,
                "original_hash": bytes(upload.original_hash).hex()}

    async def cmd_download_media(self, c):
        self._need_init()
        g = self._resolve_group(c.get("group_id"))
        imeta = c.get("imeta")
        if not (isinstance(imeta, list) and all(isinstance(x, str) for x in imeta)):
            raise mdk_peer.PeerError("imeta must be a list of strings")
        url = next((f[4:] for f in imeta if f.startswith("url ")), None)
        if url is None:
            raise mdk_peer.PeerError("imeta has no url")
        reference = self.mdk.parse_media_imeta_tag(g.mls_group_id, [imeta])
        data = bytes(self.mdk.decrypt_media_from_download(g.mls_group_id, self._http("GET", url), reference))
        return {"data_b64": base64.b64encode(data).decode(), "sha256": hashlib.sha256(data).hexdigest()}

    async def cmd_prepare_group_image(self, c):
        upload = _mdk.prepare_group_image_for_upload(_b64(c, "data_b64"), c.get("mime_type", ""))
        ciphertext = bytes(upload.encrypted_data)
        plaintext = bytes(_mdk.decrypt_group_image(
            ciphertext, bytes(upload.encrypted_hash), bytes(upload.image_key), bytes(upload.image_nonce)))
        return {"ciphertext_b64": base64.b64encode(ciphertext).decode(),
                "image_hash": bytes(upload.encrypted_hash).hex(), "image_key": bytes(upload.image_key).hex(),
                "image_nonce": bytes(upload.image_nonce).hex(), "upload_secret_key": str(upload.upload_secret_key),
                "plaintext_b64": base64.b64encode(plaintext).decode()}

    async def cmd_decrypt_group_image(self, c):
        data = bytes(_mdk.decrypt_group_image(
            _b64(c, "ciphertext_b64"), bytes.fromhex(c.get("image_hash", "")), bytes.fromhex(c.get("image_key", "")),
            bytes.fromhex(c.get("image_nonce", ""))))
        return {"data_b64": base64.b64encode(data).decode(), "sha256": hashlib.sha256(data).hexdigest()}

    async def cmd_set_group_image(self, c):
        self._need_init()
        g = self._resolve_group(c.get("group_id"))
        upd = _mdk.GroupDataUpdate(
            name=None, description=None, image_hash=bytes.fromhex(c.get("image_hash", "")),
            image_key=bytes.fromhex(c.get("image_key", "")), image_nonce=bytes.fromhex(c.get("image_nonce", "")),
            relays=None, admins=None)
        res = self.mdk.update_group_data(g.mls_group_id, upd)
        cid = await self._publish_evolution(g.mls_group_id, res)
        return self._group_reply(g.mls_group_id, event_id=cid)


if __name__ == "__main__":
    kit_peer.run(MediaPeer)
