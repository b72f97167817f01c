//! Echo: request-response over any transport, the worked example of a new application
//! (docs/architecture.md, "Adding an application"). The client writes a request of
//! `request_bytes`; the server reads it whole and writes the same number of bytes back; the
//! client reads the whole response, which ends one round trip, timed from the request's write
//! to the response's last byte read. The next request follows `interval` later, up to `count`
//! requests (a closed loop: one request outstanding at a time, as `ping` and the request-response
//! tests of netperf).
//!
//! Over a stream socket (TCP, XTPX) both ends know the request size, as the workload runner
//! does (a real application would carry the length in its data; the bytes are the same), and
//! nothing is lost. Over a datagram socket (UDP) each request and each response is one message;
//! a response that has not come `timeout` after its request counts as lost and the next request
//! goes. Responses are matched to the outstanding request in arrival order: one arriving while
//! no request is outstanding (later than its timeout) counts as late and is not timed.
//!
//! Accounting at the client, at any instant: `requests = responses + lost + outstanding`.

use super::{AppSections, Application, Io, SocketFacts};
use crate::time::SimTime;
use serde::Serialize;

/// Which end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Client,
    Server,
}

/// The parameters both ends share (`source.echo`).
#[derive(Clone, Copy, Debug)]
pub struct EchoParams {
    /// Bytes of each request and of its response (> 0).
    pub request_bytes: u64,
    /// Requests to send.
    pub count: u64,
    /// From a response (or a loss) to the next request, ps.
    pub interval: SimTime,
    /// Datagram sockets: a response not in this long after its request is lost, ps.
    pub timeout: SimTime,
    /// The first request goes at this time.
    pub start: SimTime,
}

/// One end of an echo connection (socket 0).
#[derive(Clone, Debug)]
pub struct Echo {
    pub role: Role,
    pub p: EchoParams,
    /// Client: requests sent, responses received, requests lost (datagrams), late responses.
    pub requests: u64,
    pub responses: u64,
    pub lost: u64,
    pub late: u64,
    /// Client: when the outstanding request was written.
    outstanding: Option<SimTime>,
    /// Client: when the next request is due.
    next_at: Option<SimTime>,
    /// Stream sockets: bytes read towards the current request or response.
    got: u64,
    /// Bytes of the message being written that the socket has not taken yet.
    write_left: u64,
    /// Server: responses owed and not yet begun.
    owed: u64,
    /// Client: round-trip times, ps: count, sum, min, max.
    rtt: (u64, u128, SimTime, SimTime),
    /// Socket 0 carries datagrams (a response can be lost).
    datagram: bool,
}

impl Echo {
    pub fn new(role: Role, p: EchoParams) -> Self {
        Echo {
            role,
            p,
            requests: 0,
            responses: 0,
            lost: 0,
            late: 0,
            outstanding: None,
            next_at: (role == Role::Client).then_some(p.start),
            got: 0,
            write_left: 0,
            owed: 0,
            rtt: (0, 0, SimTime::MAX, 0),
            datagram: false,
        }
    }

    /// Go on writing what the socket has not taken yet; the server begins the next response.
    fn write_more(&mut self, io: &mut impl Io) {
        loop {
            if self.write_left > 0 {
                self.write_left -= io.write(0, self.write_left).min(self.write_left);
                if self.write_left > 0 {
                    return; // the send buffer is full, or the system call is not done
                }
            }
            if self.owed == 0 {
                return;
            }
            self.owed -= 1;
            self.write_left = self.p.request_bytes;
        }
    }

    /// Messages (datagram sockets) or whole requests/responses (streams) that arrived.
    fn arrivals(&mut self, io: &mut impl Io) -> u64 {
        if io.is_datagram(0) {
            let mut n = 0;
            while io.take_message(0).is_some() {
                n += 1;
            }
            return n;
        }
        let avail = io.readable(0);
        if avail > 0 {
            self.got += io.read(0, avail);
        }
        let n = self.got / self.p.request_bytes;
        self.got %= self.p.request_bytes;
        n
    }

    fn client(&mut self, io: &mut impl Io) {
        let now = io.now();
        for _ in 0..self.arrivals(io) {
            match self.outstanding.take() {
                Some(t) => {
                    self.responses += 1;
                    let d = now - t;
                    let (n, sum, lo, hi) = &mut self.rtt;
                    *n += 1;
                    *sum += d as u128;
                    *lo = (*lo).min(d);
                    *hi = (*hi).max(d);
                    self.next_at = Some(now + self.p.interval);
                }
                None => self.late += 1,
            }
        }
        if let Some(t) = self.outstanding {
            if self.datagram && now >= t + self.p.timeout {
                self.outstanding = None;
                self.lost += 1;
                self.next_at = Some(now + self.p.interval);
            }
        }
        if self.outstanding.is_none() && self.next_at.is_some_and(|t| t <= now) {
            self.next_at = None;
            if self.requests < self.p.count {
                self.requests += 1;
                self.outstanding = Some(now);
                self.owed += 1;
            }
        }
        self.write_more(io);
    }

    fn server(&mut self, io: &mut impl Io) {
        self.owed += self.arrivals(io);
        self.write_more(io);
    }

    fn run(&mut self, io: &mut impl Io) {
        match self.role {
            Role::Client => self.client(io),
            Role::Server => self.server(io),
        }
    }
}

/// The `echo` section of the client's connection in the summary.
#[derive(Serialize)]
struct EchoSummary {
    transport: &'static str,
    requests: u64,
    responses: u64,
    lost: u64,
    outstanding: u64,
    late: u64,
    rtt_mean_ms: Option<f64>,
    rtt_min_ms: Option<f64>,
    rtt_max_ms: Option<f64>,
}

impl Application for Echo {
    fn sock_start(&mut self, io: &mut impl Io) {
        self.datagram = io.is_datagram(0);
    }
    fn sock_timer(&mut self, io: &mut impl Io) {
        self.run(io);
    }
    fn sock_event(&mut self, io: &mut impl Io, _k: u16) {
        self.run(io);
    }
    fn next_timer(&self) -> Option<SimTime> {
        let timeout = self
            .outstanding
            .filter(|_| self.datagram)
            .map(|t| t + self.p.timeout);
        [self.next_at, timeout].into_iter().flatten().min()
    }
    fn reads(&self) -> bool {
        true
    }
    fn sections(&self, _peer: Option<&super::AnyApp>, socks: &SocketFacts) -> AppSections {
        if self.role != Role::Client {
            return AppSections::default();
        }
        let (n, sum, lo, hi) = self.rtt;
        let ms = |ps: f64| ps / 1e9;
        let s = EchoSummary {
            transport: socks.transport,
            requests: self.requests,
            responses: self.responses,
            lost: self.lost,
            outstanding: self.outstanding.is_some() as u64,
            late: self.late,
            rtt_mean_ms: (n > 0).then(|| ms(sum as f64 / n as f64)),
            rtt_min_ms: (n > 0).then(|| ms(lo as f64)),
            rtt_max_ms: (n > 0).then(|| ms(hi as f64)),
        };
        AppSections {
            other: vec![("echo", serde_json::to_value(s).expect("plain numbers"))],
            ..Default::default()
        }
    }
}
