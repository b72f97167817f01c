//! One end of an XTPX connection, full duplex: the sender of this end's data and the receiver
//! of the other end's, either absent when that direction carries no data. Incoming frames are
//! dispatched by their header: data packets to the receiver, status reports (CNTL, ECNTL and
//! its span frames) to the sender.

use super::{XtpxParams, XtpxReceiver, XtpxSender, XF_SPAN};
use crate::time::SimTime;
use crate::transport::{SegmentOut, Transport};
use crate::wire::SegHdr;

#[derive(Clone, Debug)]
pub struct XtpxEnd {
    pub sender: Option<XtpxSender>,
    pub receiver: Option<XtpxReceiver>,
}

impl XtpxEnd {
    /// An end that only sends (its status reports come back).
    pub fn sender(p: XtpxParams) -> Self {
        XtpxEnd {
            sender: Some(XtpxSender::new(p)),
            receiver: None,
        }
    }
    /// An end that only receives (it sends status reports).
    pub fn receiver(p: XtpxParams) -> Self {
        XtpxEnd {
            sender: None,
            receiver: Some(XtpxReceiver::new(p)),
        }
    }
    /// An end that sends and receives with parameters `p` both ways.
    pub fn duplex(p: XtpxParams) -> Self {
        XtpxEnd {
            sender: Some(XtpxSender::new(p.clone())),
            receiver: Some(XtpxReceiver::new(p)),
        }
    }
    /// See [`XtpxSender::write`]; nothing for an end that does not send.
    pub fn write(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) {
        if let Some(s) = &mut self.sender {
            s.write(now, bytes, out);
        }
    }
    /// See [`XtpxSender::send_buffered`]; 0 for an end that does not send.
    pub fn send_buffered(&self) -> u64 {
        self.sender.as_ref().map_or(0, |s| s.send_buffered())
    }
    /// See [`XtpxReceiver::delivered`]; 0 for an end that does not receive.
    pub fn delivered(&self) -> u64 {
        self.receiver.as_ref().map_or(0, |r| r.delivered())
    }
    /// The counters at the end of the warm-up, kept for the summary.
    pub fn mark_warmup(&mut self) {
        if let Some(s) = &mut self.sender {
            s.mark = s.stats.clone();
        }
        if let Some(r) = &mut self.receiver {
            r.mark = r.delivered();
            r.skipped_mark = r.skipped_bytes;
        }
    }
}

impl Transport for XtpxEnd {
    fn next_timer(&self) -> Option<SimTime> {
        crate::transport::earliest(
            self.sender.as_ref().and_then(|s| s.next_timer()),
            self.receiver.as_ref().and_then(|r| r.next_timer()),
        )
    }
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
            r.on_packet(now, sdu, seg, out);
        }
        if let Some(s) = &mut self.sender {
            if seg.has_ack() {
                s.on_report(now, seg.ack, seg.seq, out);
            } else if seg.flags & XF_SPAN != 0 {
                s.on_span(now, seg.ack, seg.seq, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Out;
    use super::super::{ErrorControl, Workload};
    use super::*;

    /// Two ends exchange frames directly, every 23rd data frame lost on the way: with either
    /// error control every byte arrives exactly once, in order; selective repeat resends
    /// fewer packets than go-back-n.
    fn lossy(ec: ErrorControl) -> (u64, u64) {
        let bytes = 200_000;
        let mut p = XtpxParams::new(1032);
        p.error_control = ec;
        p.window = Some(16_000);
        p.timer = 50;
        let mut a = XtpxEnd::sender(XtpxParams {
            workload: Workload::Bytes(bytes),
            ..p.clone()
        });
        let mut b = XtpxEnd::receiver(p);
        let mut to_b: Vec<(u32, SegHdr)> = Vec::new();
        let mut to_a: Vec<(u32, SegHdr)> = Vec::new();
        let mut n = 0u64;
        for now in 0..20_000u64 {
            let mut out = Out::default();
            if a.next_timer().is_some_and(|t| t <= now) {
                a.on_timer(now, &mut out);
            }
            for (sdu, seg) in to_a.drain(..) {
                a.on_frame(now, sdu, seg, &mut out);
            }
            for f in out.frames.drain(..) {
                n += 1;
                if n % 23 != 0 {
                    to_b.push(f);
                }
            }
            for (sdu, seg) in std::mem::take(&mut to_b) {
                let r = b.receiver.as_ref().unwrap();
                let before = r.delivered();
                b.on_frame(now, sdu, seg, &mut out);
                let r = b.receiver.as_ref().unwrap();
                // in order: what is delivered is exactly the prefix up to rseq
                assert_eq!(r.delivered(), r.rseq);
                assert!(r.delivered() >= before);
            }
            to_a.extend(out.frames.drain(..));
        }
        let s = a.sender.as_ref().unwrap();
        assert!(
            s.done(),
            "{ec:?}: transfer complete: una {} nxt {} max {} rcv {} {:?} timer {:?}",
            s.snd_una,
            s.snd_nxt,
            s.snd_max,
            b.delivered(),
            s.stats,
            s.next_timer()
        );
        assert_eq!(b.delivered(), bytes, "{ec:?}: every byte exactly once");
        (s.stats.retransmitted_packets, s.stats.packets_sent)
    }

    #[test]
    fn both_error_controls_deliver_everything_and_selective_repeat_resends_less() {
        let (gbn, _) = lossy(ErrorControl::GoBackN);
        let (sr, _) = lossy(ErrorControl::SelectiveRepeat);
        assert!(sr > 0 && sr < gbn, "sr {sr}, gbn {gbn}");
    }
}
