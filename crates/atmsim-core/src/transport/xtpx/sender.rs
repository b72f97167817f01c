//! The sending end of an XTPX connection: packets cut from the application's data under the
//! rate credit ([`super::rate`]) and the receiver's window (alloc = rseq + window), SREQ on
//! every `status_every`-th packet and on the last before the sender stops, status reports
//! (rseq, highest byte received) and gaps processed by the error control ([`super::error`]),
//! the retransmission timer with backoff.

use super::error::Repeat;
use super::rate::RateControl;
use super::{unwrap, ErrorControl, Workload, XtpxParams, XtpxStats, XF_SREQ};
use crate::metrics::probe::{ColumnDecl, Row, TableDecl, FLOW_KEY};
use crate::time::SimTime;
use crate::transport::SegmentOut;
use crate::wire::{SegHdr, SEG_DATA};

/// The sending end of an XTPX connection.
#[derive(Clone, Debug)]
pub struct XtpxSender {
    pub p: XtpxParams,
    /// rseq of the latest report (acknowledged in order), next byte to send, highest sent + 1.
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// The highest byte received + 1 of the latest report.
    pub rcv_max: u64,
    pub rate: Option<RateControl>,
    repeat: Repeat,
    /// Go-back-n: everything sent at the last go-back.
    gbn_mark: Option<u64>,
    since_sreq: u32,
    timer_at: Option<SimTime>,
    backoff: u32,
    /// Output stopped by the outbox, or by the rate credit with data waiting.
    more: bool,
    wait_rate: bool,
    started: bool,
    written: u64,
    pub done_at: Option<SimTime>,
    pub stats: XtpxStats,
    /// The counters at the end of warm-up.
    pub mark: XtpxStats,
}

impl XtpxSender {
    /// The `xtpx` series: every XTPX sender at every sample.
    pub const PROBES: TableDecl = TableDecl {
        name: "xtpx",
        doc: "Every XTPX sender at every sample",
        key: FLOW_KEY,
        columns: &[
            ColumnDecl::u64(
                "outstanding_bytes",
                "bytes",
                "Bytes sent and not yet acknowledged (snd_max - rseq)",
            )
            .plot("outstanding", "unacknowledged bytes"),
            ColumnDecl::u64(
                "sent_bytes",
                "bytes",
                "Payload bytes sent so far, retransmissions included",
            ),
            ColumnDecl::u64(
                "retransmitted_packets",
                "packets",
                "Data packets resent so far",
            ),
        ],
        always: false,
        active: "",
    };

    /// Fill this sender's row of the `xtpx` series.
    pub fn probe(&self, mut row: Row<'_>) {
        row.u64("outstanding_bytes", self.snd_max - self.snd_una);
        row.u64("sent_bytes", self.stats.bytes_sent);
        row.u64("retransmitted_packets", self.stats.retransmitted_packets);
    }

    pub fn new(p: XtpxParams) -> Self {
        XtpxSender {
            rate: p.rate.map(|r| RateControl::new(r, p.start)),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            rcv_max: 0,
            repeat: Repeat::default(),
            gbn_mark: None,
            since_sreq: 0,
            timer_at: None,
            backoff: 0,
            more: false,
            wait_rate: false,
            started: false,
            written: 0,
            done_at: None,
            stats: XtpxStats::default(),
            mark: XtpxStats::default(),
            p,
        }
    }

    /// Bytes the application has given XTPX so far (bulk: unlimited).
    fn app_limit(&self) -> u64 {
        self.p.workload.limit(self.written)
    }

    /// The application appends `bytes` (one TSDU, [`Workload::App`]); XTPX sends at once what
    /// the rate credit and the window allow. Before the start time the data wait for it.
    pub fn write(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) {
        debug_assert!(
            self.p.workload == Workload::App,
            "write needs Workload::App"
        );
        self.written += bytes;
        self.stats.taken = self.stats.taken.max(self.written);
        self.output(now, out);
    }

    /// Bytes written and not yet acknowledged (bulk: unbounded, `u64::MAX - rseq`).
    pub fn send_buffered(&self) -> u64 {
        self.app_limit().saturating_sub(self.snd_una)
    }

    /// Bytes acknowledged in order by the receiver (without error control: reported
    /// received, gaps skipped).
    pub fn acked(&self) -> u64 {
        self.snd_una
    }

    /// True when a finite transfer is completely acknowledged (without error control and
    /// without a window, when it is completely sent).
    pub fn done(&self) -> bool {
        let end = match self.p.workload {
            Workload::Bytes(n) => n,
            _ => return false,
        };
        if self.p.needs_status() {
            self.snd_una >= end
        } else {
            self.snd_max >= end
        }
    }

    /// The current timer length (with backoff).
    fn timer_len(&self) -> u64 {
        self.p
            .timer
            .saturating_mul(1u64 << self.backoff.min(20))
            .min(self.p.timer_max)
    }

    fn arm(&mut self, now: SimTime) {
        self.timer_at = Some(now + self.timer_len());
    }

    /// The next time this sender needs to be called.
    pub fn next_timer(&self) -> Option<SimTime> {
        if !self.started {
            return Some(self.p.start);
        }
        if self.more {
            return Some(0); // at once (the engine clamps to now)
        }
        let rate = self
            .rate
            .as_ref()
            .filter(|_| self.wait_rate)
            .map(|r| r.next_interval());
        match (rate, self.timer_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Timer call: start, continue, a new rate interval, or the retransmission timer.
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        if !self.started {
            if now < self.p.start {
                return;
            }
            self.started = true;
        }
        self.more = false;
        if self.timer_at.is_some_and(|t| t <= now) {
            self.timeout(now, out);
        }
        self.output(now, out);
    }

    fn timeout(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        self.stats.timeouts += 1;
        self.backoff += 1;
        self.timer_at = None;
        let outstanding = self.snd_max > self.snd_una;
        match self.p.error_control {
            ErrorControl::GoBackN if outstanding => {
                self.snd_nxt = self.snd_una;
                self.gbn_mark = Some(self.snd_max);
            }
            ErrorControl::SelectiveRepeat if outstanding => {
                self.repeat.forget_marks();
                let end = self.snd_max.min(self.snd_una + self.p.max_payload as u64);
                if !self.repeat.queue.iter().any(|r| r.0 == self.snd_una) {
                    self.repeat.queue.push_front((self.snd_una, end));
                }
            }
            _ => {
                // no data to resend: ask for status with an empty packet
                if out.room() {
                    let seg = SegHdr {
                        flags: SEG_DATA | XF_SREQ,
                        seq: self.snd_nxt as u32,
                        ..Default::default()
                    };
                    out.frame(self.p.data_frame(0), seg);
                    self.since_sreq = 0;
                } else {
                    self.more = true;
                }
            }
        }
        self.arm(now);
    }

    /// A status report: `rseq32` (every byte below delivered in order) and `max32` (the
    /// highest byte received + 1).
    pub fn on_report(&mut self, now: SimTime, rseq32: u32, max32: u32, out: &mut impl SegmentOut) {
        let rseq = unwrap(self.snd_una, rseq32);
        let rcv_max = unwrap(self.snd_una, max32).max(rseq);
        if rseq < self.snd_una || rcv_max > self.snd_max {
            return; // older than what we know, or acknowledges data never sent
        }
        self.stats.reports += 1;
        self.rcv_max = rcv_max;
        if rseq > self.snd_una {
            self.snd_una = rseq;
            self.backoff = 0;
            self.repeat.acked(rseq);
            if self.snd_nxt < rseq {
                self.snd_nxt = rseq;
            }
            if self.done_at.is_none() && self.done() {
                self.done_at = Some(now);
            }
            self.timer_at = None;
        }
        if self.p.error_control == ErrorControl::GoBackN
            && rcv_max > rseq
            && self.gbn_mark.is_none_or(|m| rcv_max > m)
        {
            self.stats.go_backs += 1;
            self.snd_nxt = rseq;
            self.gbn_mark = Some(self.snd_max);
        }
        if self.snd_max > self.snd_una && self.timer_at.is_none() {
            self.arm(now);
        }
        self.output(now, out);
    }

    /// One gap of an ECNTL: bytes `a32`..`b32` missing at the receiver (selective repeat).
    pub fn on_span(&mut self, now: SimTime, a32: u32, b32: u32, out: &mut impl SegmentOut) {
        self.stats.spans += 1;
        if self.p.error_control != ErrorControl::SelectiveRepeat {
            return;
        }
        let a = unwrap(self.snd_una, a32).max(self.snd_una);
        let b = unwrap(self.snd_una, b32).min(self.snd_max);
        if a < b && self.repeat.gap(a, b, self.rcv_max) > 0 {
            self.output(now, out);
        }
    }

    fn send(&mut self, seq: u64, len: u32, sreq: bool, out: &mut impl SegmentOut) {
        let mut seg = SegHdr::data(seq as u32);
        if sreq {
            seg.flags |= XF_SREQ;
        }
        out.frame(self.p.data_frame(len), seg);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += len as u64;
        if seq < self.snd_max {
            self.stats.retransmitted_packets += 1;
            self.stats.retransmitted_bytes += len as u64;
        }
    }

    /// Send what the queued retransmissions, the data, the window and the rate credit allow.
    fn output(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        if !self.started {
            return;
        }
        if let Some(r) = &mut self.rate {
            r.refresh(now);
        }
        self.wait_rate = false;
        let limit = self.app_limit();
        let max = self.p.max_payload as u64;
        loop {
            let wnd_end = self
                .p
                .window
                .map_or(u64::MAX, |w| self.snd_una.saturating_add(w));
            let (seq, end, resend) = match self.repeat.queue.front() {
                Some(&(a, b)) => (a, b, true),
                None => (self.snd_nxt, limit.min(wnd_end), false),
            };
            if seq >= end {
                break;
            }
            let mut len = (end - seq).min(max);
            let credit = self.rate.as_ref().map(|r| r.credit());
            if let Some(c) = credit {
                if c == 0 {
                    self.wait_rate = true;
                    break;
                }
                len = len.min(c);
            }
            if !out.room() {
                self.more = true;
                break;
            }
            // SREQ: every n-th packet, and the last before the sender stops (credit, window,
            // data or queued retransmissions exhausted)
            self.since_sreq += 1;
            let stops = credit == Some(len)
                || (!resend && seq + len >= end)
                || (resend && seq + len >= end && self.repeat.queue.len() == 1);
            let sreq = self.p.needs_status() && (self.since_sreq >= self.p.status_every || stops);
            if sreq {
                self.since_sreq = 0;
            }
            self.send(seq, len as u32, sreq, out);
            if let Some(r) = &mut self.rate {
                r.spend(len);
            }
            if resend {
                let mark = self.snd_max;
                self.repeat.sent(seq, seq + len, mark);
                let front = self.repeat.queue.front_mut().expect("sending from it");
                front.0 += len;
                if front.0 >= front.1 {
                    self.repeat.queue.pop_front();
                }
            } else {
                self.snd_nxt += len;
                self.snd_max = self.snd_max.max(self.snd_nxt);
                self.stats.taken = self.stats.taken.max(self.snd_max);
            }
            if self.timer_at.is_none() && self.p.needs_status() {
                self.arm(now);
            }
        }
        if !self.p.needs_status() && self.done_at.is_none() && self.done() {
            self.done_at = Some(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::xtpx::testing::Out;
    use crate::transport::xtpx::Rate;

    fn params() -> XtpxParams {
        let mut p = XtpxParams::new(1032); // 1000-byte payloads
        p.timer = 1_000_000;
        p
    }

    fn started(p: XtpxParams) -> (XtpxSender, Out) {
        let mut s = XtpxSender::new(p);
        let mut out = Out::default();
        s.on_timer(0, &mut out);
        (s, out)
    }

    #[test]
    fn rate_control_sends_b_bytes_per_interval_cutting_the_last_packet() {
        let mut p = params();
        p.rate = Some(Rate {
            burst: 2500,
            interval: 100,
        });
        p.error_control = ErrorControl::None;
        let (mut s, mut out) = started(p);
        let lens: Vec<u32> = out.frames.iter().map(|f| f.0 - 32).collect();
        assert_eq!(lens, vec![1000, 1000, 500]);
        assert_eq!(s.next_timer(), Some(100));
        out.frames.clear();
        s.on_timer(100, &mut out);
        assert_eq!(out.frames.len(), 3);
        assert_eq!(s.snd_max, 5000);
        // no status is needed without window and error control: no SREQ
        assert!(out.frames.iter().all(|f| f.1.flags & XF_SREQ == 0));
    }

    #[test]
    fn the_window_stops_the_sender_until_a_report_opens_it() {
        let mut p = params();
        p.window = Some(3000);
        let (mut s, mut out) = started(p);
        assert_eq!(out.frames.len(), 3);
        assert!(out.frames.iter().all(|f| f.1.flags & XF_SREQ != 0));
        out.frames.clear();
        s.on_report(10, 1000, 1000, &mut out);
        assert_eq!(
            out.frames,
            vec![(1032, {
                let mut h = SegHdr::data(3000);
                h.flags |= XF_SREQ;
                h
            })]
        );
    }

    #[test]
    fn go_back_n_restarts_at_rseq_once_per_proof() {
        let mut p = params();
        p.error_control = ErrorControl::GoBackN;
        p.window = Some(5000);
        let (mut s, mut out) = started(p);
        assert_eq!(s.snd_max, 5000);
        out.frames.clear();
        // packet 1000..2000 lost: the receiver reports rseq 1000 and has seen up to 3000
        s.on_report(10, 1000, 3000, &mut out);
        assert_eq!(s.stats.go_backs, 1);
        let seqs: Vec<u32> = out.frames.iter().map(|f| f.1.seq).collect();
        assert_eq!(seqs, vec![1000, 2000, 3000, 4000, 5000]);
        assert_eq!(s.stats.retransmitted_packets, 4);
        // later reports from packets sent before the go-back: no second go-back
        s.on_report(11, 1000, 5000, &mut out);
        assert_eq!(s.stats.go_backs, 1);
    }

    #[test]
    fn selective_repeat_resends_only_the_gaps() {
        let mut p = params();
        p.window = Some(6000);
        let (mut s, mut out) = started(p);
        out.frames.clear();
        // 1000..2000 and 3000..4000 lost
        s.on_report(10, 1000, 6000, &mut out);
        // the window opened by 1000 bytes: one new packet; the gaps follow in their frames
        assert_eq!(out.frames.len(), 1);
        assert_eq!(out.frames[0].1.seq, 6000);
        out.frames.clear();
        s.on_span(10, 1000, 2000, &mut out);
        s.on_span(10, 3000, 4000, &mut out);
        let seqs: Vec<u32> = out.frames.iter().map(|f| f.1.seq).collect();
        assert_eq!(seqs, vec![1000, 3000]);
        assert_eq!(s.stats.retransmitted_packets, 2);
        // the same gaps reported again from before the retransmission: nothing more
        s.on_report(11, 1000, 7000, &mut out);
        s.on_span(11, 1000, 2000, &mut out);
        assert_eq!(s.stats.retransmitted_packets, 2);
        s.on_report(12, 7000, 7000, &mut out);
        assert_eq!(s.snd_una, 7000);
    }

    #[test]
    fn the_timer_backs_off_and_resends_the_first_packet() {
        let mut p = params();
        p.window = Some(2000);
        p.workload = Workload::Bytes(2000);
        let (mut s, mut out) = started(p);
        out.frames.clear();
        let t1 = s.next_timer().unwrap();
        assert_eq!(t1, 1_000_000);
        s.on_timer(t1, &mut out);
        assert_eq!(out.frames.len(), 1);
        assert_eq!(out.frames[0].1.seq, 0);
        assert_eq!(s.next_timer(), Some(t1 + 2_000_000));
        s.on_report(t1 + 5, 2000, 2000, &mut out);
        assert!(s.done());
        assert_eq!(s.next_timer(), None);
    }

    #[test]
    fn app_writes_are_sent_and_counted() {
        let mut p = params();
        p.workload = Workload::App;
        let (mut s, mut out) = started(p);
        assert!(out.frames.is_empty());
        s.write(1, 2500, &mut out);
        assert_eq!(out.frames.len(), 3);
        assert_eq!(s.send_buffered(), 2500);
        s.on_report(2, 2500, 2500, &mut out);
        assert_eq!(s.send_buffered(), 0);
    }
}
