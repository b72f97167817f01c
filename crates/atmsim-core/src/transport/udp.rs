//! UDP/IP over AAL5 with LLC/SNAP encapsulation: seed 004's "UDP/AAL5/ATM" protocol suite
//! (section 4.3), carrying application messages (video frames) as datagrams.
//!
//! - **Headers**: every datagram is one AAL5 frame whose CPCS-SDU is LLC/SNAP (8 bytes, RFC 2684
//!   routed PDU) + IPv4 header (20 bytes, RFC 791, no options) + UDP header (8 bytes, RFC 768) +
//!   the payload: [`HEADER_BYTES`] = 36 bytes. AAL5 adds its 8-byte trailer and pads to whole
//!   cells (I.363.5), so a datagram of `p` payload bytes takes `ceil((p + 36 + 8) / 48)` cells
//!   ([`cells_per_datagram`]).
//! - **MTU**: `mtu_bytes` is the IP MTU, the largest IP packet (IP header + UDP header +
//!   payload); RFC 1626's default for IP over ATM is 9,180. A datagram carries at most
//!   `mtu_bytes - 28` payload bytes.
//! - **Splitting** (our reading; the seed says only that frames were sent as UDP datagrams): the
//!   sender splits a message larger than one datagram's payload into `ceil(len / (mtu - 28))`
//!   datagrams, all full but the last; no IP fragmentation. An empty message is one datagram with
//!   no payload. The datagram's header carries the message number (`SegHdr::seq`) and its index
//!   and count (`SegHdr::ack`: index << 16 | count), standing for the application's own framing
//!   inside the UDP payload.
//! - **Receiver**: a message is complete when all its datagrams arrived intact; it is lost if any
//!   is missing ("any frame missing a packet is considered lost", seed 004 section 4.1). Datagrams
//!   of one VC arrive in order, so a datagram of a later message closes the message before it.
//!
//! No retransmission, no flow control: what the network loses is lost.

use super::{SegmentOut, Transport};
use crate::time::SimTime;
use crate::wire::{aal5_cells, SegHdr, LLC_SNAP, SEG_DATA};
use std::collections::VecDeque;

/// IPv4 header without options (RFC 791).
pub const IP_HEADER_BYTES: u32 = 20;
/// UDP header (RFC 768).
pub const UDP_HEADER_BYTES: u32 = 8;
/// LLC/SNAP + IP + UDP headers in every datagram's AAL5 CPCS-SDU.
pub const HEADER_BYTES: u32 = LLC_SNAP + IP_HEADER_BYTES + UDP_HEADER_BYTES;
/// Default IP MTU over ATM (RFC 1626).
pub const DEFAULT_MTU: u32 = 9180;
/// Most datagrams per message (the index and count share `SegHdr::ack`).
pub const MAX_DATAGRAMS: u32 = u16::MAX as u32;

/// Largest payload of one datagram at IP MTU `mtu` (> 28).
pub fn max_payload(mtu: u32) -> u32 {
    mtu - IP_HEADER_BYTES - UDP_HEADER_BYTES
}

/// Datagrams for a message of `bytes` at IP MTU `mtu`.
pub fn datagrams_per_message(bytes: u32, mtu: u32) -> u32 {
    bytes.div_ceil(max_payload(mtu)).max(1)
}

/// Cells of one datagram with `payload` bytes: ceil((payload + 36 + 8) / 48).
pub fn cells_per_datagram(payload: u32) -> u32 {
    aal5_cells(payload + HEADER_BYTES)
}

/// Cells of a whole message of `bytes` at IP MTU `mtu`.
pub fn cells_per_message(bytes: u32, mtu: u32) -> u32 {
    let n = datagrams_per_message(bytes, mtu);
    let full = max_payload(mtu);
    (n - 1) * cells_per_datagram(full) + cells_per_datagram(bytes - (n - 1) * full)
}

/// Counters of a UDP sender.
#[derive(Clone, Debug, Default)]
pub struct UdpSenderStats {
    pub messages: u64,
    pub datagrams: u64,
    pub payload_bytes: u64,
}

/// The sending half: messages in, datagrams out (as many per call as the outbox takes; the rest
/// at the next call, which [`Transport::next_timer`] asks for at once).
#[derive(Clone, Debug)]
pub struct UdpSender {
    pub mtu: u32,
    /// Messages waiting to go: (message number, bytes, next datagram index).
    queue: VecDeque<(u32, u32, u32)>,
    next_msg: u32,
    /// When the outbox was full: the time of the call that must continue.
    resume: Option<SimTime>,
    pub stats: UdpSenderStats,
}

impl UdpSender {
    pub fn new(mtu: u32) -> Self {
        debug_assert!(mtu > IP_HEADER_BYTES + UDP_HEADER_BYTES);
        UdpSender {
            mtu,
            queue: VecDeque::new(),
            next_msg: 0,
            resume: None,
            stats: UdpSenderStats::default(),
        }
    }

    /// Send a message of `bytes` now (its number is returned): its datagrams go out as the
    /// outbox allows.
    pub fn send(&mut self, now: SimTime, bytes: u32, out: &mut impl SegmentOut) -> u32 {
        let m = self.next_msg;
        self.next_msg = self.next_msg.wrapping_add(1);
        self.stats.messages += 1;
        crate::budget::deque_push(&self.queue, "the send queue of a UDP socket");
        self.queue.push_back((m, bytes, 0));
        self.pump(now, out);
        m
    }

    /// When the sender must be called again to continue (its outbox was full), if so.
    pub fn resume_at(&self) -> Option<SimTime> {
        self.resume
    }

    /// Messages with datagrams waiting in the sender (not yet handed to AAL5).
    pub fn backlog(&self) -> usize {
        self.queue.len()
    }

    /// The numbers of the messages with datagrams waiting in the sender.
    pub fn queued(&self) -> impl Iterator<Item = u32> + '_ {
        self.queue.iter().map(|q| q.0)
    }

    fn pump(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        let full = max_payload(self.mtu);
        while let Some(&mut (m, bytes, ref mut k)) = self.queue.front_mut() {
            if !out.room() {
                self.resume = Some(now);
                return;
            }
            let n = datagrams_per_message(bytes, self.mtu);
            let payload = if *k + 1 < n {
                full
            } else {
                bytes - (n - 1) * full
            };
            let seg = SegHdr {
                flags: SEG_DATA,
                seq: m,
                ack: (*k << 16) | n,
                ..Default::default()
            };
            out.frame(payload + HEADER_BYTES, seg);
            self.stats.datagrams += 1;
            self.stats.payload_bytes += payload as u64;
            *k += 1;
            if *k == n {
                self.queue.pop_front();
            }
        }
        self.resume = None;
    }
}

/// What a receiver learnt from one datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// A datagram of a message still incomplete.
    Partial,
    /// The last datagram of message `msg` of `bytes` payload bytes: the whole message arrived.
    Complete { msg: u32, bytes: u32 },
}

/// Counters of a UDP receiver.
#[derive(Clone, Debug, Default)]
pub struct UdpReceiverStats {
    pub datagrams: u64,
    pub messages_complete: u64,
    /// Messages of which at least one datagram arrived but not all (a message of which nothing
    /// arrived is seen only by comparing with the sender).
    pub messages_incomplete: u64,
    pub payload_bytes: u64,
}

/// The receiving half: reassembles messages from datagrams.
#[derive(Clone, Debug, Default)]
pub struct UdpReceiver {
    /// The message being received: number, datagrams so far, payload bytes so far.
    cur: Option<(u32, u32, u32)>,
    pub stats: UdpReceiverStats,
}

impl UdpReceiver {
    /// An intact datagram of `sdu` bytes (headers included) with header `seg` arrived.
    pub fn receive(&mut self, sdu: u32, seg: SegHdr) -> Delivery {
        let (m, k, n) = (seg.seq, seg.ack >> 16, seg.ack & 0xffff);
        let payload = sdu.saturating_sub(HEADER_BYTES);
        self.stats.datagrams += 1;
        self.stats.payload_bytes += payload as u64;
        let (got, bytes) = match self.cur {
            Some((cm, got, bytes)) if cm == m => (got, bytes),
            other => {
                if other.is_some() {
                    self.stats.messages_incomplete += 1; // a later message: the last one is lost
                }
                (0, 0)
            }
        };
        // datagrams of a VC arrive in order: a gap inside the message loses it too
        let (got, bytes) = if got == k {
            (got + 1, bytes + payload)
        } else {
            (u32::MAX, 0)
        };
        if got == n {
            self.cur = None;
            self.stats.messages_complete += 1;
            return Delivery::Complete { msg: m, bytes };
        }
        self.cur = Some((m, got, bytes));
        Delivery::Partial
    }
}

/// One end of a UDP "connection" (a datagram socket's transport): the sending half, the
/// receiving half, or both; complete messages wait for the application
/// ([`UdpEnd::take_message`]).
#[derive(Clone, Debug, Default)]
pub struct UdpEnd {
    pub sender: Option<UdpSender>,
    pub receiver: Option<UdpReceiver>,
    /// Complete messages not yet taken by the application: (message number, payload bytes).
    inbox: VecDeque<(u32, u32)>,
    /// Payload bytes of complete messages delivered so far.
    delivered: u64,
}

impl UdpEnd {
    /// An end that sends datagrams of at most `mtu` bytes (IP MTU).
    pub fn sender(mtu: u32) -> Self {
        UdpEnd {
            sender: Some(UdpSender::new(mtu)),
            ..Default::default()
        }
    }
    /// An end that receives.
    pub fn receiver() -> Self {
        UdpEnd {
            receiver: Some(UdpReceiver::default()),
            ..Default::default()
        }
    }
    /// An end that sends (datagrams of at most `mtu` bytes) and receives.
    pub fn duplex(mtu: u32) -> Self {
        UdpEnd {
            sender: Some(UdpSender::new(mtu)),
            receiver: Some(UdpReceiver::default()),
            ..Default::default()
        }
    }
    /// The application sends one message of `bytes` (its datagrams go as the outbox allows).
    pub fn write(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) {
        if let Some(s) = &mut self.sender {
            s.send(now, bytes.min(u32::MAX as u64) as u32, out);
        }
    }
    /// The oldest complete message not yet taken: (message number, payload bytes).
    pub fn take_message(&mut self) -> Option<(u32, u32)> {
        self.inbox.pop_front()
    }
    /// Payload bytes of the complete messages delivered so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }
    /// The numbers of the messages with datagrams waiting in the sender.
    pub fn messages_queued(&self) -> Vec<u32> {
        self.sender.iter().flat_map(|s| s.queued()).collect()
    }
    /// The numbers of the complete messages not yet taken by the application.
    pub fn messages_waiting(&self) -> Vec<u32> {
        self.inbox.iter().map(|m| m.0).collect()
    }
    /// Datagrams sent so far (0 for an end that does not send).
    pub fn datagrams_sent(&self) -> u64 {
        self.sender.as_ref().map_or(0, |s| s.stats.datagrams)
    }
    /// The frame with header `seg` is the first datagram of its message (`SegHdr::ack` holds
    /// index << 16 | count).
    pub fn first_of_message(seg: SegHdr) -> bool {
        seg.ack >> 16 == 0
    }
}

impl Transport for UdpEnd {
    fn next_timer(&self) -> Option<SimTime> {
        self.sender.as_ref().and_then(|s| s.next_timer())
    }
    fn on_timer(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        if let Some(s) = &mut self.sender {
            s.on_timer(now, out);
        }
    }
    fn on_frame(&mut self, _now: SimTime, sdu: u32, seg: SegHdr, _out: &mut impl SegmentOut) {
        if let Some(r) = &mut self.receiver {
            if let Delivery::Complete { msg, bytes } = r.receive(sdu, seg) {
                crate::budget::deque_push(
                    &self.inbox,
                    "the messages a UDP socket received and its application has not read",
                );
                self.inbox.push_back((msg, bytes));
                self.delivered += bytes as u64;
            }
        }
    }
}

impl Transport for UdpSender {
    /// Asked for only when the outbox was full: continue at once.
    fn next_timer(&self) -> Option<SimTime> {
        self.resume
    }
    fn on_timer(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        if self.resume.is_some() {
            self.pump(now, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An outbox taking `room` frames.
    struct Out {
        frames: Vec<(u32, SegHdr)>,
        room: usize,
    }
    impl SegmentOut for Out {
        fn room(&self) -> bool {
            self.frames.len() < self.room
        }
        fn frame(&mut self, sdu: u32, seg: SegHdr) {
            self.frames.push((sdu, seg));
        }
    }

    #[test]
    fn cells_per_datagram_closed_form() {
        // 36 B of headers + 8 B AAL5 trailer: 4 payload bytes fill the first cell exactly
        assert_eq!(HEADER_BYTES, 36);
        assert_eq!(cells_per_datagram(0), 1);
        assert_eq!(cells_per_datagram(4), 1);
        assert_eq!(cells_per_datagram(5), 2);
        assert_eq!(cells_per_datagram(52), 2);
        assert_eq!(cells_per_datagram(53), 3);
        for p in 0..20_000u32 {
            assert_eq!(cells_per_datagram(p), (p + 44).div_ceil(48), "payload {p}");
        }
        // a full datagram at the default MTU: 9152 payload bytes, 9196 bytes + pad = 192 cells
        assert_eq!(max_payload(DEFAULT_MTU), 9152);
        assert_eq!(cells_per_datagram(9152), 192);
    }

    #[test]
    fn large_messages_split_into_full_datagrams_and_a_rest() {
        let mtu = 1500; // 1472 payload bytes per datagram
        for bytes in [0u32, 1, 1472, 1473, 10_944, 65_000, 200_000] {
            let mut s = UdpSender::new(mtu);
            let mut out = Out {
                frames: vec![],
                room: usize::MAX,
            };
            s.send(0, bytes, &mut out);
            let n = bytes.div_ceil(1472).max(1);
            assert_eq!(out.frames.len() as u32, n, "{bytes} bytes");
            let payload: u32 = out.frames.iter().map(|(sdu, _)| sdu - 36).sum();
            assert_eq!(payload, bytes);
            assert!(out.frames.iter().all(|(sdu, _)| *sdu <= mtu + LLC_SNAP));
            let cells: u32 = out.frames.iter().map(|(sdu, _)| aal5_cells(*sdu)).sum();
            assert_eq!(cells, cells_per_message(bytes, mtu));
            // and the receiver puts it back together
            let mut r = UdpReceiver::default();
            let got: Vec<Delivery> = out
                .frames
                .iter()
                .map(|(sdu, seg)| r.receive(*sdu, *seg))
                .collect();
            assert_eq!(*got.last().unwrap(), Delivery::Complete { msg: 0, bytes });
            assert!(got[..got.len() - 1].iter().all(|d| *d == Delivery::Partial));
        }
    }

    #[test]
    fn a_full_outbox_defers_the_rest_to_a_timer_at_once() {
        let mut s = UdpSender::new(1500);
        let mut out = Out {
            frames: vec![],
            room: 3,
        };
        s.send(7, 10 * 1472, &mut out);
        assert_eq!(out.frames.len(), 3);
        assert_eq!(s.next_timer(), Some(7));
        let mut more = Out {
            frames: vec![],
            room: usize::MAX,
        };
        s.on_timer(7, &mut more);
        assert_eq!(more.frames.len(), 7);
        assert_eq!(s.next_timer(), None);
    }

    #[test]
    fn a_message_missing_a_datagram_is_lost() {
        let mut s = UdpSender::new(1500);
        let mut out = Out {
            frames: vec![],
            room: usize::MAX,
        };
        s.send(0, 4000, &mut out); // 3 datagrams
        s.send(0, 100, &mut out); // 1 datagram
        s.send(0, 3000, &mut out); // 3 datagrams
        let mut r = UdpReceiver::default();
        // the middle datagram of message 0 and the last of message 2 are lost
        let kept: Vec<_> = out
            .frames
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 1 && *i != 6)
            .collect();
        let got: Vec<Delivery> = kept
            .iter()
            .map(|(_, (sdu, seg))| r.receive(*sdu, *seg))
            .collect();
        assert_eq!(
            got.iter()
                .filter(|d| matches!(d, Delivery::Complete { .. }))
                .count(),
            1
        );
        assert!(got.contains(&Delivery::Complete { msg: 1, bytes: 100 }));
        assert_eq!(r.stats.messages_complete, 1);
        assert_eq!(
            r.stats.messages_incomplete, 1,
            "message 0 seen incomplete; 2 still open"
        );
    }
}
