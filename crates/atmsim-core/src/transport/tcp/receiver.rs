//! The receiving end of a BSD-style TCP connection: cumulative ACKs, an out-of-order queue of
//! merged byte ranges, duplicate ACKs at once for out-of-order and duplicate segments, delayed
//! ACKs (every second full segment, else at the 200 ms fast timer), 32-bit sequence numbers
//! unwrapped against `rcv_nxt`. See the module doc of [`super`]. Moved from `tcp.rs`.

use super::{TcpParams, TCP_IP_LLC_BYTES};
use crate::time::SimTime;
use crate::transport::SegmentOut;
use crate::wire::SegHdr;

/// The receiving end of a TCP connection.
#[derive(Clone, Debug)]
pub struct TcpReceiver {
    pub p: TcpParams,
    /// Next byte expected: everything below has been delivered in order.
    pub rcv_nxt: u64,
    /// Out-of-order data held (merged, sorted byte ranges).
    ooo: Vec<(u64, u64)>,
    /// Full segments received since the last ACK (delayed ACKs).
    unacked_segments: u32,
    delack_at: Option<SimTime>,
    more: bool,
    /// The application reads the data itself (host model, [`TcpReceiver::read`]): the
    /// advertised window is the free receive buffer and every ACK carries it. False: the data
    /// are read as they arrive and the window is the whole buffer (`p.window`).
    pub app_reads: bool,
    /// Bytes the application has read (app_reads).
    read: u64,
    /// Right edge of the window advertised last (app_reads).
    adv_edge: u64,
    /// Pure ACKs sent (frames of their own).
    pub acks_sent: u64,
    /// ACKs that rode on a data segment of this end's sender ([`TcpReceiver::piggyback`]).
    pub piggybacked_acks: u64,
    /// An ACK decided while `hold` is set is owed ([`TcpReceiver::release`] sends it unless a
    /// data segment carried it first).
    pub(super) hold: bool,
    owed: bool,
    /// Window updates sent because the application's reads opened the window.
    pub window_updates: u64,
    /// Bytes refused because they lay beyond the advertised window (window probes).
    pub beyond_window_bytes: u64,
    pub dup_segments: u64,
    pub ooo_segments: u64,
    /// In-order bytes at the end of the warm-up (the summary counts from there).
    pub mark: u64,
}

impl TcpReceiver {
    pub fn new(p: TcpParams) -> Self {
        TcpReceiver {
            p,
            rcv_nxt: 0,
            ooo: Vec::new(),
            unacked_segments: 0,
            delack_at: None,
            more: false,
            app_reads: false,
            read: 0,
            adv_edge: 0,
            acks_sent: 0,
            piggybacked_acks: 0,
            hold: false,
            owed: false,
            window_updates: 0,
            beyond_window_bytes: 0,
            dup_segments: 0,
            ooo_segments: 0,
            mark: 0,
        }
    }

    /// In-order bytes delivered to the application so far (everything below `rcv_nxt`).
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }

    /// The window this receiver advertises: the free receive buffer when the application
    /// reads itself, else the whole buffer.
    pub fn window(&self) -> u64 {
        if self.app_reads {
            self.p.window - (self.rcv_nxt - self.read)
        } else {
            self.p.window
        }
    }

    /// The application read `bytes` (at most what is delivered and unread): their room is
    /// free. A window update goes out when the window opened by two segments or by half the
    /// buffer since it was last advertised (BSD tcp_output).
    pub fn read(&mut self, _now: SimTime, bytes: u64, out: &mut impl SegmentOut) {
        self.read += bytes.min(self.rcv_nxt - self.read);
        if !self.app_reads {
            return;
        }
        let edge = self.read + self.p.window;
        let opened = edge.saturating_sub(self.adv_edge);
        if opened >= 2 * self.p.mss as u64 || 2 * opened >= self.p.window {
            self.window_updates += 1;
            self.ack(out);
        }
    }

    /// Bytes delivered and not yet read by the application.
    pub fn unread(&self) -> u64 {
        self.rcv_nxt - self.read
    }

    pub fn next_timer(&self) -> Option<SimTime> {
        if self.more {
            return Some(0);
        }
        self.delack_at
    }

    /// An ACK is due now: sent at once, or owed while `hold` is set (the end's sender may
    /// carry it on data in the same call, as BSD's tcp_input leaves the ACK to tcp_output).
    fn ack(&mut self, out: &mut impl SegmentOut) {
        if self.hold {
            self.owed = true;
            return;
        }
        self.ack_frame(out);
    }

    /// The end's sender sends a data segment: it carries the acknowledgement number `rcv_nxt`
    /// (returned, 32 bits as on the wire) and counts as the ACK: a pending delayed ACK is
    /// cancelled and an owed one is not sent (BSD tcp_output sets the ACK field on every
    /// segment and clears TF_DELACK; RFC 1122 4.2.3.2). When the application reads through
    /// the host model and the window's right edge moved since it was last advertised, the
    /// data segment (whose header has no room for the window, docs/tcp.md) does not tell the
    /// new window: the pending ACK then stays and tells it.
    pub fn piggyback(&mut self) -> u32 {
        self.piggybacked_acks += 1;
        let told = !self.app_reads || self.read + self.p.window == self.adv_edge;
        if told {
            self.owed = false;
            self.more = false;
            self.unacked_segments = 0;
            self.delack_at = None;
        }
        self.rcv_nxt as u32
    }

    /// End of a `hold`: the ACK still owed goes out as a frame of its own.
    pub fn release(&mut self, out: &mut impl SegmentOut) {
        self.hold = false;
        if std::mem::take(&mut self.owed) {
            self.ack_frame(out);
        }
    }

    fn ack_frame(&mut self, out: &mut impl SegmentOut) {
        if !out.room() {
            self.more = true;
            return;
        }
        if self.app_reads {
            let w = self.window();
            self.adv_edge = self.rcv_nxt + w;
            out.frame(
                TCP_IP_LLC_BYTES,
                SegHdr::ack_window(self.rcv_nxt as u32, w.min(u32::MAX as u64) as u32),
            );
        } else {
            out.frame(TCP_IP_LLC_BYTES, SegHdr::ack(self.rcv_nxt as u32));
        }
        self.acks_sent += 1;
        self.unacked_segments = 0;
        self.delack_at = None;
    }

    /// The delayed-ACK timer fired (or an ACK is owed from a full outbox).
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        let due = self.delack_at.is_some_and(|t| t <= now);
        if self.more || due {
            self.more = false;
            self.ack(out);
        }
    }

    /// An intact segment arrived: `sdu` AAL5 bytes, `seq32` its sequence number.
    pub fn on_segment(&mut self, now: SimTime, sdu: u32, seq32: u32, out: &mut impl SegmentOut) {
        let len = sdu.saturating_sub(TCP_IP_LLC_BYTES) as u64;
        let seq = self
            .rcv_nxt
            .wrapping_add(seq32.wrapping_sub(self.rcv_nxt as u32) as i32 as i64 as u64);
        let mut end = seq + len;
        if self.app_reads {
            // nothing beyond the free buffer is kept (BSD trims to the window)
            let limit = self.read + self.p.window;
            if end > limit {
                self.beyond_window_bytes += end - limit.max(seq);
                end = limit.max(seq);
            }
            if end <= seq {
                self.ack_frame(out); // a window probe: tell the sender the window
                return;
            }
        }
        if len == 0 || end <= self.rcv_nxt {
            self.dup_segments += 1;
            self.ack(out); // a duplicate: tell the sender where we are
            return;
        }
        if seq > self.rcv_nxt {
            // out of order: hold it, and send a duplicate ACK at once
            self.ooo_segments += 1;
            self.insert(seq, end);
            self.ack(out);
            return;
        }
        self.rcv_nxt = end;
        let had_hole = !self.ooo.is_empty();
        while let Some(&(s, e)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo.remove(0);
        }
        if !self.p.delayed_ack || had_hole {
            self.ack(out);
            return;
        }
        self.unacked_segments += 1;
        // BSD: the ACK of in-order data waits for the application's read (`read`), unless the
        // model acknowledges on arrival (`TcpParams::ack_at_read`)
        let at_read = self.app_reads && self.p.ack_at_read;
        if self.unacked_segments >= 2 && !at_read {
            self.ack(out);
        } else if self.delack_at.is_none() {
            // the 200 ms fast timer fires on its own clock
            let d = self.p.delack;
            self.delack_at = Some((now / d + 1) * d);
        }
    }

    fn insert(&mut self, s: u64, e: u64) {
        let i = self.ooo.partition_point(|r| r.0 < s);
        self.ooo.insert(i, (s, e));
        // merge overlapping or touching ranges
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.ooo.len());
        for &(a, b) in &self.ooo {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        self.ooo = merged;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::secs_to_ps;
    use crate::transport::tcp::testing::{params, Out};

    #[test]
    fn receiver_holds_out_of_order_data_and_acks_the_hole() {
        let mut r = TcpReceiver::new(params());
        let mut out = Out::default();
        r.on_segment(0, 560, 0, &mut out);
        r.on_segment(0, 560, 1024, &mut out); // 512..1024 lost
        r.on_segment(0, 560, 1536, &mut out);
        assert_eq!(
            out.frames.iter().map(|f| f.1.ack).collect::<Vec<_>>(),
            vec![512, 512, 512]
        );
        r.on_segment(0, 560, 512, &mut out);
        assert_eq!(out.frames.last().unwrap().1, SegHdr::ack(2048));
        assert_eq!(r.rcv_nxt, 2048);
    }

    /// Under an application that reads itself (a host with a model) BSD acknowledges in-order
    /// data after the read: two segments arrive, no ACK; the read of both frees 1,024 B, two
    /// segments of window, and the ACK leaves with the whole buffer open. With `ack_at_read`
    /// off the second segment is acknowledged on arrival, its window short of the unread data.
    #[test]
    fn bsd_acknowledges_after_the_read_with_the_window_it_freed() {
        let mut p = params();
        p.delayed_ack = true;
        p.window = 4096;
        for at_read in [true, false] {
            p.ack_at_read = at_read;
            let mut r = TcpReceiver::new(p.clone());
            r.app_reads = true;
            let mut out = Out::default();
            r.on_segment(secs_to_ps(0.05), 560, 0, &mut out);
            r.on_segment(secs_to_ps(0.06), 560, 512, &mut out);
            if at_read {
                assert!(out.frames.is_empty(), "tcp_input only flags the delayed ACK");
                r.read(secs_to_ps(0.07), 1024, &mut out);
                assert_eq!(out.frames, vec![(48, SegHdr::ack_window(1024, 4096))]);
                assert_eq!(r.window_updates, 1);
            } else {
                assert_eq!(out.frames, vec![(48, SegHdr::ack_window(1024, 4096 - 1024))]);
            }
            assert_eq!(r.next_timer(), None, "the ACK cancels the delayed ACK");
        }
    }

    #[test]
    fn delayed_ack_every_second_segment_or_at_the_fast_timer() {
        let mut p = params();
        p.delayed_ack = true;
        let mut r = TcpReceiver::new(p);
        let mut out = Out::default();
        r.on_segment(secs_to_ps(0.05), 560, 0, &mut out);
        assert!(out.frames.is_empty());
        assert_eq!(r.next_timer(), Some(secs_to_ps(0.2)));
        r.on_segment(secs_to_ps(0.06), 560, 512, &mut out);
        assert_eq!(out.frames, vec![(48, SegHdr::ack(1024))]);
        assert_eq!(r.next_timer(), None);
        r.on_segment(secs_to_ps(0.25), 560, 1024, &mut out);
        r.on_timer(secs_to_ps(0.4), &mut out);
        assert_eq!(out.frames.last(), Some(&(48, SegHdr::ack(1536))));
    }

    #[test]
    fn sequence_numbers_wrap_on_the_wire() {
        let mut r = TcpReceiver::new(params());
        r.rcv_nxt = (1u64 << 32) - 100;
        let mut out = Out::default();
        r.on_segment(0, 560, (r.rcv_nxt) as u32, &mut out);
        assert_eq!(r.rcv_nxt, (1u64 << 32) + 412);
        assert_eq!(out.frames[0].1, SegHdr::ack(412));
    }

    /// A receiver whose application reads: each ACK advertises the free buffer; reading
    /// frees it, and a window update goes out once the window opened by two segments; data
    /// beyond the window are refused and answered with the window.
    #[test]
    fn the_window_is_the_free_buffer_when_the_application_reads() {
        let mut p = params(); // MSS 512
        p.window = 4 * 512;
        let mut r = TcpReceiver::new(p);
        r.app_reads = true;
        let mut out = Out::default();
        r.on_segment(0, 560, 0, &mut out);
        r.on_segment(0, 560, 512, &mut out);
        assert_eq!(out.frames[1].1, SegHdr::ack_window(1024, 1024));
        r.on_segment(0, 560, 1024, &mut out);
        r.on_segment(0, 560, 1536, &mut out);
        assert_eq!(out.frames[3].1, SegHdr::ack_window(2048, 0));
        // a window probe of one byte beyond the closed window: refused, the window told
        r.on_segment(0, 48 + 1, 2048, &mut out);
        assert_eq!(r.rcv_nxt, 2048);
        assert_eq!(r.beyond_window_bytes, 1);
        assert_eq!(out.frames[4].1, SegHdr::ack_window(2048, 0));
        // reading one segment opens the window by one segment: no update yet
        r.read(0, 512, &mut out);
        assert_eq!(out.frames.len(), 5);
        // a second opens it by two: a window update
        r.read(0, 512, &mut out);
        assert_eq!(out.frames[5].1, SegHdr::ack_window(2048, 1024));
        assert_eq!(r.window_updates, 1);
        // a segment straddling the right edge keeps only what fits
        r.on_segment(0, 48 + 1500, 2048, &mut out);
        assert_eq!(r.rcv_nxt, 3072);
        assert_eq!(r.unread(), 2048);
    }
}
