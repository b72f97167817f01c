//! The socket: what an application above a transport talks to (the BSD socket layer between
//! `write`/`read` system calls and the protocol). It wraps one transport end
//! ([`AnyTransport`]) and has the same hooks as a transport end ([`Socket::next_timer`],
//! [`Socket::on_timer`], [`Socket::on_frame`]) plus the application's calls:
//!
//! - [`Socket::write`]: the application writes one TSDU; the socket accepts what its send
//!   buffer has room for and returns that count (the application writes the rest later, when
//!   [`Socket::send_room`] is no longer 0);
//! - [`Socket::delivered`]: bytes the application may read (delivered in order by the transport
//!   and not yet read);
//! - [`Socket::read`]: the application consumed bytes (for TCP this frees receive-buffer room,
//!   i.e. window).
//!
//! On an ideal host it is a pass-through: no processing costs and unlimited buffers. On a host
//! with a model (`gated`, docs/hosts.md) each `write` of a new TSDU and each `read` is a system
//! call the host's CPU serves at its application level (`per_tsdu`) before it takes effect: the
//! first call returns 0 and asks for it ([`Socket::take_asks`]); the engine (`sim/host.rs`)
//! serves its cost, grants it ([`Socket::grant`]) and wakes the application, whose call again
//! (the rest of the same TSDU; or the read) then goes through. This is the one mechanism by
//! which every application writing or reading through a socket pays its system calls.

use crate::time::SimTime;
use crate::transport::{AnyTransport, SegmentOut};
use crate::wire::SegHdr;

/// One socket: a transport end and the application's view of its buffers.
#[derive(Clone, Debug)]
pub struct Socket {
    pub transport: AnyTransport,
    /// Bytes the application has read so far.
    read: u64,
    /// Send buffer, bytes: written and unacknowledged bytes fit in it (u64::MAX: unlimited).
    pub send_buffer: u64,
    /// The host has a model: writes and reads are system calls served by its CPU.
    pub gated: bool,
    /// The write system call's state, and the bytes of its TSDU not yet taken.
    wr: Call,
    wr_left: u64,
    /// The read system call's state.
    rd: Call,
    /// When the last frame arrived (BSD resets `t_idle` on every segment).
    pub last_rx: SimTime,
}

/// A system call through a gated socket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Call {
    /// None under way.
    #[default]
    Idle,
    /// The application made it; the engine has not queued its cost yet.
    Asked,
    /// Its cost is queued or being served on the CPU.
    Queued,
    /// Its cost has been served: the call takes effect when the application makes it again.
    Granted,
}

/// What a socket asks of the engine: a write and/or a read system call to serve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Asks {
    pub write: bool,
    pub read: bool,
}

impl Socket {
    /// A pass-through socket (unlimited buffers).
    pub fn new(transport: AnyTransport) -> Self {
        Socket {
            transport,
            read: 0,
            send_buffer: u64::MAX,
            gated: false,
            wr: Call::Idle,
            wr_left: 0,
            rd: Call::Idle,
            last_rx: 0,
        }
    }

    /// The host has a model (docs/hosts.md): a stream socket's writes and reads become system
    /// calls served by the host's CPU, its send buffer is the host's (`send_buffer`, unless
    /// unlimited), and with `app_reads` its TCP advertises the free receive buffer and sends
    /// window updates when reads open it. A datagram socket is left as it is: its sends cost
    /// the packets' send processing, and its receive buffer and read system call are the host
    /// model's (`sim/host.rs`).
    pub fn gate(&mut self, send_buffer: u64, app_reads: bool) {
        if self.is_datagram() {
            return;
        }
        self.gated = true;
        if send_buffer != u64::MAX {
            self.send_buffer = send_buffer;
        }
        if app_reads {
            self.transport.set_app_reads();
        }
    }

    /// The socket carries messages (datagrams), not a byte stream.
    pub fn is_datagram(&self) -> bool {
        self.transport.is_datagram()
    }

    /// The oldest complete message not yet taken (datagram sockets): (number, bytes).
    pub fn take_message(&mut self) -> Option<(u32, u32)> {
        self.transport.take_message()
    }

    /// Gated: the system calls asked since the last look, now queued.
    pub fn take_asks(&mut self) -> Asks {
        let mut a = Asks::default();
        if self.wr == Call::Asked {
            self.wr = Call::Queued;
            a.write = true;
        }
        if self.rd == Call::Asked {
            self.rd = Call::Queued;
            a.read = true;
        }
        a
    }

    /// Gated: the queued write (`read` false) or read system call's cost has been served.
    pub fn grant(&mut self, read: bool) {
        let c = if read { &mut self.rd } else { &mut self.wr };
        if *c == Call::Queued {
            *c = Call::Granted;
        }
    }

    /// Gated: a write system call waits for the CPU (asked or queued, not yet served).
    pub fn write_waiting(&self) -> bool {
        matches!(self.wr, Call::Asked | Call::Queued)
    }

    /// See [`crate::transport::Transport::next_timer`].
    pub fn next_timer(&self) -> Option<SimTime> {
        self.transport.next_timer()
    }
    /// See [`crate::transport::Transport::on_timer`].
    pub fn on_timer(&mut self, now: SimTime, out: &mut impl SegmentOut) {
        self.transport.on_timer(now, out)
    }
    /// See [`crate::transport::Transport::on_frame`].
    pub fn on_frame(&mut self, now: SimTime, sdu: u32, seg: SegHdr, out: &mut impl SegmentOut) {
        self.last_rx = now;
        self.transport.on_frame(now, sdu, seg, out)
    }

    /// The application writes `bytes` (one TSDU, or the rest of one it began); returns the
    /// bytes accepted (what the send buffer has room for). Gated: a new TSDU is accepted only
    /// once its system call has been served (0 until then; the call begins only when the send
    /// buffer has room, as BSD `sosend` blocks before copying), the rest of it as room frees.
    pub fn write(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) -> u64 {
        if self.is_datagram() {
            // one message, sent whole (an empty message too): nothing is buffered
            self.transport.write(now, bytes, out);
            return bytes;
        }
        let mut n = bytes.min(self.send_room());
        if self.gated {
            match self.wr {
                Call::Granted => {
                    n = n.min(self.wr_left);
                    self.wr_left -= n;
                    if self.wr_left == 0 {
                        self.wr = Call::Idle;
                    }
                }
                Call::Idle => {
                    if n > 0 {
                        self.wr = Call::Asked;
                        self.wr_left = bytes;
                    }
                    return 0;
                }
                Call::Asked | Call::Queued => return 0,
            }
        }
        if n > 0 {
            self.transport.write(now, n, out);
        }
        n
    }

    /// Free room in the send buffer, bytes.
    pub fn send_room(&self) -> u64 {
        self.send_buffer
            .saturating_sub(self.transport.send_buffered())
    }

    /// Bytes written and not yet acknowledged by the transport.
    pub fn send_buffered(&self) -> u64 {
        self.transport.send_buffered()
    }

    /// Bytes the application may read: delivered in order and not yet read.
    pub fn delivered(&self) -> u64 {
        self.transport.delivered() - self.read
    }

    /// Bytes the application has read so far.
    pub fn consumed(&self) -> u64 {
        self.read
    }

    /// The application consumes up to `bytes` (at most [`Socket::delivered`]) and gets the
    /// count; for TCP their receive-buffer room is free again (window). Gated: only once the
    /// read system call has been served (0 until then; the call begins when bytes are there).
    pub fn read(&mut self, now: SimTime, bytes: u64, out: &mut impl SegmentOut) -> u64 {
        let n = bytes.min(self.delivered());
        if self.gated {
            match self.rd {
                Call::Granted => self.rd = Call::Idle,
                Call::Idle => {
                    if n > 0 {
                        self.rd = Call::Asked;
                    }
                    return 0;
                }
                Call::Asked | Call::Queued => return 0,
            }
        }
        self.read += n;
        self.transport.read(now, n, out);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::{TcpEnd, TcpParams, Workload};

    #[derive(Default)]
    struct Out(Vec<(u32, SegHdr)>);
    impl SegmentOut for Out {
        fn room(&self) -> bool {
            true
        }
        fn frame(&mut self, sdu: u32, seg: SegHdr) {
            self.0.push((sdu, seg));
        }
    }

    /// Two sockets over TCP, frames carried directly: the application writes N bytes in TSDUs
    /// of varied sizes and reads exactly N bytes, in order (the receiver only ever advances
    /// its in-order point).
    #[test]
    fn writes_through_a_socket_arrive_exactly_once() {
        let mut p = TcpParams::new(512, 65_535);
        p.workload = Workload::App;
        let mut a = Socket::new(AnyTransport::Tcp(Box::new(TcpEnd::sender(p.clone()))));
        let mut b = Socket::new(AnyTransport::Tcp(Box::new(TcpEnd::receiver(p))));
        let mut out = Out::default();
        a.on_timer(0, &mut out);
        let sizes = [1u64, 511, 512, 513, 1000, 4096, 9000, 7];
        let total: u64 = sizes.iter().cycle().take(40).sum();
        let (mut now, mut read) = (1u64, 0u64);
        for &n in sizes.iter().cycle().take(40) {
            assert_eq!(a.write(now, n, &mut out), n);
            loop {
                let frames = std::mem::take(&mut out.0);
                if frames.is_empty() {
                    break;
                }
                let mut back = Out::default();
                for (sdu, seg) in frames {
                    b.on_frame(now, sdu, seg, &mut back);
                }
                let got = b.delivered();
                b.read(now, got, &mut back);
                read += got;
                now += 1;
                for (sdu, seg) in back.0 {
                    a.on_frame(now, sdu, seg, &mut out);
                }
            }
        }
        assert_eq!(read, total);
        assert_eq!(b.consumed(), total);
        assert_eq!(b.delivered(), 0);
        assert_eq!(a.send_buffered(), 0);
    }
}
