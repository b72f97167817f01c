//! A bulk stream application (seed 001's `xtcp` bulk transfer: "TSDU size: const, interarrival
//! time: const"): it writes TSDUs of one size through a [`Socket`] as fast as the socket takes
//! them, blocking while the send buffer is full and writing again when room frees (BSD
//! `sosend`: a write larger than the room is accepted in parts within the same system call).
//!
//! On an ideal host (no host model) the writes take no time. With the host model
//! (`hosted`), each write is a system call the engine runs on the host's CPU (`sim/host.rs`):
//! [`StreamWriter::next_syscall`] says a write may begin, [`StreamWriter::syscall_done`] hands
//! its bytes to the socket when its per-TSDU cost has been served.

use super::socket::Socket;
use crate::app::Ctx;
use crate::time::SimTime;
use crate::wire::SegHdr;

/// A bulk writer of fixed-size TSDUs over a socket.
#[derive(Clone, Debug)]
pub struct StreamWriter {
    pub socket: Socket,
    /// TSDU size, bytes (> 0).
    pub tsdu: u64,
    /// The engine runs the write system calls (host model).
    pub hosted: bool,
    /// Writes begin at this time.
    pub start: SimTime,
    /// Bytes of the current TSDU the socket has not taken yet (the write is blocked).
    left: u64,
    /// Hosted: a write system call is under way (being served or blocked).
    in_syscall: bool,
    /// TSDUs whose write began.
    pub tsdus: u64,
}

impl StreamWriter {
    pub fn new(socket: Socket, tsdu: u64, start: SimTime, hosted: bool) -> Self {
        StreamWriter {
            socket,
            tsdu,
            hosted,
            start,
            left: 0,
            in_syscall: false,
            tsdus: 0,
        }
    }

    fn set_timer(&self, ctx: &mut Ctx) {
        let t = [
            self.socket.next_timer(),
            (!self.hosted && self.tsdus == 0).then_some(self.start),
        ]
        .into_iter()
        .flatten()
        .min();
        if let Some(t) = t {
            ctx.set_timer(t.max(ctx.now));
        }
    }

    pub fn start(&mut self, ctx: &mut Ctx) {
        self.set_timer(ctx);
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        self.socket.on_timer(now, ctx);
        self.write_more(now, ctx);
        self.set_timer(ctx);
    }

    pub fn on_frame(&mut self, ctx: &mut Ctx, sdu: u32, seg: SegHdr) {
        let now = ctx.now;
        self.socket.on_frame(now, sdu, seg, ctx);
        self.write_more(now, ctx);
        self.set_timer(ctx);
    }

    /// Continue a blocked write; on an ideal host, also begin new ones while there is room.
    fn write_more(&mut self, now: SimTime, ctx: &mut Ctx) {
        loop {
            if self.left > 0 {
                let n = self.socket.write(now, self.left, ctx);
                self.left -= n;
                if self.left > 0 {
                    return; // blocked: the send buffer is full
                }
                self.in_syscall = false;
            }
            if self.hosted || now < self.start || self.socket.send_room() == 0 {
                return;
            }
            self.left = self.tsdu;
            self.tsdus += 1;
        }
    }

    /// Hosted: true when a new write system call begins now (the previous one is complete,
    /// the start time has come and the send buffer has room); the engine then serves its cost.
    pub fn next_syscall(&mut self, now: SimTime) -> bool {
        if self.in_syscall || now < self.start || self.socket.send_room() == 0 {
            return false;
        }
        self.in_syscall = true;
        true
    }

    /// Hosted: the write system call's cost has been served: its bytes enter the socket (as
    /// many as fit; the rest as room frees).
    pub fn syscall_done(&mut self, ctx: &mut Ctx) {
        self.left = self.tsdu;
        self.tsdus += 1;
        let now = ctx.now;
        self.write_more(now, ctx);
        self.set_timer(ctx);
    }
}
