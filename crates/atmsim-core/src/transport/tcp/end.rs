//! One end of a TCP connection, full duplex: the sender of this end's data and the receiver of
//! the other end's, either absent when that direction carries no data.
//!
//! Incoming frames are dispatched by their header: a frame with data goes to the receiver, one
//! with an acknowledgement to the sender (a frame may carry both). An end with both halves
//! piggybacks: every data segment its sender sends carries the receiver's acknowledgement
//! number (`SEG_DATA | SEG_ACK`) and stands for the ACK (a pending delayed ACK is cancelled),
//! as 4.3BSD's tcp_output sets the ACK field on every segment and clears TF_DELACK (RFC 1122
//! section 4.2.3.2; Stevens, TCP/IP Illustrated vol. 2, ch. 26). An ACK the receiver owes on
//! a data arrival waits until the sender has reacted to the same frame (BSD's tcp_input leaves
//! it to the tcp_output call at its end), so data the frame's ACK releases carry it. One-way
//! ends (a sender or a receiver only) send exactly as before.

#[cfg(test)]
use super::Workload;
use super::{TcpParams, TcpReceiver, TcpSender};
use crate::time::SimTime;
use crate::transport::{SegmentOut, Transport};
#[cfg(test)]
use crate::wire::SEG_DATA;
use crate::wire::{SegHdr, SEG_ACK};

/// The sender's outbox of a duplex end: every data frame gets the receiver's acknowledgement.
struct Piggyback<'a, O> {
    r: &'a mut TcpReceiver,
    out: &'a mut O,
}

impl<O: SegmentOut> SegmentOut for Piggyback<'_, O> {
    fn room(&self) -> bool {
        self.out.room()
    }
    fn frame(&mut self, sdu: u32, mut seg: SegHdr) {
        if seg.has_data() {
            seg.flags |= SEG_ACK;
            seg.ack = self.r.piggyback();
        }
        self.out.frame(sdu, seg);
    }
}

/// Call the end's sender with its outbox: the piggybacking one when the end also receives.
macro_rules! with_sender {
    ($end:expr, $out:expr, |$s:ident, $o:ident| $body:expr) => {
        match (&mut $end.sender, &mut $end.receiver) {
            (Some($s), Some(r)) => {
                let $o = &mut Piggyback { r, out: &mut *$out };
                $body
            }
            (Some($s), None) => {
                let $o = &mut *$out;
                $body
            }
            (None, _) => {}
        }
    };
}

#[derive(Clone, Debug)]
pub struct TcpEnd {
    pub sender: Option<TcpSender>,
    pub receiver: Option<TcpReceiver>,
    /// The restart after idle this end applies when its application asks
    /// ([`TcpEnd::restart_window`]; set by the workload's `idle_restart`).
    pub idle_restart: IdleRestart,
}

/// What the sender does to its congestion window when the application writes after an idle
/// period (nothing unacknowledged): [`TcpEnd::restart_window`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleRestart {
    /// Keep the window.
    Never,
    /// BSD: idle for at least the retransmission timeout: cwnd back to the initial window.
    Rto,
    /// After any idle period.
    Always,
}

impl TcpEnd {
    /// An end that only sends (its ACKs come back).
    pub fn sender(p: TcpParams) -> Self {
        TcpEnd {
            sender: Some(TcpSender::new(p)),
            receiver: None,
            idle_restart: IdleRestart::Never,
        }
    }
    /// An end that only receives (it sends ACKs).
    pub fn receiver(p: TcpParams) -> Self {
        TcpEnd {
            sender: None,
            receiver: Some(TcpReceiver::new(p)),
            idle_restart: IdleRestart::Never,
        }
    }
    /// An end that sends with `send` and receives the other end's data with `recv`'s receive
    /// parameters.
    pub fn duplex(send: TcpParams, recv: TcpParams) -> Self {
        TcpEnd {
            sender: Some(TcpSender::new(send)),
            receiver: Some(TcpReceiver::new(recv)),
            idle_restart: IdleRestart::Never,
        }
    }

    /// The application writes `bytes` (one TSDU) to this end's sender ([`TcpSender::write`]);
    /// nothing without a sender.
    pub fn write(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) {
        with_sender!(self, out, |s, o| s.write(now, bytes, o));
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

    /// The counters at the end of the warm-up, kept for the summary.
    pub fn mark_warmup(&mut self) {
        if let Some(s) = &mut self.sender {
            s.mark = s.stats.clone();
        }
        if let Some(r) = &mut self.receiver {
            r.mark = r.rcv_nxt;
        }
    }

    /// Before the application's write (seed 001 workloads, docs/workloads.md): a fresh run's
    /// window (`fresh`: the run starts as a new connection would), or the restart after idle:
    /// `Always` when nothing was unacknowledged since before now (`idle_since`), `Rto` (4.4BSD
    /// `tcp_output`: "We have been idle for "a while" and no acks are expected to clock out any
    /// data we send -- slow start to get ack "clock" running again") when also no segment
    /// arrived for one RTO (`quiet_since`). The window goes back to the initial window (BSD:
    /// one segment, the default initial window). Moved from the workload runner.
    pub fn restart_window(
        &mut self,
        fresh: bool,
        idle_since: Option<SimTime>,
        quiet_since: Option<SimTime>,
        now: SimTime,
    ) {
        let idle = self.idle_restart;
        let Some(s) = self.sender.as_mut() else {
            return;
        };
        let iw = s.p.initial_cwnd as u64 * s.p.mss as u64;
        if fresh {
            // a fresh connection: initial window and ssthresh
            s.cwnd = iw;
            s.ssthresh = TcpSender::new(s.p.clone()).ssthresh;
            return;
        }
        if s.snd_una != s.snd_max {
            return; // not idle
        }
        let (Some(since), Some(quiet)) = (idle_since, quiet_since) else {
            return;
        };
        let restart = match idle {
            IdleRestart::Never => false,
            IdleRestart::Always => now > since,
            // 4.4BSD tcp_output: idle && t_idle >= t_rxtcur (t_idle counts from the last
            // segment received)
            IdleRestart::Rto => now - quiet >= s.rto(),
        };
        if restart {
            s.cwnd = s.cwnd.min(iw);
        }
    }
}

impl Transport for TcpEnd {
    fn next_timer(&self) -> Option<SimTime> {
        crate::transport::earliest(
            self.sender.as_ref().and_then(|s| s.next_timer()),
            self.receiver.as_ref().and_then(|r| r.next_timer()),
        )
    }
    /// Both halves are called: each checks its own deadlines (the receiver acts only when its
    /// delayed ACK is due; the sender's output is idempotent when nothing changed).
    fn on_timer(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        with_sender!(self, out, |s, o| s.on_timer(now, o));
        if let Some(r) = &mut self.receiver {
            r.on_timer(now, out);
        }
    }
    /// Data first (the receiver decides whether an ACK is due), then the acknowledgement (the
    /// sender may send, carrying that ACK), then the ACK still owed as a frame of its own.
    fn on_frame(&mut self, now: SimTime, sdu: u32, seg: SegHdr, out: &mut impl SegmentOut) {
        let duplex = self.sender.is_some();
        if let (Some(r), true) = (&mut self.receiver, seg.has_data()) {
            r.hold = duplex;
            r.on_segment(now, sdu, seg.seq, out);
        }
        if seg.has_ack() {
            if let (Some(s), Some(w)) = (&mut self.sender, seg.window()) {
                s.on_window(seg.ack, w);
            }
            let with_data = seg.has_data();
            with_sender!(self, out, |s, o| if with_data {
                s.on_piggybacked_ack(now, seg.ack, o)
            } else {
                s.on_ack(now, seg.ack, o)
            });
        }
        if let Some(r) = &mut self.receiver {
            r.release(out);
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

    /// B has one segment of A's unacknowledged (its delayed ACK pending); B's application
    /// writes: the data segment carries the ACK and the delayed ACK is cancelled (no pure ACK
    /// ever goes). A gets the ACK from the data segment; three more acknowledging
    /// nothing new are no duplicate ACKs (Reno would retransmit on the third).
    #[test]
    fn data_carries_the_ack_and_cancels_the_delayed_ack() {
        let mut p = params(); // MSS 512
        p.delayed_ack = true;
        p.recovery = super::super::Recovery::Reno;
        p.workload = Workload::App;
        p.initial_cwnd = 8;
        let mut a = TcpEnd::duplex(p.clone(), p.clone());
        let mut b = TcpEnd::duplex(p.clone(), p);
        let mut out = Out::default();
        a.on_timer(0, &mut out);
        b.on_timer(0, &mut out);
        a.write(1, 512, &mut out);
        let (sdu, seg) = out.frames.pop().unwrap();
        assert_eq!(
            seg,
            SegHdr {
                flags: SEG_DATA | SEG_ACK,
                seq: 0,
                ack: 0,
                conn: 0
            }
        );
        b.on_frame(2, sdu, seg, &mut out);
        assert!(out.frames.is_empty(), "one segment: the ACK is delayed");
        assert!(b.next_timer().is_some());
        b.write(3, 4 * 512, &mut out);
        assert_eq!(out.frames.len(), 4);
        for f in &out.frames {
            assert_eq!(f.1.flags, SEG_DATA | SEG_ACK);
            assert_eq!(f.1.ack, 512);
        }
        let r = b.receiver.as_ref().unwrap();
        assert_eq!((r.acks_sent, r.piggybacked_acks), (0, 4));
        assert_eq!(
            b.next_timer(),
            b.sender.as_ref().unwrap().next_timer(),
            "no delayed ACK"
        );
        // A: the first data segment acknowledges its 512 B; the next three acknowledge nothing new
        // while A has new data outstanding: not duplicate ACKs
        let from_b: Vec<_> = out.frames.drain(..).collect();
        a.write(4, 512, &mut out);
        assert_eq!(out.frames.len(), 1, "a full segment: Nagle lets it go");
        for (sdu, seg) in from_b {
            a.on_frame(5, sdu, seg, &mut out);
        }
        let sa = a.sender.as_ref().unwrap();
        assert_eq!(sa.acked(), 512);
        assert_eq!(sa.stats.fast_retransmits, 0);
        assert_eq!(sa.stats.retransmitted_segments, 0);
    }
}
