//! The receiving end of an XTPX connection: in-order delivery (rseq), out-of-order packets kept
//! (selective repeat) or dropped (go-back-n), gaps skipped (no error control), and status
//! reports on SREQ and, with FASTNAK, at once when a packet arrives beyond a gap. The window
//! (XTP's alloc) is rseq + window: the receiving application reads at once, so the sender
//! computes it from rseq and it is not carried.

use super::{unwrap, ErrorControl, XtpxParams, SPAN_BYTES, XF_SPAN, XF_SREQ};
use crate::time::SimTime;
use crate::transport::SegmentOut;
use crate::wire::{SegHdr, SEG_ACK};

/// The receiving end of an XTPX connection.
#[derive(Clone, Debug)]
pub struct XtpxReceiver {
    pub p: XtpxParams,
    /// Every byte below is delivered in order (without error control: the next byte after the
    /// highest received, gaps skipped).
    pub rseq: u64,
    /// The highest byte received + 1.
    pub rcv_max: u64,
    /// Out-of-order data held (selective repeat; merged, sorted byte ranges).
    ooo: Vec<(u64, u64)>,
    /// Bytes handed to the application (without error control gaps are missing from it).
    delivered: u64,
    /// A report is owed (the outbox was full).
    owed: bool,
    pub reports_sent: u64,
    pub dup_packets: u64,
    pub ooo_packets: u64,
    /// Bytes never received and skipped (no error control).
    pub skipped_bytes: u64,
    /// Delivered bytes at the end of warm-up.
    pub mark: u64,
    /// Skipped bytes at the end of warm-up.
    pub skipped_mark: u64,
}

impl XtpxReceiver {
    pub fn new(p: XtpxParams) -> Self {
        XtpxReceiver {
            p,
            rseq: 0,
            rcv_max: 0,
            ooo: Vec::new(),
            delivered: 0,
            owed: false,
            reports_sent: 0,
            dup_packets: 0,
            ooo_packets: 0,
            skipped_bytes: 0,
            mark: 0,
            skipped_mark: 0,
        }
    }

    /// Bytes delivered to the application so far (in order; without error control, in the
    /// order they arrived, gaps skipped).
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    pub fn next_timer(&self) -> Option<SimTime> {
        self.owed.then_some(0)
    }

    /// A report is owed from a full outbox: send it.
    pub fn on_timer(&mut self, _now: SimTime, out: &mut impl SegmentOut) {
        if self.owed {
            self.owed = false;
            self.report(out);
        }
    }

    /// An intact data packet arrived: `sdu` AAL5 bytes, header `seg`.
    pub fn on_packet(&mut self, _now: SimTime, sdu: u32, seg: SegHdr, out: &mut impl SegmentOut) {
        let len = sdu.saturating_sub(self.p.header_bytes) as u64;
        let seq = unwrap(self.rseq, seg.seq);
        let end = seq + len;
        let mut gap = false;
        if len > 0 {
            match self.p.error_control {
                ErrorControl::None => {
                    if end <= self.rseq {
                        self.dup_packets += 1;
                    } else {
                        if seq > self.rseq {
                            self.skipped_bytes += seq - self.rseq;
                            self.ooo_packets += 1;
                        }
                        self.delivered += end - seq.max(self.rseq);
                        self.rseq = end;
                    }
                }
                ErrorControl::GoBackN | ErrorControl::SelectiveRepeat => {
                    if end <= self.rseq {
                        self.dup_packets += 1;
                    } else if seq > self.rseq {
                        self.ooo_packets += 1;
                        gap = true;
                        if self.p.error_control == ErrorControl::SelectiveRepeat {
                            self.insert(seq, end);
                        }
                    } else {
                        self.advance(end);
                    }
                }
            }
            self.rcv_max = self.rcv_max.max(end);
        }
        if seg.flags & XF_SREQ != 0 || (gap && self.p.fastnak) {
            self.report(out);
        }
    }

    /// In-order data up to `end`, and the held ranges it reaches.
    fn advance(&mut self, end: u64) {
        let from = self.rseq;
        self.rseq = end;
        while let Some(&(s, e)) = self.ooo.first() {
            if s > self.rseq {
                break;
            }
            self.rseq = self.rseq.max(e);
            self.ooo.remove(0);
        }
        self.delivered += self.rseq - from;
    }

    fn insert(&mut self, s: u64, e: u64) {
        let i = self.ooo.partition_point(|r| r.0 < s);
        self.ooo.insert(i, (s, e));
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.ooo.len());
        for &(a, b) in &self.ooo {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        self.ooo = merged;
    }

    /// The gaps between rseq and the highest byte held (selective repeat), at most as many
    /// as one ECNTL carries.
    fn gaps(&self) -> Vec<(u64, u64)> {
        let mut gaps = Vec::new();
        let mut at = self.rseq;
        for &(s, e) in &self.ooo {
            if s > at {
                gaps.push((at, s));
            }
            at = at.max(e);
        }
        gaps.truncate(self.p.max_spans());
        gaps
    }

    /// Send a status report: a CNTL, or the first frame of an ECNTL and one frame per gap.
    fn report(&mut self, out: &mut impl SegmentOut) {
        if !out.room() {
            self.owed = true;
            return;
        }
        let gaps = if self.p.error_control == ErrorControl::SelectiveRepeat {
            self.gaps()
        } else {
            Vec::new()
        };
        let size = if gaps.is_empty() {
            self.p.cntl_frame()
        } else {
            self.p.ecntl_frame()
        };
        let head = SegHdr {
            flags: SEG_ACK,
            ack: self.rseq as u32,
            seq: self.rcv_max as u32,
            ..Default::default()
        };
        out.frame(size, head);
        self.reports_sent += 1;
        for (a, b) in gaps {
            if !out.room() {
                self.owed = true;
                return;
            }
            let seg = SegHdr {
                flags: XF_SPAN,
                ack: a as u32,
                seq: b as u32,
                ..Default::default()
            };
            out.frame(SPAN_BYTES, seg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::xtpx::testing::Out;

    fn data(seq: u32, sreq: bool) -> SegHdr {
        let mut h = SegHdr::data(seq);
        if sreq {
            h.flags |= XF_SREQ;
        }
        h
    }

    fn params(ec: ErrorControl) -> XtpxParams {
        let mut p = XtpxParams::new(1032);
        p.error_control = ec;
        p
    }

    #[test]
    fn selective_repeat_holds_and_reports_every_gap() {
        let mut r = XtpxReceiver::new(params(ErrorControl::SelectiveRepeat));
        let mut out = Out::default();
        r.on_packet(0, 1032, data(0, false), &mut out);
        assert!(out.frames.is_empty());
        r.on_packet(0, 1032, data(2000, false), &mut out); // 1000..2000 missing: FASTNAK
        r.on_packet(0, 1032, data(4000, true), &mut out); // and 3000..4000
        let last: Vec<(u32, SegHdr)> = out.frames[2..].to_vec();
        assert_eq!(last[0].0, 56);
        assert_eq!((last[0].1.ack, last[0].1.seq), (1000, 5000));
        assert_eq!(
            last[1..]
                .iter()
                .map(|f| (f.0, f.1.flags, f.1.ack, f.1.seq))
                .collect::<Vec<_>>(),
            vec![(16, XF_SPAN, 1000, 2000), (16, XF_SPAN, 3000, 4000)]
        );
        out.frames.clear();
        r.on_packet(0, 1032, data(1000, true), &mut out);
        assert_eq!(r.rseq, 3000);
        r.on_packet(0, 1032, data(3000, true), &mut out);
        assert_eq!(r.rseq, 5000);
        assert_eq!(r.delivered(), 5000);
        assert_eq!(out.frames.last().unwrap().0, 52, "no gap: a CNTL");
    }

    #[test]
    fn go_back_n_drops_what_is_out_of_order() {
        let mut r = XtpxReceiver::new(params(ErrorControl::GoBackN));
        let mut out = Out::default();
        r.on_packet(0, 1032, data(0, true), &mut out);
        r.on_packet(0, 1032, data(2000, true), &mut out);
        assert_eq!(r.rseq, 1000);
        let h = out.frames.last().unwrap();
        assert_eq!((h.0, h.1.ack, h.1.seq), (52, 1000, 3000));
        r.on_packet(0, 1032, data(1000, false), &mut out);
        assert_eq!(r.rseq, 2000, "2000..3000 was dropped and must come again");
        r.on_packet(0, 1032, data(0, false), &mut out);
        assert_eq!(r.dup_packets, 1);
        assert_eq!(r.delivered(), 2000);
    }

    #[test]
    fn without_error_control_gaps_are_skipped() {
        let mut r = XtpxReceiver::new(params(ErrorControl::None));
        let mut out = Out::default();
        r.on_packet(0, 1032, data(0, false), &mut out);
        r.on_packet(0, 1032, data(2000, false), &mut out);
        assert!(out.frames.is_empty());
        assert_eq!((r.rseq, r.delivered(), r.skipped_bytes), (3000, 2000, 1000));
    }

    #[test]
    fn a_full_outbox_owes_the_report() {
        let mut r = XtpxReceiver::new(params(ErrorControl::GoBackN));
        let mut out = Out {
            cap: 1,
            ..Default::default()
        };
        out.frames.push((0, SegHdr::default()));
        r.on_packet(0, 1032, data(0, true), &mut out);
        assert_eq!(r.next_timer(), Some(0));
        out.frames.clear();
        r.on_timer(0, &mut out);
        assert_eq!(out.frames[0].1.ack, 1000);
    }
}
