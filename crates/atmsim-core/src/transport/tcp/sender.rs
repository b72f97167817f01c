//! The sending end of a BSD-style TCP connection: tcp_output (window, Nagle, sender SWS
//! avoidance), ACK processing with fast retransmit and Reno/NewReno recovery, Jacobson/Karels
//! RTT estimation on coarse ticks with Karn's rule, the retransmission timer with exponential
//! backoff. The window arithmetic is in [`super::cc`]. See the module doc of [`super`] for the
//! BSD choices. Moved from `tcp.rs`.

use super::cc;
use super::{Recovery, TcpParams, TcpStats, Workload};
use crate::metrics::probe::{ColumnDecl, Row, TableDecl, FLOW_KEY};
use crate::time::{SimDuration, SimTime};
use crate::transport::SegmentOut;
use crate::wire::SegHdr;

/// The sending end of a TCP connection.
#[derive(Clone, Debug)]
pub struct TcpSender {
    pub p: TcpParams,
    /// Oldest unacknowledged byte, next byte to send, highest byte sent + 1.
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    pub cwnd: u64,
    pub ssthresh: u64,
    dupacks: u32,
    in_recovery: bool,
    recover: u64,
    /// RTT estimator in ticks (None before the first sample).
    srtt: Option<f64>,
    rttvar: f64,
    /// Backoff shift (RTO x 2^shift).
    shift: u32,
    /// Timed segment: the byte whose acknowledgement ends the measurement, and the start time.
    timing: Option<(u64, SimTime)>,
    /// Retransmission timer expiry.
    rexmt_at: Option<SimTime>,
    /// Output stopped because the outbox was full: continue at once.
    more: bool,
    started: bool,
    /// Bytes the application wrote so far ([`Workload::App`]).
    written: u64,
    /// Right edge of the window the receiver advertised (None: it advertises none, the
    /// window is its whole buffer, `p.window`).
    adv_edge: Option<u64>,
    /// Persist timer (the window is closed with nothing outstanding) and its backoff.
    persist_at: Option<SimTime>,
    persist_shift: u32,
    /// Window probes sent.
    pub probes: u64,
    /// The frame being processed moved the window's right edge: an ACK that acknowledges
    /// nothing new is then a window update, not a duplicate ACK (BSD tcp_input).
    window_moved: bool,
    /// When a finite transfer was completely acknowledged.
    pub done_at: Option<SimTime>,
    pub stats: TcpStats,
    /// The counters at the end of the warm-up (the summary counts from there).
    pub mark: TcpStats,
}

impl TcpSender {
    /// The `tcp` series: every TCP sender (also TCP over ABR) at every sample.
    pub const PROBES: TableDecl = TableDecl {
        name: "tcp",
        doc: "Every TCP sender (also TCP over ABR) at every sample",
        key: FLOW_KEY,
        columns: &[
            ColumnDecl::u64("cwnd_bytes", "bytes", "Congestion window at the sample")
                .plot("cwnd", "congestion window"),
        ],
        always: false,
        active: "",
    };

    /// Fill this sender's row of the `tcp` series.
    pub fn probe(&self, mut row: Row<'_>) {
        row.u64("cwnd_bytes", self.cwnd);
    }

    pub fn new(p: TcpParams) -> Self {
        let cwnd = p.initial_cwnd as u64 * p.mss as u64;
        TcpSender {
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            cwnd,
            ssthresh: u64::MAX / 4,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            srtt: None,
            rttvar: 0.0,
            shift: 0,
            timing: None,
            rexmt_at: None,
            more: false,
            started: false,
            written: 0,
            adv_edge: None,
            persist_at: None,
            persist_shift: 0,
            probes: 0,
            window_moved: false,
            done_at: None,
            stats: TcpStats {
                max_cwnd: cwnd,
                ..Default::default()
            },
            mark: TcpStats::default(),
            p,
        }
    }

    /// The receiver's window (the receive buffer; 65,535 B at most without window scaling is
    /// enforced by validation).
    fn rwnd(&self) -> u64 {
        match self.adv_edge {
            None => self.p.window,
            Some(e) => e.saturating_sub(self.snd_una).min(self.p.window),
        }
    }

    /// The receiver advertised window `wnd` with acknowledgement number `ack32` (the frame's
    /// window field; called before [`TcpSender::on_ack`] for the same frame). Data sent beyond
    /// the window's right edge were window probes the receiver refused: they go again from
    /// the edge.
    pub fn on_window(&mut self, ack32: u32, wnd: u32) {
        let ack = self
            .snd_una
            .wrapping_add(ack32.wrapping_sub(self.snd_una as u32) as i32 as i64 as u64);
        let edge = ack + wnd as u64;
        self.window_moved = self.adv_edge != Some(edge);
        self.adv_edge = Some(edge);
        if edge < self.snd_nxt && ack >= self.snd_una {
            let back = edge.max(ack);
            self.snd_nxt = back;
            self.snd_max = back.max(ack);
            if self.timing.is_some_and(|(seq, _)| seq >= back) {
                self.timing = None;
            }
        }
    }

    /// Bytes the application has given TCP so far (bulk: unlimited).
    fn app_limit(&self) -> u64 {
        self.p.workload.limit(self.written)
    }

    /// The application appends `bytes` to the send buffer (one TSDU, [`Workload::App`]); TCP
    /// sends at once what the window, the congestion window and Nagle allow (BSD: `sosend`
    /// calls `tcp_output` after each write). Before the start time the data wait for it.
    pub fn write(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) {
        debug_assert!(
            self.p.workload == Workload::App,
            "write needs Workload::App"
        );
        match self.p.send_chunk {
            // sosend: one cluster at a time, tcp_output after each
            Some(c) if c > 0 && bytes > c => {
                let mut left = bytes;
                while left > 0 {
                    let n = left.min(c);
                    self.written += n;
                    self.stats.taken = self.stats.taken.max(self.written);
                    left -= n;
                    self.output(now, out);
                }
            }
            _ => {
                self.written += bytes;
                self.stats.taken = self.stats.taken.max(self.written);
                self.output(now, out);
            }
        }
    }

    /// Bytes written and not yet acknowledged (bulk: unbounded, `u64::MAX - snd_una`).
    pub fn send_buffered(&self) -> u64 {
        self.app_limit().saturating_sub(self.snd_una)
    }

    /// True when a finite transfer is completely acknowledged.
    pub fn done(&self) -> bool {
        matches!(self.p.workload, Workload::Bytes(n) if self.snd_una >= n)
    }

    /// Bytes acknowledged (delivered in order to the receiver).
    pub fn acked(&self) -> u64 {
        self.snd_una
    }

    /// Smoothed RTT in seconds (None before the first sample).
    pub fn srtt_s(&self) -> Option<f64> {
        self.srtt.map(|t| t * self.p.tick as f64 / 1e12)
    }

    /// The current RTO (before backoff) in ps.
    pub fn rto(&self) -> SimDuration {
        let t = self.p.tick as f64;
        let rto = match self.srtt {
            None => self.p.rto_initial as f64,
            // BSD rounds the tick count it loads into the timer
            Some(s) => (s + 4.0 * self.rttvar).round().max(1.0) * t,
        };
        (rto as SimDuration).clamp(self.p.rto_min, self.p.rto_max)
    }

    /// Expiry of a timer of `d` (rounded to whole ticks, at least one) set at `now`: the n-th
    /// tick boundary after `now`, as a countdown decremented by the coarse clock.
    fn tick_deadline(&self, now: SimTime, d: SimDuration) -> SimTime {
        let tick = self.p.tick;
        let n = d.div_ceil(tick).max(1);
        (now / tick + n) * tick
    }

    fn arm_rexmt(&mut self, now: SimTime) {
        let d = self
            .rto()
            .saturating_mul(1u64 << self.shift.min(12))
            .min(self.p.rto_max);
        self.rexmt_at = Some(self.tick_deadline(now, d));
    }

    /// The next time this sender needs to be called.
    pub fn next_timer(&self) -> Option<SimTime> {
        if !self.started {
            return Some(self.p.start);
        }
        if self.more {
            return Some(0); // at once (the engine clamps to now)
        }
        match (self.rexmt_at, self.persist_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Timer call: start, continue a cut-off burst, or a retransmission timeout.
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        if !self.started {
            if now < self.p.start {
                return;
            }
            self.started = true;
        }
        if self.rexmt_at.is_some_and(|t| t <= now) {
            self.timeout(now);
        }
        self.more = false;
        if self.persist_at.is_some_and(|t| t <= now) {
            self.persist_at = None;
            self.persist_shift = (self.persist_shift + 1).min(12);
            self.window_probe(now, out);
        }
        self.output(now, out);
    }

    /// The persist timer fired: one byte beyond the closed window (BSD's window probe); the
    /// receiver's answer carries its window.
    fn window_probe(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        if self.snd_nxt >= self.app_limit() || !out.room() {
            return;
        }
        self.probes += 1;
        let seq = self.snd_nxt;
        self.send(seq, 1, out);
        self.snd_nxt += 1;
        self.snd_max = self.snd_max.max(self.snd_nxt);
        self.stats.taken = self.stats.taken.max(self.snd_max);
        if self.rexmt_at.is_none() {
            self.arm_rexmt(now);
        }
    }

    fn timeout(&mut self, now: SimTime) {
        self.rexmt_at = None;
        self.stats.timeouts += 1;
        self.shift = (self.shift + 1).min(12);
        let mss = self.p.mss as u64;
        self.ssthresh = cc::ssthresh_after_loss(self.cwnd, self.rwnd(), mss);
        self.cwnd = mss;
        self.snd_nxt = self.snd_una; // go back N
        self.timing = None; // Karn: no sample from a retransmitted segment
        self.dupacks = 0;
        self.in_recovery = false;
        self.recover = self.snd_max;
        let _ = now;
    }

    /// An acknowledgement arrived (the 32-bit ACK number of an intact pure ACK frame).
    pub fn on_ack(&mut self, now: SimTime, ack32: u32, out: &mut impl SegmentOut) {
        self.ack_in(now, ack32, false, out);
    }

    /// An acknowledgement carried by a data segment of the other end: processed as a pure
    /// ACK, except that it is never a duplicate ACK (BSD tcp_input counts a duplicate only for
    /// a segment without data, `ti_len == 0` in 4.4BSD tcp_input, Stevens vol. 2 ch. 29).
    pub fn on_piggybacked_ack(&mut self, now: SimTime, ack32: u32, out: &mut impl SegmentOut) {
        self.ack_in(now, ack32, true, out);
    }

    fn ack_in(&mut self, now: SimTime, ack32: u32, with_data: bool, out: &mut impl SegmentOut) {
        // unwrap against snd_una
        let ack = self
            .snd_una
            .wrapping_add(ack32.wrapping_sub(self.snd_una as u32) as i32 as i64 as u64);
        if ack > self.snd_max {
            return; // acknowledges data never sent: ignore
        }
        let mss = self.p.mss as u64;
        let window_update = std::mem::take(&mut self.window_moved);
        if ack <= self.snd_una {
            if ack == self.snd_una && self.snd_max > self.snd_una && !window_update && !with_data {
                self.duplicate_ack(now, out);
            }
            if self.adv_edge.is_some() {
                self.output(now, out); // a window update may let data go
            }
            return;
        }
        // new data acknowledged
        if let Some((seq, t0)) = self.timing {
            if ack > seq {
                let ticks = (now / self.p.tick - t0 / self.p.tick) as f64 + 1.0;
                self.rtt_sample(ticks);
                self.timing = None;
            }
        }
        let acked = ack - self.snd_una;
        if self.in_recovery {
            match self.p.recovery {
                Recovery::NewReno if ack < self.recover => {
                    // partial ACK: retransmit the next hole, deflate by what was acknowledged
                    self.snd_una = ack;
                    self.cwnd = cc::partial_ack_deflate(self.cwnd, acked, mss);
                    self.retransmit_one(now, out);
                    self.arm_rexmt(now);
                    self.output(now, out);
                    return;
                }
                _ => {
                    self.in_recovery = false;
                    self.cwnd = self.ssthresh;
                }
            }
        } else {
            self.cwnd = cc::open(self.cwnd, self.ssthresh, mss);
        }
        self.cwnd = cc::clamp_to_rwnd(self.cwnd, self.p.window, mss);
        self.stats.max_cwnd = self.stats.max_cwnd.max(self.cwnd);
        self.dupacks = 0;
        self.snd_una = ack;
        if self.done_at.is_none() && self.done() {
            self.done_at = Some(now);
        }
        if self.snd_nxt < self.snd_una {
            self.snd_nxt = self.snd_una;
        }
        if self.snd_una >= self.snd_max {
            self.rexmt_at = None;
        } else {
            self.arm_rexmt(now);
        }
        self.output(now, out);
    }

    fn duplicate_ack(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        let mss = self.p.mss as u64;
        self.dupacks += 1;
        if self.p.recovery == Recovery::None {
            return;
        }
        if self.in_recovery {
            self.cwnd += mss; // each duplicate ACK: a segment has left the network
            self.output(now, out);
            return;
        }
        if self.dupacks != self.p.dupack_threshold {
            return;
        }
        if self.p.recovery == Recovery::NewReno && self.snd_una < self.recover {
            return; // RFC 6582: no new recovery for losses of the window already recovered
        }
        self.stats.fast_retransmits += 1;
        self.ssthresh = cc::ssthresh_after_loss(self.cwnd, self.rwnd(), mss);
        self.timing = None;
        self.recover = self.snd_max;
        match self.p.recovery {
            Recovery::Tahoe => {
                self.cwnd = mss;
                self.snd_nxt = self.snd_una;
                self.arm_rexmt(now);
                self.output(now, out);
            }
            _ => {
                self.retransmit_one(now, out);
                self.arm_rexmt(now);
                self.cwnd = cc::recovery_entry(self.ssthresh, self.p.dupack_threshold, mss);
                self.in_recovery = true;
                self.output(now, out);
            }
        }
    }

    /// Retransmit the segment at snd_una (fast retransmit, NewReno partial ACK).
    fn retransmit_one(&mut self, _now: SimTime, out: &mut impl SegmentOut) {
        let len = (self.p.mss as u64).min(self.snd_max - self.snd_una) as u32;
        if len > 0 {
            self.send(self.snd_una, len, out);
        }
    }

    fn send(&mut self, seq: u64, len: u32, out: &mut impl SegmentOut) {
        out.frame(TcpParams::frame_bytes(len), SegHdr::data(seq as u32));
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        if seq < self.snd_max {
            self.stats.retransmitted_segments += 1;
            self.stats.retransmitted_bytes += len as u64;
        }
    }

    fn rtt_sample(&mut self, ticks: f64) {
        self.stats.rtt_samples += 1;
        match self.srtt {
            None => {
                self.srtt = Some(ticks);
                self.rttvar = ticks / 2.0;
            }
            Some(s) => {
                let err = ticks - s;
                self.srtt = Some(s + err / 8.0);
                self.rttvar += (err.abs() - self.rttvar) / 4.0;
            }
        }
        self.shift = 0;
    }

    /// Send what the window, the data and the Nagle/SWS rules allow (BSD tcp_output).
    fn output(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        if !self.started {
            return;
        }
        let mss = self.p.mss as u64;
        let limit = self.app_limit();
        loop {
            let win = self.cwnd.min(self.rwnd());
            let wnd_end = self.snd_una + win;
            if self.snd_nxt >= wnd_end || self.snd_nxt >= limit {
                break;
            }
            let len = (wnd_end - self.snd_nxt).min(limit - self.snd_nxt).min(mss);
            if len < mss {
                // a short segment: only the end of the data, and (Nagle) only when nothing is
                // outstanding or it is a retransmission
                let end_of_data = self.snd_nxt + len == limit;
                let retransmission = self.snd_nxt < self.snd_max;
                let idle = self.snd_una == self.snd_max;
                if !retransmission && !(end_of_data && (!self.p.nagle || idle)) {
                    break;
                }
            }
            if !out.room() {
                self.more = true;
                break;
            }
            let seq = self.snd_nxt;
            self.send(seq, len as u32, out);
            if self.timing.is_none() && seq == self.snd_max {
                self.timing = Some((seq, now));
            }
            self.snd_nxt += len;
            self.snd_max = self.snd_max.max(self.snd_nxt);
            self.stats.taken = self.stats.taken.max(self.snd_max);
            if self.rexmt_at.is_none() {
                self.arm_rexmt(now);
            }
        }
        if self.adv_edge.is_some() {
            // a window too small to send in, with nothing outstanding to bring an ACK: the
            // persist timer (BSD's TCPT_PERSIST, RTO with backoff) will probe it
            let win = self.cwnd.min(self.rwnd());
            let blocked = self.snd_nxt < limit
                && self.snd_una == self.snd_max
                && self.snd_nxt + (limit - self.snd_nxt).min(mss) > self.snd_una + win;
            if !blocked {
                self.persist_at = None;
                self.persist_shift = 0;
            } else if self.persist_at.is_none() {
                let d = self
                    .rto()
                    .saturating_mul(1u64 << self.persist_shift)
                    .min(self.p.rto_max);
                self.persist_at = Some(self.tick_deadline(now, d));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::secs_to_ps;
    use crate::transport::tcp::testing::{params, Out};

    fn started(p: TcpParams) -> (TcpSender, Out) {
        let mut s = TcpSender::new(p);
        let mut out = Out::default();
        s.on_timer(0, &mut out);
        (s, out)
    }

    /// BSD's `sosend` hands a write to TCP one cluster at a time: on an idle connection with
    /// MSS 8,192 and Nagle, a 5,000 B write with 4,096 B clusters sends the first cluster at
    /// once and holds the 904 B tail for its ACK; without clusters the whole write is one
    /// segment (the end of the data on an idle connection); 4,000 B fits one cluster either way.
    #[test]
    fn sosend_hands_a_write_to_tcp_cluster_by_cluster() {
        let lens = |chunk: Option<u64>, bytes: u64| {
            let mut p = TcpParams::new(8192, 65_535);
            p.workload = Workload::App;
            p.initial_cwnd = 4;
            p.send_chunk = chunk;
            let (mut s, mut out) = started(p);
            s.write(1, bytes, &mut out);
            out.frames
                .iter()
                .map(|f| f.0 - super::super::TCP_IP_LLC_BYTES)
                .collect::<Vec<_>>()
        };
        assert_eq!(lens(Some(4096), 5000), vec![4096]);
        assert_eq!(lens(None, 5000), vec![5000]);
        assert_eq!(lens(Some(4096), 4000), vec![4000]);
        assert_eq!(lens(Some(4096), 9000), vec![4096], "one segment of 8,192 waits for data");
    }

    #[test]
    fn slow_start_sends_one_then_two_then_four() {
        let (mut s, mut out) = started(params());
        assert_eq!(out.frames.len(), 1);
        let mut round = 1;
        for expect in [2, 4, 8, 16] {
            // acknowledge every segment of the previous round one by one
            let sent: Vec<u32> = out.frames.iter().map(|f| f.1.seq).collect();
            out.frames.clear();
            for seq in sent {
                s.on_ack(round * 1_000_000, seq + 512, &mut out);
            }
            assert_eq!(out.frames.len(), expect, "round {round}");
            round += 1;
        }
    }

    #[test]
    fn congestion_avoidance_adds_about_one_segment_per_window() {
        let mut p = params();
        p.window = 1 << 20;
        let (mut s, mut out) = started(p);
        s.ssthresh = 8 * 512;
        s.cwnd = 8 * 512;
        let before = s.cwnd;
        for _ in 0..8 {
            let seq = s.snd_una as u32;
            s.on_ack(1, seq + 512, &mut out);
        }
        // eight ACKs of one window: +MSS*MSS/cwnd each, about one MSS in all
        let grown = s.cwnd - before;
        assert!((480..=512).contains(&grown), "{grown}");
    }

    #[test]
    fn timeout_halves_ssthresh_and_goes_back() {
        let (mut s, mut out) = started(params());
        // grow to 8 segments outstanding
        for _ in 0..3 {
            let sent: Vec<u32> = out.frames.drain(..).map(|f| f.1.seq).collect();
            for seq in sent {
                s.on_ack(1, seq + 512, &mut out);
            }
        }
        let outstanding = s.snd_max - s.snd_una;
        assert_eq!(outstanding, 8 * 512);
        let at = s.next_timer().unwrap();
        out.frames.clear();
        s.on_timer(at, &mut out);
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(s.cwnd, 512);
        assert_eq!(s.ssthresh, 4 * 512);
        assert_eq!(out.frames, vec![(560, SegHdr::data(s.snd_una as u32))]);
        assert_eq!(s.stats.retransmitted_segments, 1);
    }

    #[test]
    fn rto_timer_counts_whole_ticks() {
        let mut p = params();
        p.rto_initial = secs_to_ps(1.0);
        let (s, _) = started(p);
        // set at t = 0 for 1 s = 10 ticks of 100 ms: fires at 1.0 s
        assert_eq!(s.next_timer(), Some(secs_to_ps(1.0)));
        let mut s2 = TcpSender::new(s.p.clone());
        s2.p.start = secs_to_ps(0.05);
        let mut out = Out::default();
        s2.on_timer(secs_to_ps(0.05), &mut out);
        // set at 50 ms: the 10th tick boundary after it is 1.0 s (the countdown's first tick
        // comes after 50 ms only)
        assert_eq!(s2.next_timer(), Some(secs_to_ps(1.0)));
    }

    #[test]
    fn successive_timeouts_back_off_exponentially_to_the_maximum() {
        // RTO 1 s (initial, 100 ms ticks): each timeout without an ACK doubles the next one
        // (BSD's rexmt shift), 1, 2, 4, 8, ... s, until rto_max (64 s here) caps it
        let mut p = params();
        p.rto_initial = secs_to_ps(1.0);
        p.rto_max = secs_to_ps(64.0);
        let (mut s, mut out) = started(p);
        let mut at = s.next_timer().unwrap();
        assert_eq!(at, secs_to_ps(1.0));
        let mut gaps = vec![];
        for _ in 0..9 {
            s.on_timer(at, &mut out);
            let next = s.next_timer().unwrap();
            gaps.push((next - at) as f64 / 1e12);
            at = next;
        }
        assert_eq!(
            gaps,
            vec![2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 64.0, 64.0, 64.0]
        );
        assert_eq!(s.stats.timeouts, 9);
        // Karn: an ACK of the retransmitted segment gives no RTT sample, so the backed-off RTO
        // stays (BSD keeps t_rxtcur until tcp_xmit_timer runs)
        let una = s.snd_una as u32;
        at += 1;
        s.on_ack(at, una + 512, &mut out);
        assert_eq!(s.srtt_s(), None);
        let next = s.next_timer().unwrap();
        assert!(next - at >= secs_to_ps(64.0) - s.p.tick, "{next} {at}");
        // the next new segment is timed; its ACK is a valid sample and ends the backoff
        let (seq, _) = s.timing.expect("a new segment is timed");
        at += secs_to_ps(0.25);
        s.on_ack(at, seq as u32 + 512, &mut out);
        assert!(s.srtt_s().is_some());
        let next = s.next_timer().unwrap();
        assert!(next - at <= s.rto() + s.p.tick, "{next} {at}");
        assert!(s.rto() < secs_to_ps(2.0));
    }

    #[test]
    fn bsd_slow_timer_granularity_of_500_ms() {
        // with 500 ms ticks every timer is a whole number of ticks: an RTT sample within one
        // tick gives RTO = srtt + 4 rttvar = 1 + 2 = 3 ticks = 1.5 s, and a timer set 0.2 s
        // into a tick fires on the tick boundary 3 ticks on
        let mut p = params();
        p.tick = secs_to_ps(0.5);
        p.rto_min = secs_to_ps(0.5);
        let (mut s, mut out) = started(p);
        s.on_ack(secs_to_ps(0.2), 512, &mut out);
        assert_eq!(s.rto(), secs_to_ps(1.5));
        assert_eq!(s.next_timer(), Some(secs_to_ps(1.5)));
    }

    #[test]
    fn karn_takes_no_sample_from_a_retransmitted_segment() {
        // a segment is timed, times out and is retransmitted; its late ACK must not be taken as
        // an RTT sample (it could belong to either transmission): srtt stays unset
        let mut p = params();
        p.rto_initial = secs_to_ps(1.0);
        let (mut s, mut out) = started(p);
        assert!(s.timing.is_some());
        let at = s.next_timer().unwrap();
        s.on_timer(at, &mut out);
        s.on_ack(at + secs_to_ps(0.35), 512, &mut out);
        assert_eq!(s.srtt_s(), None);
        // the next new segment is timed again and gives the first sample
        assert!(s.timing.is_some());
        let seq = s.snd_una as u32;
        s.on_ack(at + secs_to_ps(0.45), seq + 512, &mut out);
        assert!(s.srtt_s().is_some());
    }

    #[test]
    fn jacobson_karels_on_tick_samples() {
        let (mut s, mut out) = started(params());
        // first sample: 1 tick (the ACK comes within the same tick) -> srtt 1, rttvar 0.5,
        // RTO = 1 + 2 = 3 ticks
        s.on_ack(secs_to_ps(0.03), 512, &mut out);
        assert_eq!(s.rto(), secs_to_ps(0.3));
        // Karn: after a timeout the retransmitted segment is not timed
        let at = s.next_timer().unwrap();
        s.on_timer(at, &mut out);
        assert!(s.timing.is_none());
    }

    #[test]
    fn fast_retransmit_reno_inflates_and_deflates() {
        let mut p = params();
        p.recovery = Recovery::Reno;
        p.window = 1 << 20;
        let (mut s, mut out) = started(p);
        s.cwnd = 16 * 512;
        s.ssthresh = 1 << 30;
        out.frames.clear();
        s.output(0, &mut out);
        assert_eq!(s.snd_max, 16 * 512);
        out.frames.clear();
        for _ in 0..3 {
            s.on_ack(1, 0, &mut out); // three duplicate ACKs of byte 0
        }
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(out.frames[0], (560, SegHdr::data(0)));
        assert_eq!(s.ssthresh, 8 * 512);
        assert_eq!(s.cwnd, 11 * 512);
        s.on_ack(2, 16 * 512, &mut out);
        assert_eq!(s.cwnd, 8 * 512);
        assert!(!s.in_recovery);
    }

    #[test]
    fn newreno_retransmits_on_partial_ack() {
        let mut p = params();
        p.recovery = Recovery::NewReno;
        p.window = 1 << 20;
        let (mut s, mut out) = started(p);
        s.cwnd = 16 * 512;
        s.output(0, &mut out);
        out.frames.clear();
        for _ in 0..3 {
            s.on_ack(1, 0, &mut out);
        }
        out.frames.clear();
        // segments 0 and 5 were lost: the ACK after the retransmission stops at 5 * 512
        s.on_ack(2, 5 * 512, &mut out);
        assert!(s.in_recovery);
        assert_eq!(out.frames[0], (560, SegHdr::data(5 * 512)));
        s.on_ack(3, 16 * 512, &mut out);
        assert!(!s.in_recovery);
    }

    #[test]
    fn nagle_holds_a_small_segment_while_data_is_outstanding() {
        let mut p = params();
        p.workload = Workload::Bytes(512 + 100);
        p.window = 1 << 20;
        let (mut s, mut out) = started(p.clone());
        s.cwnd = 10 * 512;
        s.output(0, &mut out);
        assert_eq!(out.frames.len(), 1, "the 100-byte tail waits for the ACK");
        s.on_ack(1, 512, &mut out);
        assert_eq!(out.frames.last(), Some(&(148, SegHdr::data(512))));
        p.nagle = false;
        let (mut s, mut out) = started(p);
        s.cwnd = 10 * 512;
        s.output(0, &mut out);
        assert_eq!(out.frames.len(), 2);
        s.on_ack(1, 612, &mut out);
        assert!(s.done());
    }

    /// The application writes TSDUs of 700 B (MSS 512): each write sends the full segments
    /// at once, and Nagle holds the sub-MSS tail while data are unacknowledged; after every
    /// ACK the held bytes go out. The receiver gets exactly the bytes written, in order.
    #[test]
    fn app_writes_deliver_exactly_the_bytes_written_in_order() {
        use crate::transport::tcp::TcpReceiver;
        let mut p = params();
        p.workload = Workload::App;
        p.window = 1 << 20;
        let (mut s, mut out) = started(p.clone());
        assert!(out.frames.is_empty(), "nothing written, nothing sent");
        let mut r = TcpReceiver::new(p);
        let (tsdu, n) = (700u64, 37u64);
        let mut now = 1;
        for i in 0..n {
            s.write(now, tsdu, &mut out);
            assert_eq!(s.send_buffered(), (i + 1) * tsdu - s.snd_una);
            // carry frames to the receiver and its ACKs back until nothing moves
            loop {
                let frames: Vec<_> = out.frames.drain(..).collect();
                if frames.is_empty() {
                    break;
                }
                let mut acks = Out::default();
                for (sdu, seg) in frames {
                    // in order, never beyond what was written
                    assert_eq!(seg.seq as u64, r.rcv_nxt);
                    assert!(seg.seq as u64 + (sdu - TCP_IP) as u64 <= (i + 1) * tsdu);
                    r.on_segment(now, sdu, seg.seq, &mut acks);
                }
                now += 1;
                for (_, seg) in acks.frames {
                    s.on_ack(now, seg.ack, &mut out);
                }
            }
        }
        assert_eq!(r.rcv_nxt, n * tsdu);
        assert_eq!(s.acked(), n * tsdu);
        assert_eq!(s.send_buffered(), 0);
        assert_eq!(s.stats.bytes_sent, n * tsdu);
    }

    const TCP_IP: u32 = crate::transport::tcp::TCP_IP_LLC_BYTES;

    #[test]
    fn app_nagle_holds_a_sub_mss_tail_while_data_is_unacknowledged() {
        let mut p = params();
        p.workload = Workload::App;
        p.window = 1 << 20;
        p.initial_cwnd = 10;
        let (mut s, mut out) = started(p.clone());
        // idle: a 100-byte write goes out at once (push boundary, nothing outstanding)
        s.write(1, 100, &mut out);
        assert_eq!(out.frames, vec![(100 + TCP_IP, SegHdr::data(0))]);
        // 600 more while 100 are unacknowledged: one full segment, the 88-byte tail waits
        s.write(2, 600, &mut out);
        assert_eq!(out.frames.len(), 2);
        assert_eq!(out.frames[1], (512 + TCP_IP, SegHdr::data(100)));
        assert_eq!(s.snd_max, 612);
        assert_eq!(s.send_buffered(), 700);
        // a further small write joins the held tail; still held
        s.write(3, 50, &mut out);
        assert_eq!(out.frames.len(), 2);
        // the first ACK does not empty the pipe (612 still outstanding): still held
        s.on_ack(4, 100, &mut out);
        assert_eq!(out.frames.len(), 2);
        // everything sent is acknowledged: the 138-byte tail goes out
        s.on_ack(5, 612, &mut out);
        assert_eq!(out.frames[2], (138 + TCP_IP, SegHdr::data(612)));
        assert_eq!(s.send_buffered(), 138);
        // without Nagle the tail goes at once
        p.nagle = false;
        let (mut s, mut out) = started(p);
        s.write(1, 100, &mut out);
        s.write(2, 600, &mut out);
        assert_eq!(out.frames.len(), 3);
        assert_eq!(out.frames[2], (88 + TCP_IP, SegHdr::data(612)));
    }

    #[test]
    fn a_full_outbox_continues_at_once() {
        let mut p = params();
        p.initial_cwnd = 10;
        let mut s = TcpSender::new(p);
        let mut out = Out {
            cap: 4,
            ..Default::default()
        };
        s.on_timer(0, &mut out);
        assert_eq!(out.frames.len(), 4);
        assert_eq!(s.next_timer(), Some(0));
        out.frames.clear();
        s.on_timer(0, &mut out);
        assert_eq!(out.frames.len(), 4);
    }

    /// A closed window with nothing outstanding: the persist timer sends a one-byte probe;
    /// the answer (still closed) takes the probe back, and the window's opening lets the data
    /// go from where they stopped.
    #[test]
    fn a_closed_window_is_probed_and_reopened() {
        let mut p = params();
        p.workload = Workload::App;
        p.initial_cwnd = 8;
        let (mut s, mut out) = started(p);
        s.write(1, 4 * 512, &mut out);
        assert_eq!(out.frames.len(), 4);
        // everything acknowledged, window closed (the reader has not read)
        s.on_window(2048, 0);
        s.on_ack(2, 2048, &mut out);
        s.write(3, 512, &mut out);
        assert_eq!(out.frames.len(), 4, "the window is closed");
        let at = s.next_timer().expect("persist timer");
        s.on_timer(at, &mut out);
        assert_eq!(s.probes, 1);
        assert_eq!(out.frames[4], (48 + 1, SegHdr::data(2048)));
        // the probe is refused: the answer still shows a closed window
        s.on_window(2048, 0);
        s.on_ack(at + 1, 2048, &mut out);
        assert_eq!((s.snd_nxt, s.snd_max), (2048, 2048));
        assert_eq!(out.frames.len(), 5);
        // the reader read: the window update lets the whole segment go
        s.on_window(2048, 2048);
        s.on_ack(at + 2, 2048, &mut out);
        assert_eq!(out.frames[5], (560, SegHdr::data(2048)));
    }
}
