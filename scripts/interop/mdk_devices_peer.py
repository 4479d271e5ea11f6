#!/usr/bin/env python3
"""MDK 0.8.0 peer with key-package-level member commands, for the multi-device interop tests
(issue 29: one account, several installations, each its own leaf under one npub).

Runs the interop kit's `mdk_peer.py` (from $MARMOT_SHARED/interop, default ../shared/interop;
never edited) with more JSON-lines commands. The kit's `add_members` takes npubs and adds the
newest key package MDK can parse of each; an account with two installations has one key package
per installation, so these commands name key package events instead:

  {"cmd":"key_packages","npub":NPUB}
     -> {"ok":true,"key_packages":[{"event_id":ID,"kind":30443|443,"created_at":N,"d":TAG|null,
         "parsed":true|false,"error":TEXT|null}, ...]}   newest first, every event of that author
     the relay holds (kinds 30443 and 443), with whether MDK's parse_key_package accepts it.
  {"cmd":"add_key_packages","group_id":ID,"event_ids":[ID..]}
     -> the group reply with "event_id" of the commit and "welcome_event_ids": MDK's add_members
     with exactly those events (fetched by id), the commit published and merged, then each Welcome
     gift-wrapped to its key package's author (the rumor's "e" tag names the key package).
  {"cmd":"create_group_key_packages","event_ids":[ID..],"name":..,"admins":[npub..]}
     -> the group reply with "welcome_event_ids": MDK's create_group with exactly those key
     package events (the peer is admin, with "admins" beside it).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kit_peer  # noqa: E402
from kit_peer import mdk_peer  # noqa: E402


def _d_tag(event):
    for tag in json.loads(event.as_json()).get("tags", []):
        if len(tag) >= 2 and tag[0] == "d":
            return tag[1]
    return None


class DevicesPeer(mdk_peer.Peer):
    async def _events_of(self, author_hex):
        filt = {"kinds": [mdk_peer.KIND_KEY_PACKAGE, mdk_peer.KIND_KEY_PACKAGE_LEGACY], "authors": [author_hex]}
        return await self._fetch(filt, mdk_peer.NET_TIMEOUT)

    async def cmd_key_packages(self, c):
        self._need_init()
        author = self._parse_pubkey(c.get("npub"))
        out = []
        for e in sorted(await self._events_of(author.to_hex()), key=lambda e: e.created_at().as_secs(), reverse=True):
            try:
                self.mdk.parse_key_package(e.as_json())
                parsed, error = True, None
            except Exception as exc:  # noqa: BLE001
                parsed, error = False, mdk_peer._err_text(exc)
            out.append({"event_id": e.id().to_hex(), "kind": e.kind().as_u16(), "created_at": e.created_at().as_secs(),
                        "d": _d_tag(e), "parsed": parsed, "error": error})
        return {"key_packages": out}

    async def _named_key_packages(self, c):
        wanted = c.get("event_ids")
        if not isinstance(wanted, list) or not wanted or not all(isinstance(x, str) for x in wanted):
            raise mdk_peer.PeerError("event_ids needs a non-empty list of event ids")
        found = {e.id().to_hex(): e for e in await self._fetch({"ids": wanted}, mdk_peer.NET_TIMEOUT)}
        missing = [x for x in wanted if x not in found]
        if missing:
            raise mdk_peer.PeerError(f"key package events not on the relay: {missing}")
        kps = [found[x] for x in wanted]
        return kps, [e.author() for e in kps]

    async def cmd_create_group_key_packages(self, c):
        self._need_init()
        kps, peers = await self._named_key_packages(c)
        admins = [self.me] + [p.to_hex() for p in (self._npubs(c, "admins") if c.get("admins") else [])]
        res = self.mdk.create_group(
            self.me, [e.as_json() for e in kps], str(c.get("name", "")), str(c.get("description", "")),
            [self.relay_url], list(dict.fromkeys(admins)))
        gid = res.group.mls_group_id
        await self._subscribe_group(res.group.nostr_group_id)
        welcome_ids = await self._send_welcomes(res.welcome_rumors_json, kps, peers)
        return self._group_reply(gid, welcome_event_ids=welcome_ids)

    async def cmd_add_key_packages(self, c):
        self._need_init()
        g = self._resolve_group(c.get("group_id"))
        kps, peers = await self._named_key_packages(c)
        res = self.mdk.add_members(g.mls_group_id, [e.as_json() for e in kps])
        cid = await self._publish_evolution(g.mls_group_id, res)
        welcome_ids = await self._send_welcomes(res.welcome_rumors_json, kps, peers)
        return self._group_reply(g.mls_group_id, event_id=cid, welcome_event_ids=welcome_ids)


if __name__ == "__main__":
    kit_peer.run(DevicesPeer)
