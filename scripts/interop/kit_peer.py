"""The shared interop kit's MDK peer (`$MARMOT_SHARED/interop/mdk_peer.py`, never copied here), loaded
as the module `mdk_peer`, and the entry point of a wrapper that extends its `Peer` class with commands
the kit lacks (`mdk_media_peer.py`, `mdk_devices_peer.py`)."""
import asyncio
import importlib.util
import os
import sys

_shared = os.environ.get("MARMOT_SHARED") or os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared")
_path = os.path.join(_shared, "interop", "mdk_peer.py")
_spec = importlib.util.spec_from_file_location("mdk_peer", _path)
mdk_peer = importlib.util.module_from_spec(_spec)
sys.modules["mdk_peer"] = mdk_peer
_spec.loader.exec_module(mdk_peer)


def run(peer_class):
    """Runs the kit's JSON-lines loop with `peer_class` as its peer, then exits at once (mdk-python's
    threads would otherwise keep the process alive)."""
    mdk_peer.Peer = peer_class
    try:
        asyncio.run(mdk_peer.main())
    except KeyboardInterrupt:
        pass
    try:
        mdk_peer._proto_out.flush()
    except Exception:  # noqa: BLE001
        pass
    os._exit(0)
