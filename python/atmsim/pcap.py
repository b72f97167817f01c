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

Writer: ``dpkt`` (pcap writer with nanosecond timestamps, and the IPv4/TCP/UDP header classes
that fill in lengths and checksums).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .errors import ScenarioError

LLC_SNAP_IPV4 = bytes.fromhex("aaaa03000000" "0800")
SUNATM_LLC = 0x02  # pseudo-header type: RFC 1483/2684 LLC-multiplexed traffic
SUNATM_DTE = 0x80  # direction bit: the connection's forward flow
TCP_HEADERS = 48  # LLC/SNAP 8 + IPv4 20 + TCP 20 (the model's TCP_IP_LLC_BYTES)
UDP_HEADERS = 36  # LLC/SNAP 8 + IPv4 20 + UDP 8


def node_address(k: int) -> bytes:
    return bytes([10, 0, k // 250, k % 250 + 1])


def write_pcap(frame: Any, table_meta: dict[bytes, bytes], path: str | os.PathLike[str], where: str) -> dict[str, int]:
    """Write the ``frame_sent`` rows of ``frame`` (a trace DataFrame sorted by time) to ``path``;
    returns counts of the packets written by protocol and of the frames left out. The file is
    written beside ``path`` first and renamed into place, so a failure leaves nothing."""
    import dpkt

    target = Path(path)
    if target.is_dir():
        raise ScenarioError(where, "--pcap", f"{str(target)!r} is a directory: give a file name")
    if not target.parent.is_dir():
        raise ScenarioError(where, "--pcap", f"no such directory {str(target.parent)!r}")
    ends = json.loads(table_meta.get(b"atmsim.trace.flow_ends", b"{}"))
    nodes = {n: i for i, n in enumerate(json.loads(table_meta.get(b"atmsim.trace.nodes", b"[]")))}
    sent = frame[frame["kind"].astype(str) == "frame_sent"]
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
                w.writepkt(pseudo + LLC_SNAP_IPV4 + bytes(ip), ts=float(r.time_s))
        os.replace(tmp, target)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise ScenarioError(where, "--pcap", f"cannot write {str(target)!r}: {e.strerror or e}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return counts
