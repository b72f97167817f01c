//! A video stream's sending end (seed 004): the trace player ([`FramePlayer`]) writes each frame
//! to its socket when it is due, one frame one write. The same player runs over either
//! transport (`video.transport`):
//!
//! - over a datagram socket (UDP, section 4.3: "UDP/AAL5/ATM") each frame is one message, sent
//!   whole when due (a frame of no bytes is one empty datagram); what the network loses is lost;
//! - over a stream socket (TCP, Experiment 4: "This experiment was performed using TCP on ATM
//!   AAL5") each frame is one write (a push boundary for Nagle); what the socket does not accept
//!   at once (its send buffer is full) waits in the application, frame by frame, in order, and
//!   is written as soon as room frees (an ACK came back). Nothing is dropped: a frame is late,
//!   never lost.
//!
//! Seed 004's keep-up rule (section 4.1) uses [`VideoSender::log`]: over datagrams the frames
//! whose first packet was handed to the adapter after warm-up ([`Application::message_out`],
//! called by the host model); over a stream the counted frames whose write took effect (the
//! write system call was served and the socket took its first bytes: from then on TCP may send
//! it; docs/hosts.md says why this stands for "the first packet of a frame is transmitted").
//! Moved from `host/video.rs` and `host/video_tcp_tx.rs`, which were one player per transport.

use super::video::FramePlayer;
use super::{AnyApp, AppSections, Application, Io, SendLog, SocketFacts};
use crate::time::SimTime;
use std::collections::VecDeque;

/// The sending end of one stream (socket 0).
#[derive(Clone, Debug)]
pub struct VideoSender {
    pub player: FramePlayer,
    /// Frames numbered from this on are counted (due after warm-up).
    pub first_frame: u64,
    /// Bytes of the counted frames played so far.
    pub bytes_counted: u64,
    /// Due frames the socket has not fully accepted yet, oldest first: (frame number, bytes
    /// not accepted yet, none of it accepted yet). Stream sockets only.
    pending: VecDeque<(u64, u64, bool)>,
    /// Keep-up log (see the module doc).
    pub log: SendLog,
    /// The most bytes ever waiting in the application (the sender falling behind), sampled
    /// whenever the socket took what it could. Stream sockets only.
    pub backlog_max: u64,
}

impl VideoSender {
    pub fn new(player: FramePlayer, first_frame: u64) -> Self {
        VideoSender {
            player,
            first_frame,
            bytes_counted: 0,
            pending: VecDeque::new(),
            log: SendLog::default(),
            backlog_max: 0,
        }
    }

    /// Frames sent that count (due after warm-up).
    pub fn frames_counted(&self) -> u64 {
        self.player.played().saturating_sub(self.first_frame)
    }

    /// Bytes of due frames still waiting in the application.
    pub fn backlog(&self) -> u64 {
        self.pending.iter().map(|p| p.1).sum()
    }

    /// Write waiting frames in order until the socket takes no more (stream sockets).
    fn flush(&mut self, io: &mut impl Io) {
        let now = io.now();
        while let Some((m, rest, fresh)) = self.pending.front_mut() {
            let n = io.write(0, *rest);
            *rest -= n.min(*rest);
            if n > 0 && std::mem::replace(fresh, false) && *m >= self.first_frame {
                self.log.record(now);
            }
            if *rest > 0 {
                break;
            }
            self.pending.pop_front();
        }
        // sampled when no write system call waits for the CPU (on a host with a model the
        // frame being written is not in the socket until its call has been served)
        if !io.write_waiting(0) {
            self.backlog_max = self.backlog_max.max(self.backlog());
        }
    }
}

impl Application for VideoSender {
    fn sock_timer(&mut self, io: &mut impl Io) {
        let now = io.now();
        let datagram = io.is_datagram(0);
        while self.player.next_due().is_some_and(|t| t <= now) {
            let (m, bytes) = self.player.take();
            if m >= self.first_frame {
                self.bytes_counted += bytes as u64;
            }
            if datagram {
                io.write(0, bytes as u64); // one message, sent whole
            } else if bytes > 0 {
                crate::budget::deque_push(
                    &self.pending,
                    "the video frames waiting for a socket's send buffer",
                );
                self.pending.push_back((m, bytes as u64, true));
            }
        }
        if !datagram {
            self.flush(io);
        }
    }
    fn sock_event(&mut self, io: &mut impl Io, _k: u16) {
        if !io.is_datagram(0) {
            self.flush(io);
        }
    }
    fn message_out(&mut self, now: SimTime, warm: bool) {
        if warm {
            self.log.record(now);
        }
    }
    fn next_timer(&self) -> Option<SimTime> {
        self.player.next_due()
    }
    fn keep_up(&self) -> Option<(SendLog, f64)> {
        Some((self.log, self.player.interval_ps()))
    }
    fn sections(&self, peer: Option<&AnyApp>, socks: &SocketFacts) -> AppSections {
        let video = match peer {
            Some(AnyApp::VideoRx(r)) => Some(super::video_rx::video_summary(self, r, socks)),
            _ => None,
        };
        AppSections {
            video,
            ..Default::default()
        }
    }
}
