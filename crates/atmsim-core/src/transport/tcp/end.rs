//! One end of a TCP connection, full duplex: the sender of this end's data and the receiver of
//! the other end's, either absent when that direction carries no data.
//!
//! Incoming frames are dispatched by their header: a frame with data goes to the receiver, one
//! with an acknowledgement to the sender (a frame may carry both). ACKs are sent as frames of
//! their own; BSD would piggyback a pending ACK on outgoing data ([`SegHdr`] has room for both
//! numbers, `SEG_DATA | SEG_ACK`): not modelled yet, the receiver's delayed-ACK timer decides.

#[cfg(test)]
use super::Workload;
use super::{TcpParams, TcpReceiver, TcpSender};
use crate::time::SimTime;
use crate::transport::{SegmentOut, Transport};
use crate::wire::SegHdr;

#[derive(Clone, Debug)]
pub struct TcpEnd {
    pub sender: Option<TcpSender>,
    pub receiver: Option<TcpReceiver>,
}

impl TcpEnd {
    /// An end that only sends (its ACKs come back).
    pub fn sender(p: TcpParams) -> Self {
        TcpEnd {
            sender: Some(TcpSender::new(p)),
            receiver: None,
        }
    }
    /// An end that only receives (it sends ACKs).
    pub fn receiver(p: TcpParams) -> Self {
        TcpEnd {
            sender: None,
            receiver: Some(TcpReceiver::new(p)),
        }
    }
    /// An end that sends with `send` and receives the other end's data with `recv`'s receive
    /// parameters.
    pub fn duplex(send: TcpParams, recv: TcpParams) -> Self {
        TcpEnd {
            sender: Some(TcpSender::new(send)),
            receiver: Some(TcpReceiver::new(recv)),
        }
    }

    /// The application writes `bytes` (one TSDU) to this end's sender ([`TcpSender::write`]);
    /// nothing without a sender.
    pub fn write(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) {
        if let Some(s) = &mut self.sender {
            s.write(now, bytes, out);
        }
    }
    /// See [`TcpSender::send_buffered`]; 0 without a sender.
    pub fn send_buffered(&self) -> u64 {
        self.sender.as_ref().map_or(0, |s| s.send_buffered())
    }
    /// The application read `bytes` ([`TcpReceiver::read`]); nothing without a receiver.
    pub fn read(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) {
        if let Some(r) = &mut self.receiver {
            r.read(now, bytes, out);
        }
    }
    /// See [`TcpReceiver::delivered`]; 0 without a receiver.
    pub fn delivered(&self) -> u64 {
        self.receiver.as_ref().map_or(0, |r| r.delivered())
    }
}

impl Transport for TcpEnd {
    fn next_timer(&self) -> Option<SimTime> {
        let s = self.sender.as_ref().and_then(|s| s.next_timer());
        let r = self.receiver.as_ref().and_then(|r| r.next_timer());
        match (s, r) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    /// Both halves are called: each checks its own deadlines (the receiver acts only when its
    /// delayed ACK is due; the sender's output is idempotent when nothing changed).
    fn on_timer(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        if let Some(s) = &mut self.sender {
            s.on_timer(now, out);
        }
        if let Some(r) = &mut self.receiver {
            r.on_timer(now, out);
        }
    }
    fn on_frame(&mut self, now: SimTime, sdu: u32, seg: SegHdr, out: &mut impl SegmentOut) {
        if let (Some(r), true) = (&mut self.receiver, seg.has_data()) {
            r.on_segment(now, sdu, seg.seq, out);
        }
        if let (Some(s), true) = (&mut self.sender, seg.has_ack()) {
            if let Some(w) = seg.window() {
                s.on_window(seg.ack, w);
            }
            s.on_ack(now, seg.ack, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{params, Out};
    use super::*;

    /// Two ends exchange frames directly (no network): each end's data reaches the other's
    /// receiver, each ACK the other's sender, and both byte streams complete.
    #[test]
    fn data_flows_both_ways_and_each_direction_is_acknowledged() {
        let bytes = 20 * 512;
        let p = |n| TcpParams {
            workload: Workload::Bytes(n),
            ..params()
        };
        let mut a = TcpEnd::duplex(p(bytes), params());
        let mut b = TcpEnd::duplex(p(bytes / 2), params());
        let (mut now, step) = (0u64, 1_000_000u64);
        let mut to_b: Vec<(u32, SegHdr)> = Vec::new();
        let mut to_a: Vec<(u32, SegHdr)> = Vec::new();
        for _ in 0..10_000 {
            let mut out = Out::default();
            if a.next_timer().is_some_and(|t| t <= now) {
                a.on_timer(now, &mut out);
            }
            for (sdu, seg) in to_a.drain(..) {
                a.on_frame(now, sdu, seg, &mut out);
            }
            to_b.extend(out.frames.drain(..));
            if b.next_timer().is_some_and(|t| t <= now) {
                b.on_timer(now, &mut out);
            }
            for (sdu, seg) in std::mem::take(&mut to_b) {
                b.on_frame(now, sdu, seg, &mut out);
            }
            to_a.extend(out.frames.drain(..));
            now += step;
        }
        let (sa, sb) = (a.sender.as_ref().unwrap(), b.sender.as_ref().unwrap());
        assert!(sa.done() && sb.done(), "both transfers complete");
        assert_eq!(b.receiver.as_ref().unwrap().rcv_nxt, bytes);
        assert_eq!(a.receiver.as_ref().unwrap().rcv_nxt, bytes / 2);
        assert_eq!((sa.acked(), sb.acked()), (bytes, bytes / 2));
    }
}
