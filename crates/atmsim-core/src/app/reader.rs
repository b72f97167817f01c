//! The reading application at the receiving end of a bulk transfer (`source.kind = "tcp"` or
//! `"xtpx"` without an application of its own): it reads everything delivered, on every socket,
//! as soon as it can. On a host with a model each read is a system call served by the host's
//! CPU (`per_tsdu`, docs/hosts.md): the application wakes up when data arrive and reads what
//! has arrived by the time the call is served. On an ideal host the read takes no time.

use super::{Application, Io};

/// Reads whatever arrives.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reader;

impl Reader {
    fn read_all(io: &mut impl Io) {
        for k in 0..io.sockets() as u16 {
            let n = io.readable(k);
            if n > 0 {
                io.read(k, n);
            }
        }
    }
}

impl Application for Reader {
    fn sock_event(&mut self, io: &mut impl Io, _k: u16) {
        Self::read_all(io);
    }
    fn reads(&self) -> bool {
        true
    }
}
