//! A bulk stream application (seed 001's `xtcp` bulk transfer: "TSDU size: const, interarrival
//! time: const"): it writes TSDUs of one size through a [`Socket`] as fast as the socket takes
//! them, blocking while the send buffer is full and writing again when room frees (BSD
//! `sosend`: a write larger than the room is accepted in parts within the same system call).
//!
//! On an ideal host (no host model) the writes take no time. With the host model the socket is
//! gated (`host/socket.rs`): each new TSDU's write is a system call the host's CPU serves
//! (`per_tsdu`) before the socket takes its bytes, as for every other application; the engine
//! wakes the writer ([`StreamWriter::wake`]) when it has been served.

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
    /// Writes begin at this time.
    pub start: SimTime,
    /// Bytes of the current TSDU the socket has not taken yet (the write is blocked).
    left: u64,
    /// TSDUs whose write began.
    pub tsdus: u64,
}

impl StreamWriter {
    pub fn new(socket: Socket, tsdu: u64, start: SimTime) -> Self {
        StreamWriter {
            socket,
            tsdu,
            start,
            left: 0,
            tsdus: 0,
        }
    }

    fn set_timer(&self, ctx: &mut Ctx) {
        let t = [
            self.socket.next_timer(),
            (self.tsdus == 0).then_some(self.start),
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

    /// Continue a blocked write, then begin new ones while there is room (on a host with a
    /// model the socket takes a new TSDU only once its write system call has been served).
    fn write_more(&mut self, now: SimTime, ctx: &mut Ctx) {
        loop {
            if self.left > 0 {
                let n = self.socket.write(now, self.left, ctx);
                self.left -= n;
                if self.left > 0 {
                    return; // blocked: the send buffer is full, or the system call is not done
                }
            }
            if now < self.start || self.socket.send_room() == 0 {
                return;
            }
            self.left = self.tsdu;
            self.tsdus += 1;
        }
    }

    /// The engine served a system call of the socket: go on writing.
    pub fn wake(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        self.write_more(now, ctx);
        self.set_timer(ctx);
    }
}
