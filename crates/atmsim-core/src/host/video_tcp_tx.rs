//! A video stream over TCP, its sending end (seed 004 Experiment 4, section 4.3: "This
//! experiment was performed using TCP on ATM AAL5"): the trace player ([`FramePlayer`]) writes
//! each frame, when it is due, into one TCP connection through the host's socket
//! ([`Socket`], the application's side of the transport, where the host model's costs and
//! buffers live). One frame is one write (a push boundary for Nagle). What the socket does not
//! accept at once (its send buffer is full) waits in the application, frame by frame, in order,
//! and is written as soon as room frees up (an ACK came back). Nothing is ever dropped: over
//! TCP a frame is late, never lost. The receiving end is `host/video_tcp_rx.rs`.
//!
//! Seed 004's keep-up rule (section 4.1) applies to it as to the UDP sender: on a host with a
//! model, [`TcpVideoSender::log`] records when each counted frame's write took effect (its
//! write system call was served and the socket took its first bytes: from then on TCP may
//! send it; docs/hosts.md says why this stands for "the first packet of a frame is
//! transmitted" over TCP).

use crate::app::video::FramePlayer;
use crate::app::Ctx;
use crate::host::socket::Socket;
use crate::host::video::SendLog;
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
    /// Due frames the socket has not fully accepted yet, oldest first: (frame number, bytes
    /// not accepted yet, none of it accepted yet).
    pending: VecDeque<(u64, u64, bool)>,
    /// Keep-up log: counted frames whose write took effect, first and last such times.
    pub log: SendLog,
    /// The most bytes ever waiting in the application (the sender falling behind), sampled
    /// whenever the socket took what it could.
    pub backlog_max: u64,
}

impl TcpVideoSender {
    pub fn new(player: FramePlayer, socket: Socket, first_frame: u64) -> Self {
        TcpVideoSender {
            player,
            socket,
            first_frame,
            pending: VecDeque::new(),
            log: SendLog::default(),
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
            let (m, bytes) = self.player.take();
            if bytes > 0 {
                self.pending.push_back((m, bytes as u64, true));
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
        while let Some((m, rest, fresh)) = self.pending.front_mut() {
            let n = self.socket.write(now, *rest, ctx);
            *rest -= n.min(*rest);
            if n > 0 && std::mem::replace(fresh, false) && *m >= self.first_frame {
                if self.log.frames == 0 {
                    self.log.first = now;
                }
                self.log.frames += 1;
                self.log.last = now;
            }
            if *rest > 0 {
                break;
            }
            self.pending.pop_front();
        }
        // sampled when no write system call waits for the CPU (on a host with a model the
        // frame being written is not in the socket until its call has been served)
        if !self.socket.write_waiting() {
            self.backlog_max = self.backlog_max.max(self.backlog());
        }
    }

    /// The engine served a system call of the socket: go on writing.
    pub fn wake(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        self.flush(now, ctx);
        self.set_timer(ctx);
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
        self.pending.iter().map(|p| p.1).sum()
    }
}
