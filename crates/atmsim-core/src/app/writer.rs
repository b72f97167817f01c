//! A bulk writer (seed 001's `xtcp` bulk transfer: "TSDU size: const, interarrival time:
//! const"): it writes TSDUs of one size through its socket as fast as the socket takes them,
//! blocking while the send buffer is full and writing again when room frees (BSD `sosend`: a
//! write larger than the room is accepted in parts within the same system call).
//!
//! On an ideal host (no host model) the writes take no time. With the host model each new
//! TSDU's write is a system call the host's CPU serves (`per_tsdu`) before the socket takes its
//! bytes, as for every other application (`host/socket.rs`). Moved from `host/stream.rs`.

use super::{Application, Io};
use crate::time::SimTime;

/// A bulk writer of fixed-size TSDUs over socket 0.
#[derive(Clone, Debug)]
pub struct Writer {
    /// TSDU size, bytes (> 0).
    pub tsdu: u64,
    /// Writes begin at this time.
    pub start: SimTime,
    /// Bytes of the current TSDU the socket has not taken yet (the write is blocked).
    left: u64,
    /// TSDUs whose write began.
    pub tsdus: u64,
}

impl Writer {
    pub fn new(tsdu: u64, start: SimTime) -> Self {
        Writer {
            tsdu,
            start,
            left: 0,
            tsdus: 0,
        }
    }

    /// Continue a blocked write, then begin new ones while there is room (on a host with a
    /// model the socket takes a new TSDU only once its write system call has been served).
    fn write_more(&mut self, io: &mut impl Io) {
        let now = io.now();
        loop {
            if self.left > 0 {
                let n = io.write(0, self.left);
                self.left -= n;
                if self.left > 0 {
                    return; // blocked: the send buffer is full, or the system call is not done
                }
            }
            if now < self.start || io.send_room(0) == 0 {
                return;
            }
            self.left = self.tsdu;
            self.tsdus += 1;
        }
    }
}

impl Application for Writer {
    fn sock_timer(&mut self, io: &mut impl Io) {
        self.write_more(io);
    }
    fn sock_event(&mut self, io: &mut impl Io, _k: u16) {
        self.write_more(io);
    }
    fn next_timer(&self) -> Option<SimTime> {
        (self.tsdus == 0).then_some(self.start)
    }
}
