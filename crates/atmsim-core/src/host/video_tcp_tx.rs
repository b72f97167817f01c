//! A video stream over TCP, its sending end (seed 004 Experiment 4, section 4.3: "This
//! experiment was performed using TCP on ATM AAL5"): the trace player ([`FramePlayer`]) writes
//! each frame, when it is due, into one TCP connection through the host's socket
//! ([`Socket`], the application's side of the transport, where the host model's costs and
//! buffers live). One frame is one write (a push boundary for Nagle). What the socket does not
//! accept at once (its send buffer is full) waits in the application, frame by frame, in order,
//! and is written as soon as room frees up (an ACK came back). Nothing is ever dropped: over
//! TCP a frame is late, never lost. The receiving end is `host/video_tcp_rx.rs`.

use crate::app::video::FramePlayer;
use crate::app::Ctx;
use crate::host::socket::Socket;
use crate::time::SimTime;
use crate::wire::SegHdr;
use std::collections::VecDeque;

/// The sending end of one stream over TCP.
#[derive(Clone, Debug)]
pub struct TcpVideoSender {
    pub player: FramePlayer,
    pub socket: Socket,
    /// Frames numbered from this on are counted (due after warm-up).
    pub first_frame: u64,
    /// Bytes of due frames the socket has not accepted yet, one entry per frame, oldest first.
    pending: VecDeque<u64>,
    /// The most bytes ever waiting in the application (the sender falling behind).
    pub backlog_max: u64,
}

impl TcpVideoSender {
    pub fn new(player: FramePlayer, socket: Socket, first_frame: u64) -> Self {
        TcpVideoSender {
            player,
            socket,
            first_frame,
            pending: VecDeque::new(),
            backlog_max: 0,
        }
    }

    pub fn start(&mut self, ctx: &mut Ctx) {
        self.set_timer(ctx);
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        self.socket.on_timer(now, ctx);
        while self.player.next_due().is_some_and(|t| t <= now) {
            let (_, bytes) = self.player.take();
            if bytes > 0 {
                self.pending.push_back(bytes as u64);
            }
        }
        self.flush(now, ctx);
        self.set_timer(ctx);
    }

    /// An ACK (or any frame) for the socket: room may have freed up for waiting frames.
    pub fn on_frame(&mut self, ctx: &mut Ctx, sdu: u32, seg: SegHdr) {
        let now = ctx.now;
        self.socket.on_frame(now, sdu, seg, ctx);
        self.flush(now, ctx);
        self.set_timer(ctx);
    }

    /// Write waiting frames in order until the socket takes no more.
    fn flush(&mut self, now: SimTime, ctx: &mut Ctx) {
        while let Some(rest) = self.pending.front_mut() {
            let n = self.socket.write(now, *rest, ctx);
            *rest -= n.min(*rest);
            if *rest > 0 {
                break;
            }
            self.pending.pop_front();
        }
        self.backlog_max = self.backlog_max.max(self.backlog());
    }

    fn set_timer(&self, ctx: &mut Ctx) {
        let next = [self.player.next_due(), self.socket.next_timer()]
            .into_iter()
            .flatten()
            .min();
        if let Some(t) = next {
            ctx.set_timer(t.max(ctx.now));
        }
    }

    /// Frames sent that count (due after warm-up).
    pub fn frames_counted(&self) -> u64 {
        self.player.played().saturating_sub(self.first_frame)
    }

    /// Bytes of due frames still waiting in the application.
    pub fn backlog(&self) -> u64 {
        self.pending.iter().sum()
    }
}
