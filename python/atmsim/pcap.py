"""Captures for Wireshark (docs/tracing.md): the AAL5 frames of a trace as a pcap file with
LINKTYPE_SUNATM (123), whose 4-byte pseudo-header carries each frame's VPI/VCI and says the frame
is LLC-multiplexed (RFC 2684), followed by the frame's CPCS-SDU: an LLC/SNAP header, an IPv4 header
and a TCP or UDP header built from the model's own fields, then zero bytes for the payload.

The capture point is the sending host: one packet per ``frame_sent`` row (the frame's last cell
leaving its source), at that time, so a frame lost later in the network is in the capture and its
retransmission too, as on a tap at the sender's interface. What the headers hold:

* addresses: node k of the run is 10.0.(k // 250).(k % 250 + 1); a flow's source is the node of
  its ``frame_sent`` rows and its destination the far end of its route (in the file's metadata);
* TCP (a frame with ``seg_data`` or ``seg_ack``): the connection's forward direction (the flow
  named like the connection) sends from port 10000 + ``seg_conn`` to port 80, the reverse direction
  back; sequence and acknowledgement numbers are the model's (``seg_seq``, ``seg_ack_no``), the
  payload is the SDU less the 48 bytes of LLC/SNAP, IPv4 and TCP headers, flags ACK when
  ``seg_ack`` and PSH with data, the window the advertised one (``seg_window``, at most 65,535)
  else 65,535;
* any other frame: UDP from port 10000 + ``seg_conn`` to 9 (discard), payload the SDU less 36
  bytes (a frame shorter than that: an LLC/SNAP header with a truncated IPv4 packet is not
  written; they are counted and reported).

Time: a packet's timestamp is the capture's start (``--epoch``, default ``DEFAULT_EPOCH``) plus
its simulated time, to the nanosecond.

Writer: ``dpkt`` (pcap writer with nanosecond timestamps, and the IPv4/TCP/UDP header classes
that fill in lengths and checksums).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .errors import ScenarioError

#: the capture's default start: simulated time 0 is at this instant (UTC); fixed, so one trace
#: gives the same capture every time, and not 1970-01-01 (time 0 of the pcap clock), which
#: Wireshark shows as a capture without a clock
DEFAULT_EPOCH = "2000-01-01T00:00:00Z"
#: a pcap timestamp's seconds are 32 bits (unsigned): captures end before 2106-02-07
PCAP_MAX_S = 2**32 - 1

LLC_SNAP_IPV4 = bytes.fromhex("aaaa03000000" "0800")
SUNATM_LLC = 0x02  # pseudo-header type: RFC 1483/2684 LLC-multiplexed traffic
SUNATM_DTE = 0x80  # direction bit: the connection's forward flow
TCP_HEADERS = 48  # LLC/SNAP 8 + IPv4 20 + TCP 20 (the model's TCP_IP_LLC_BYTES)
UDP_HEADERS = 36  # LLC/SNAP 8 + IPv4 20 + UDP 8


def parse_epoch(text: str | None, where: str = "--epoch") -> int:
    """Nanoseconds since 1970-01-01 UTC of ``text``: an ISO 8601 date or date and time (UTC when
    it gives no offset; ``Z`` accepted) or a number of seconds since 1970-01-01 UTC; None: the
    default (``DEFAULT_EPOCH``). Anything else, or a time outside 1970 to 2106: ``ScenarioError``
    naming ``where``."""
    import datetime as dt
    from decimal import Decimal, InvalidOperation

    raw = DEFAULT_EPOCH if text is None else str(text).strip()
    allowed = "an ISO 8601 date/time such as 2026-11-26T14:30:00Z (UTC without an offset) or seconds since 1970-01-01 UTC"
    try:
        ns = int(Decimal(raw) * 10**9)
    except (InvalidOperation, ValueError):
        try:
            when = dt.datetime.fromisoformat(raw)
        except ValueError:
            raise ScenarioError("", where, f"{raw!r} is not a time: give {allowed}") from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=dt.timezone.utc)
        delta = when - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
        ns = (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000
    if not 0 <= ns <= PCAP_MAX_S * 10**9:
        raise ScenarioError("", where, f"{raw!r} is outside what a pcap file can stamp (1970-01-01 to 2106-02-07 UTC)")
    return ns


def node_address(k: int) -> bytes:
    return bytes([10, 0, k // 250, k % 250 + 1])


def write_pcap(frame: Any, table_meta: dict[bytes, bytes], path: str | os.PathLike[str], where: str,
               epoch_ns: int | None = None) -> dict[str, int]:
    """Write the ``frame_sent`` rows of ``frame`` (a trace DataFrame sorted by time) to ``path``,
    simulated time t stamped as ``epoch_ns`` + t (to the nanosecond; default ``DEFAULT_EPOCH``);
    returns counts of the packets written by protocol and of the frames left out. The file is
    written beside ``path`` first and renamed into place, so a failure leaves nothing."""
    from decimal import Decimal

    import dpkt

    epoch = parse_epoch(None) if epoch_ns is None else int(epoch_ns)

    target = Path(path)
    if target.is_dir():
        raise ScenarioError(where, "--pcap", f"{str(target)!r} is a directory: give a file name")
    if not target.parent.is_dir():
        raise ScenarioError(where, "--pcap", f"no such directory {str(target.parent)!r}")
    ends = json.loads(table_meta.get(b"atmsim.trace.flow_ends", b"{}"))
    nodes = {n: i for i, n in enumerate(json.loads(table_meta.get(b"atmsim.trace.nodes", b"[]")))}
    sent = frame[frame["kind"].astype(str) == "frame_sent"]
    last = float(sent["time_s"].max()) if len(sent) else 0.0
    if epoch + round(last * 1e9) > PCAP_MAX_S * 10**9:
        raise ScenarioError(where, "--epoch", "the capture would end after 2106-02-07 (a pcap timestamp's 32-bit seconds): give an earlier one")
    counts = {"tcp": 0, "udp": 0, "short": 0}
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    ip_id = 0
    try:
        with open(tmp, "wb") as f:
            w = dpkt.pcap.Writer(f, snaplen=65535, linktype=dpkt.pcap.DLT_SUNATM, nano=True)
            for r in sent.itertuples(index=False):
                flow = str(r.connection)
                src_node, dst_node = ends.get(flow, [str(r.node), str(r.node)])
                forward = not flow.endswith(".reverse")
                sdu = int(r.aal5_len)
                is_tcp = bool(r.seg_data or r.seg_ack)
                if sdu < (TCP_HEADERS if is_tcp else UDP_HEADERS):
                    counts["short"] += 1
                    continue
                here, far = 10000 + int(r.seg_conn), 80 if is_tcp else 9
                if is_tcp:
                    flags = (dpkt.tcp.TH_ACK if r.seg_ack else 0) | (dpkt.tcp.TH_PUSH if r.seg_data else 0)
                    win = min(int(r.seg_seq), 65535) if r.seg_window else 65535
                    l4: Any = dpkt.tcp.TCP(
                        sport=here if forward else far, dport=far if forward else here,
                        seq=int(r.seg_seq) if r.seg_data else 0, ack=int(r.seg_ack_no) if r.seg_ack else 0,
                        flags=flags, win=win, data=bytes(sdu - TCP_HEADERS),
                    )
                    proto = dpkt.ip.IP_PROTO_TCP
                    counts["tcp"] += 1
                else:
                    l4 = dpkt.udp.UDP(sport=here, dport=far, data=bytes(sdu - UDP_HEADERS))
                    l4.ulen = len(l4)
                    proto = dpkt.ip.IP_PROTO_UDP
                    counts["udp"] += 1
                ip_id = (ip_id + 1) & 0xFFFF
                ip = dpkt.ip.IP(
                    src=node_address(nodes.get(src_node, 0)), dst=node_address(nodes.get(dst_node, 0)),
                    p=proto, ttl=64, id=ip_id, data=l4,
                )
                ip.len = len(ip)
                pseudo = bytes([SUNATM_LLC | (SUNATM_DTE if forward else 0), int(r.vpi) & 0xFF]) + int(r.vci).to_bytes(2, "big")
                # exact nanoseconds: a float of seconds since 1970 keeps only ~0.2 us
                ts = Decimal(epoch + round(float(r.time_s) * 1e9)) / Decimal(10**9)
                w.writepkt(pseudo + LLC_SNAP_IPV4 + bytes(ip), ts=ts)
        os.replace(tmp, target)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise ScenarioError(where, "--pcap", f"cannot write {str(target)!r}: {e.strerror or e}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return counts
