//! A video stream's receiving end (seed 004): the frame metrics ([`FrameMetrics`]) of the
//! frames that arrive whole, over either transport:
//!
//! - over a datagram socket each complete message is a frame ("any frame missing a packet is
//!   considered lost", section 4.1; the transport reassembles the datagrams);
//! - over a stream socket the application reads the byte stream and knows the frame sizes from
//!   the same trace and offset as the sender (a real receiver would read a length header; the
//!   bytes are the same). Frame `m` is received when its last byte is delivered in order ("the
//!   receipt of an entire frame (the last packet in a frame)", section 4.1); a frame of no bytes
//!   is received with the frame before it. Over TCP no frame is lost: "we did not observe any
//!   loss for any of the TCP experiments" (section 4.3); a frame can only be late. The
//!   application reads what arrives at once, which frees the receive buffer.
//!
//! Received intervals, their histogram and the playout share are counted the same way over
//! both. Moved from `host/video.rs` and `host/video_tcp_rx.rs`.

use super::video::FramePlayer;
use super::video_tx::VideoSender;
use super::{Application, Io, SocketFacts};
use crate::metrics::FrameMetrics;

/// The receiving end of one stream (socket 0).
#[derive(Clone, Debug)]
pub struct VideoReceiver {
    pub metrics: FrameMetrics,
    /// The sender's schedule: frame sizes and the time each was due.
    pub schedule: FramePlayer,
    /// Stream sockets: the next frame to complete, its number and the stream offset just past
    /// its last byte.
    next: (u64, u64),
    /// Stream sockets: bytes the application has read.
    read: u64,
}

impl VideoReceiver {
    /// `stream`: over a stream socket (the first frame's end is known from the schedule).
    pub fn new(metrics: FrameMetrics, mut schedule: FramePlayer, stream: bool) -> Self {
        let next = if stream {
            let (m, b) = schedule.take();
            (m, b as u64)
        } else {
            (0, 0)
        };
        VideoReceiver {
            metrics,
            schedule,
            next,
            read: 0,
        }
    }

    /// Read what has been delivered (on a host with a model: once the read system call has been
    /// served; the host calls again then).
    fn read_more(&mut self, io: &mut impl Io) {
        let d = io.readable(0);
        if d > 0 {
            self.read += io.read(0, d);
        }
    }
}

impl Application for VideoReceiver {
    fn sock_event(&mut self, io: &mut impl Io, _k: u16) {
        let now = io.now();
        if io.is_datagram(0) {
            while let Some((msg, _)) = io.take_message(0) {
                // message numbers wrap at 2^32; a stream of 24 frames/s wraps after 5 years
                let m = msg as u64;
                self.metrics
                    .frame_received(m, self.schedule.time_of(m), now);
            }
            return;
        }
        // in-order bytes so far: those read and those waiting to be read
        let delivered = self.read + io.readable(0);
        while self.next.1 <= delivered {
            let (m, end) = self.next;
            self.metrics
                .frame_received(m, self.schedule.time_of(m), now);
            let (m2, b) = self.schedule.take();
            self.next = (m2, end + b as u64);
        }
        self.read_more(io);
    }
    fn sock_wake(&mut self, io: &mut impl Io, _k: u16) {
        self.read_more(io);
    }
    fn reads(&self) -> bool {
        true
    }
}

/// The summary of a stream from its two ends; `socks` tells the sender's socket (over a stream
/// no frame is lost and `datagrams_sent` is 0: the connection's `tcp` block has the segments).
pub fn video_summary(
    tx: &VideoSender,
    rx: &VideoReceiver,
    socks: &SocketFacts,
) -> crate::metrics::VideoSummary {
    let m = &rx.metrics;
    let pct = |a: u64, n: u64| (n > 0).then(|| 100.0 * a as f64 / n as f64);
    let stream = !socks.datagram;
    crate::metrics::VideoSummary {
        trace_offset: tx.player.offset() as u64,
        frames_sent: tx.frames_counted(),
        datagrams_sent: socks.datagrams_sent,
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
        // over UDP the stream's section has no transport key, as before UDP was a transport
        transport: stream.then_some(socks.transport),
        send_backlog_max_bytes: stream.then_some(tx.backlog_max),
    }
}
