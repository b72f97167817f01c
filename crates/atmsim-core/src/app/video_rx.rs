//! A video stream's receiving end (seed 004): the frame metrics ([`FrameMetrics`]) of the
//! frames that arrive whole, over either transport:
//!
//! - over a datagram socket each complete message is a frame ("any frame missing a packet is
//!   considered lost", section 4.1; the transport reassembles the datagrams);
//! - over a stream socket the application reads the byte stream and knows the frame sizes from
//!   the same trace and offset as the sender (a real receiver would read a length header; the
//!   bytes are the same). Frame `m` is received when its last byte is delivered in order ("the
//!   receipt of an entire frame (the last packet in a frame)", section 4.1); a frame of no bytes
//!   is received once the frame before it is and its time has passed (1 ps after it, at the
//!   latest: it has no byte of its own, and the sender plays no frame before its time). Over
//!   TCP no frame is lost: "we did not observe any
//!   loss for any of the TCP experiments" (section 4.3); a frame can only be late. The
//!   application reads what arrives at once, which frees the receive buffer.
//!
//! Received intervals, their histogram and the playout share are counted the same way over
//! both. Moved from `host/video.rs` and `host/video_tcp_rx.rs`.

use super::video::FramePlayer;
use super::video_tx::VideoSender;
use super::{Application, Io, SocketFacts};
use crate::metrics::accounting::{loss_pct, lost};
use crate::metrics::FrameMetrics;
use crate::time::SimTime;

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
    /// Stream sockets: bytes delivered in order at the last look (read or waiting to be).
    delivered: u64,
    /// Over a stream socket.
    stream: bool,
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
            delivered: 0,
            stream,
        }
    }

    /// Stream sockets: every frame whose last byte has been delivered and whose time has passed
    /// is received now, in order (only a frame of no bytes can wait for its time).
    fn receive_stream(&mut self, io: &mut impl Io) {
        let now = io.now();
        self.delivered = self.read + io.readable(0);
        while self.next.1 <= self.delivered && self.schedule.played_before(self.next.0, now) {
            let (m, end) = self.next;
            let (bytes, due) = (self.schedule.size_of(m), self.schedule.time_of(m));
            self.metrics.frame_received(m, bytes as u64, due, now);
            let (m2, b) = self.schedule.take();
            self.next = (m2, end + b as u64);
        }
        self.read_more(io);
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
            while let Some((msg, bytes)) = io.take_message(0) {
                // message numbers wrap at 2^32; a stream of 24 frames/s wraps after 5 years
                let m = msg as u64;
                let due = self.schedule.time_of(m);
                self.metrics.frame_received(m, bytes as u64, due, now);
            }
            return;
        }
        self.receive_stream(io);
    }
    fn sock_wake(&mut self, io: &mut impl Io, _k: u16) {
        self.read_more(io);
    }
    fn sock_timer(&mut self, io: &mut impl Io) {
        if !io.is_datagram(0) {
            self.receive_stream(io);
        }
    }
    /// Stream sockets: a frame of no bytes whose frame before it is received waits until its
    /// time has passed.
    fn next_timer(&self) -> Option<SimTime> {
        let (m, end) = self.next;
        let t = self.schedule.time_of(m) + 1;
        (self.stream && end <= self.delivered && self.schedule.played_before(m, t)).then_some(t)
    }
    fn reads(&self) -> bool {
        true
    }
}

/// The frames (and their bytes) of the stream on their way now: over a stream socket every
/// frame sent and not yet received (nothing is lost: TCP sends again what the network lost; the
/// frame waits in the sending application, the sockets, the hosts or the network); over a
/// datagram socket the counted frames with a message on its way (`socks`).
fn on_their_way(tx: &VideoSender, rx: &VideoReceiver, socks: &SocketFacts) -> (u64, u64) {
    let m = &rx.metrics;
    if !socks.datagram {
        let frames = tx.frames_counted().saturating_sub(m.received);
        return (frames, tx.bytes_counted.saturating_sub(m.received_bytes));
    }
    // message numbers are frame numbers modulo 2^32: the frame below `played` with that number
    let played = tx.player.played();
    let frames: std::collections::BTreeSet<u64> = socks
        .messages_in_transit
        .iter()
        .map(|&msg| (played as u32).wrapping_sub(msg) as u64)
        .filter(|&back| back >= 1 && back <= played)
        .map(|back| played - back)
        .filter(|&f| f >= tx.first_frame)
        .collect();
    let bytes = frames.iter().map(|&f| tx.player.size_of(f) as u64).sum();
    (frames.len() as u64, bytes)
}

/// The summary of a stream from its two ends; `socks` tells the sender's socket (over a stream
/// no frame is lost and `datagrams_sent` is 0: the connection's `tcp` block has the segments).
/// Loss is what was sent less what arrived whole and what is still on its way
/// (`metrics/accounting.rs`): a frame after the last whole one is lost only once none of it is
/// on its way.
pub fn video_summary(
    tx: &VideoSender,
    rx: &VideoReceiver,
    socks: &SocketFacts,
) -> crate::metrics::VideoSummary {
    let m = &rx.metrics;
    let stream = !socks.datagram;
    let sent = tx.frames_counted();
    let (in_network, bytes_in_network) = on_their_way(tx, rx, socks);
    let frames_lost = lost(sent, m.received, in_network, "video frames");
    let bytes_lost = lost(
        tx.bytes_counted,
        m.received_bytes,
        bytes_in_network,
        "video bytes",
    );
    let pct = |a: u64, n: u64| (n > 0).then(|| 100.0 * a as f64 / n as f64);
    crate::metrics::VideoSummary {
        trace_offset: tx.player.offset() as u64,
        frames_sent: sent,
        datagrams_sent: socks.datagrams_sent,
        frames_received: m.received,
        frames_in_network: in_network,
        frames_lost,
        frame_loss_pct: loss_pct(frames_lost, sent),
        bytes_sent: tx.bytes_counted,
        bytes_received: m.received_bytes,
        bytes_in_network,
        bytes_lost,
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
