//! A video stream over TCP, its receiving end (seed 004 Experiment 4): the application reads the
//! byte stream from its socket ([`Socket`]) and keeps the same frame metrics as over UDP
//! ([`FrameMetrics`]). The stream carries the frames back to back in play order; the receiver
//! knows their sizes from the same trace and offset as the sender (a real receiver would read a
//! length header; the bytes are the same). Frame `m` is received when its last byte is
//! delivered in order ("the receipt of an entire frame (the last packet in a frame)", section
//! 4.1); a frame of no bytes is received with the frame before it. Received intervals, their
//! histogram and the playout share are counted as over UDP. Over TCP no frame is lost: "we did
//! not observe any loss for any of the TCP experiments" (section 4.3), and here a frame can only
//! be late. The application consumes what it reads at once (`Socket::read`), which frees the
//! receive buffer, so the advertised window is limited by the socket, not by the application.

use crate::app::video::FramePlayer;
use crate::app::Ctx;
use crate::host::socket::Socket;
use crate::metrics::FrameMetrics;
use crate::wire::SegHdr;

/// The receiving end of one stream over TCP.
#[derive(Clone, Debug)]
pub struct TcpVideoReceiver {
    pub socket: Socket,
    pub metrics: FrameMetrics,
    /// The sender's schedule: frame sizes and the time each was due.
    pub schedule: FramePlayer,
    /// The next frame to complete: its number and the stream offset just past its last byte.
    next: (u64, u64),
    /// Bytes the application has read.
    read: u64,
}

impl TcpVideoReceiver {
    pub fn new(socket: Socket, metrics: FrameMetrics, mut schedule: FramePlayer) -> Self {
        let (m, b) = schedule.take();
        TcpVideoReceiver {
            socket,
            metrics,
            schedule,
            next: (m, b as u64),
            read: 0,
        }
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx) {
        self.socket.on_timer(ctx.now, ctx);
        self.set_timer(ctx);
    }

    pub fn on_frame(&mut self, ctx: &mut Ctx, sdu: u32, seg: SegHdr) {
        let now = ctx.now;
        self.socket.on_frame(now, sdu, seg, ctx);
        // in-order bytes so far: those read and those waiting to be read
        let delivered = self.read + self.socket.delivered();
        while self.next.1 <= delivered {
            let (m, end) = self.next;
            self.metrics
                .frame_received(m, self.schedule.time_of(m), now);
            let (m2, b) = self.schedule.take();
            self.next = (m2, end + b as u64);
        }
        self.read_more(ctx);
    }

    /// Read what has been delivered (on a host with a model: once the read system call has been
    /// served; the engine then calls this again).
    pub fn read_more(&mut self, ctx: &mut Ctx) {
        let d = self.socket.delivered();
        if d > 0 {
            self.read += self.socket.read(ctx.now, d, ctx);
        }
        self.set_timer(ctx);
    }

    fn set_timer(&self, ctx: &mut Ctx) {
        if let Some(t) = self.socket.next_timer() {
            ctx.set_timer(t.max(ctx.now));
        }
    }
}

/// The summary of a stream over TCP from its two ends: as over UDP, with no frame lost
/// (`datagrams_sent` is 0: the connection's `tcp` block has the segments).
pub fn video_summary(
    tx: &super::video_tcp_tx::TcpVideoSender,
    rx: &TcpVideoReceiver,
) -> crate::metrics::VideoSummary {
    let m = &rx.metrics;
    let pct = |a: u64, n: u64| (n > 0).then(|| 100.0 * a as f64 / n as f64);
    crate::metrics::VideoSummary {
        trace_offset: tx.player.offset() as u64,
        frames_sent: tx.frames_counted(),
        datagrams_sent: 0,
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
        transport: Some("tcp"),
        send_backlog_max_bytes: Some(tx.backlog_max),
    }
}
