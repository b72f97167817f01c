//! Video streams over UDP (seed 004): the sending end plays a trace ([`FramePlayer`]) and sends
//! each frame as one UDP message ([`UdpSender`]: datagrams up to the MTU) when it is due; the
//! receiving end reassembles the datagrams ([`UdpReceiver`]) and keeps the frame metrics
//! ([`FrameMetrics`]). The sender counts the frames it sent (those due after warm-up); the
//! receiver decides which were lost.

use crate::app::video::FramePlayer;
use crate::app::Ctx;
use crate::metrics::FrameMetrics;
use crate::transport::udp::{Delivery, UdpReceiver, UdpSender};
use crate::wire::SegHdr;

/// The sending end of one stream.
#[derive(Clone, Debug)]
pub struct VideoSender {
    pub player: FramePlayer,
    pub udp: UdpSender,
    /// Frames numbered from this on are counted (due after warm-up).
    pub first_frame: u64,
}

impl VideoSender {
    pub fn start(&mut self, ctx: &mut Ctx) {
        if let Some(t) = self.player.next_due() {
            ctx.set_timer(t);
        }
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        // a frame due now (datagrams the outbox could not take earlier go first)
        crate::transport::Transport::on_timer(&mut self.udp, now, ctx);
        while self.player.next_due().is_some_and(|t| t <= now) {
            let (_, bytes) = self.player.take();
            self.udp.send(now, bytes, ctx);
        }
        let next = [self.player.next_due(), self.udp.resume_at()]
            .into_iter()
            .flatten()
            .min();
        if let Some(t) = next {
            ctx.set_timer(t.max(now));
        }
    }

    /// Frames sent that count (due after warm-up).
    pub fn frames_counted(&self) -> u64 {
        self.player.played().saturating_sub(self.first_frame)
    }
}

/// The receiving end of one stream.
#[derive(Clone, Debug)]
pub struct VideoReceiver {
    pub udp: UdpReceiver,
    pub metrics: FrameMetrics,
    /// The sender's schedule, to know when each frame was due.
    pub schedule: FramePlayer,
}

impl VideoReceiver {
    pub fn on_frame(&mut self, ctx: &mut Ctx, sdu: u32, seg: SegHdr) {
        if let Delivery::Complete { msg, .. } = self.udp.receive(sdu, seg) {
            // message numbers wrap at 2^32; a stream of 24 frames/s wraps after 5 years
            let m = msg as u64;
            self.metrics
                .frame_received(m, self.schedule.time_of(m), ctx.now);
        }
    }
}

/// The summary of a stream from its two ends.
pub fn video_summary(tx: &VideoSender, rx: &VideoReceiver) -> crate::metrics::VideoSummary {
    let m = &rx.metrics;
    let pct = |a: u64, n: u64| (n > 0).then(|| 100.0 * a as f64 / n as f64);
    crate::metrics::VideoSummary {
        trace_offset: tx.player.offset() as u64,
        frames_sent: tx.frames_counted(),
        datagrams_sent: tx.udp.stats.datagrams,
        frames_received: m.received,
        frames_lost: m.lost,
        frame_loss_pct: pct(m.lost, m.received + m.lost),
        interval_hist: m.interval_bins,
        intervals: m.intervals,
        beyond_playout_pct: pct(m.beyond_playout, m.intervals),
        playout_intervals: m.playout_intervals,
        frame_delay_mean_ms: (m.received > 0)
            .then(|| m.delay_sum_ps as f64 / m.received as f64 / 1e9),
        frame_delay_max_ms: (m.received > 0).then(|| m.delay_max_ps as f64 / 1e9),
        transport: None,
        send_backlog_max_bytes: None,
    }
}

/// A video sender's log for seed 004's keep-up rule: frames whose first packet was handed to
/// the adapter (UDP) or whose write took effect (TCP, docs/hosts.md), and the first and last
/// such times.
#[derive(Clone, Copy, Debug, Default)]
pub struct SendLog {
    pub frames: u64,
    pub first: crate::time::SimTime,
    pub last: crate::time::SimTime,
}

impl SendLog {
    /// Mean send time per frame (seed 004 section 4.1: "the time the first packet of a frame
    /// is transmitted to the time the first packet from the next consecutive frame is
    /// transmitted", averaged), ps; None below two frames.
    pub fn mean_send_ps(&self) -> Option<f64> {
        (self.frames >= 2).then(|| (self.last - self.first) as f64 / (self.frames - 1) as f64)
    }
}
