//! The host model (`nodes[].host`, docs/hosts.md): the host's CPU as one server shared by all
//! the connections of the host, and its socket buffers.
//!
//! The CPU is one server with two levels (BSD: protocol processing runs at interrupt level and
//! preempts the processes' system calls; a preempted call resumes where it stopped):
//! - level 0, protocol: each packet's send processing (`per_packet_send + bytes x
//!   per_byte_send`: the packet's cells reach the adapter, the host's output port, when it is
//!   done) and receive processing (`per_packet_recv + bytes x per_byte_recv`: the frame reaches
//!   the transport when it is done);
//! - level 1, application: the write and read system calls (`per_tsdu` each).
//!
//! Protocol work is not preempted; within a level jobs are served first come, first served. Bytes are payload bytes (the
//! copies and checksums touch the user data; headers are in the per-packet cost).
//!
//! The adapter is the host's output port: it serializes cells at the link rate (seed 004's
//! "100 Mbps TAXI" adapter is the 100 Mb/s link from the host), so it needs no model here.

use crate::time::{SimDuration, SimTime};
use crate::wire::SegHdr;
use std::collections::VecDeque;

/// The resolved parameters of one host (a preset with the keys given over it).
#[derive(Clone, Debug, PartialEq)]
pub struct HostParams {
    /// Name of the preset, if any.
    pub preset: Option<&'static str>,
    /// Write or read system call, per TSDU (ps).
    pub per_tsdu: SimDuration,
    /// Protocol processing per packet sent / received (ps).
    pub per_packet_send: SimDuration,
    pub per_packet_recv: SimDuration,
    /// Per payload byte sent / received (ps per byte: copies, checksums).
    pub per_byte_send_ps: f64,
    pub per_byte_recv_ps: f64,
    /// Socket send buffer (bytes written and not yet acknowledged), bytes; u64::MAX: unlimited.
    pub send_buffer: u64,
    /// Socket receive buffer of a datagram socket (bytes received and not yet read), bytes;
    /// u64::MAX: unlimited.
    pub receive_buffer: u64,
    /// One datagram socket (one receive buffer) for every datagram endpoint of the host
    /// (`receive_socket = "shared"`), else one per endpoint.
    pub shared_socket: bool,
    /// The adapter's receive buffers: CPCS-SDU bytes of reassembled frames waiting for (or in)
    /// receive processing; u64::MAX: unlimited.
    pub adapter_buffer: u64,
    /// A video sender is flagged when its mean send time per frame exceeds the frame interval
    /// by more than this (ps).
    pub keep_up_tolerance: SimDuration,
}

impl HostParams {
    /// The ideal host: no costs, unlimited buffers.
    pub fn ideal() -> Self {
        HostParams {
            preset: None,
            per_tsdu: 0,
            per_packet_send: 0,
            per_packet_recv: 0,
            per_byte_send_ps: 0.0,
            per_byte_recv_ps: 0.0,
            send_buffer: u64::MAX,
            receive_buffer: u64::MAX,
            shared_socket: false,
            adapter_buffer: u64::MAX,
            keep_up_tolerance: 0,
        }
    }
    /// Send processing of one packet with `payload` bytes.
    pub fn send_cost(&self, payload: u64) -> SimDuration {
        self.per_packet_send + (payload as f64 * self.per_byte_send_ps).round() as SimDuration
    }
    /// Receive processing of one packet with `payload` bytes.
    pub fn recv_cost(&self, payload: u64) -> SimDuration {
        self.per_packet_recv + (payload as f64 * self.per_byte_recv_ps).round() as SimDuration
    }
}

/// The key of a host's one shared datagram socket in [`HostCpu`]'s buffers.
const SHARED: u32 = u32::MAX;

/// Work for the CPU; what happens when it is done is the engine's (`sim/host.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// Send processing of a frame of endpoint `ep`: then its cells go to the adapter.
    Tx { ep: u32, sdu: u32, seg: SegHdr },
    /// Receive processing of a frame for endpoint `ep`: then the transport gets it.
    Rx { ep: u32, sdu: u32, seg: SegHdr },
    /// A read system call of endpoint `ep` for a datagram held in its receive buffer: then the
    /// application gets it and the buffer room is free.
    Read { ep: u32, sdu: u32, seg: SegHdr },
    /// A write (`read` false) or read system call on socket `conn` of endpoint `ep` (its
    /// per-TSDU cost): then the socket lets it take effect and the application is woken.
    Call { ep: u32, conn: u16, read: bool },
    /// A system call whose only effect is its time.
    Charge,
}

/// Counters of one host.
#[derive(Clone, Debug, Default)]
pub struct HostStats {
    /// CPU busy time after warm-up (ps).
    pub busy_ps: u128,
    pub packets_sent: u64,
    pub packets_received: u64,
    pub syscalls: u64,
    /// Datagrams dropped by the host because the socket receive buffer was full.
    pub receive_buffer_drops: u64,
    pub receive_buffer_dropped_bytes: u64,
    /// Frames dropped by the adapter because its receive buffers were full.
    pub adapter_drops: u64,
}

/// The job in service.
#[derive(Clone, Copy, Debug)]
struct Serving {
    start: SimTime,
    end: SimTime,
    level: usize,
    job: Job,
}

/// One host's CPU and the receive buffers of its datagram sockets.
#[derive(Clone, Debug)]
pub struct HostCpu {
    pub node: u32,
    pub p: HostParams,
    /// Busy time counts from this time on (the end of warm-up).
    count_from: SimTime,
    /// Waiting jobs per level with their remaining cost.
    queues: [VecDeque<(SimDuration, Job)>; 2],
    current: Option<Serving>,
    /// Incremented at each start: a completion event carries it, a stale one (its job was
    /// preempted) is ignored.
    gen: u32,
    /// Bytes held in each datagram socket's receive buffer, by socket (the endpoint, or
    /// [`SHARED`] for the host's one shared socket).
    held: std::collections::BTreeMap<u32, u64>,
    /// CPCS-SDU bytes of frames held by the adapter (waiting for or in receive processing).
    adapter_held: u64,
    /// Datagrams dropped at a full receive buffer and frames dropped at full adapter buffers
    /// (after warm-up), by endpoint.
    pub drops_by_endpoint: std::collections::BTreeMap<u32, u64>,
    pub stats: HostStats,
}

impl HostCpu {
    pub fn new(node: u32, p: HostParams, count_from: SimTime) -> Self {
        HostCpu {
            node,
            p,
            count_from,
            queues: [VecDeque::new(), VecDeque::new()],
            current: None,
            gen: 0,
            held: Default::default(),
            adapter_held: 0,
            drops_by_endpoint: Default::default(),
            stats: HostStats::default(),
        }
    }

    fn account(&mut self, start: SimTime, until: SimTime) {
        self.stats.busy_ps += until.saturating_sub(start.max(self.count_from)) as u128;
    }

    /// Queue `job` taking `cost` at `level` (0 protocol, 1 application). When it starts now
    /// (the CPU was idle, or it preempts a system call), returns the time its completion is due
    /// and the tag [`HostCpu::complete`] expects.
    pub fn push(
        &mut self,
        now: SimTime,
        level: usize,
        cost: SimDuration,
        job: Job,
    ) -> Option<(SimTime, u32)> {
        crate::budget::deque_push(&self.queues[level], "the jobs waiting for a host's CPU");
        self.queues[level].push_back((cost, job));
        match self.current {
            None => self.start_next(now),
            Some(cur) if level == 0 && cur.level == 1 => {
                // interrupt level preempts the system call; it resumes first among its level
                self.account(cur.start, now);
                self.queues[1].push_front((cur.end.saturating_sub(now), cur.job));
                self.current = None;
                self.start_next(now)
            }
            Some(_) => None,
        }
    }

    fn start_next(&mut self, now: SimTime) -> Option<(SimTime, u32)> {
        let (level, (cost, job)) = match self.queues[0].pop_front() {
            Some(x) => (0, x),
            None => (1, self.queues[1].pop_front()?),
        };
        let end = now + cost;
        self.gen = self.gen.wrapping_add(1);
        self.current = Some(Serving {
            start: now,
            end,
            level,
            job,
        });
        Some((end, self.gen))
    }

    /// A completion event with tag `gen` at `now`: None when stale (that job was preempted);
    /// else the job done, and the next completion to schedule, if any.
    #[allow(clippy::type_complexity)]
    pub fn complete(&mut self, now: SimTime, gen: u32) -> Option<(Job, Option<(SimTime, u32)>)> {
        let cur = self.current?;
        if gen != self.gen || cur.end != now {
            return None;
        }
        self.current = None;
        self.account(cur.start, now);
        Some((cur.job, self.start_next(now)))
    }

    /// Busy time after warm-up up to `now`, the job in service included (ps).
    pub fn busy_until(&self, now: SimTime) -> u128 {
        let cur = self.current.map_or(0, |c| {
            now.min(c.end).saturating_sub(c.start.max(self.count_from))
        });
        self.stats.busy_ps + cur as u128
    }

    /// The job in service, with its end time.
    pub fn current(&self) -> Option<(SimTime, Job)> {
        self.current.map(|c| (c.end, c.job))
    }

    /// Every job in service or waiting (the one in service first, then protocol work, then
    /// system calls).
    pub fn jobs(&self) -> impl Iterator<Item = &Job> {
        let current = self.current.as_ref().map(|c| &c.job);
        let waiting = self.queues.iter().flat_map(|q| q.iter().map(|(_, j)| j));
        current.into_iter().chain(waiting)
    }

    /// Jobs waiting (both levels).
    pub fn backlog(&self) -> usize {
        self.queues[0].len() + self.queues[1].len()
    }

    /// The socket endpoint `ep`'s datagrams go into.
    fn socket(&self, ep: u32) -> u32 {
        if self.p.shared_socket {
            SHARED
        } else {
            ep
        }
    }

    /// A reassembled frame of `sdu` CPCS-SDU bytes for endpoint `ep` wants into the adapter's
    /// receive buffers: false (and counted when `counted`) when it does not fit.
    pub fn adapter_take(&mut self, ep: u32, sdu: u64, counted: bool) -> bool {
        if self.adapter_held.saturating_add(sdu) > self.p.adapter_buffer {
            if counted {
                *self.drops_by_endpoint.entry(ep).or_insert(0) += 1;
                self.stats.adapter_drops += 1;
            }
            return false;
        }
        self.adapter_held += sdu;
        true
    }

    /// The host's receive processing of a frame of `sdu` bytes is done: its adapter buffer is
    /// free.
    pub fn adapter_free(&mut self, sdu: u64) {
        self.adapter_held -= sdu.min(self.adapter_held);
    }

    /// A datagram of `bytes` for endpoint `ep` wants into its socket's receive buffer: false
    /// (and counted) when it does not fit.
    pub fn hold(&mut self, ep: u32, bytes: u64, counted: bool) -> bool {
        let sock = self.socket(ep);
        let h = self.held.entry(sock).or_insert(0);
        if h.saturating_add(bytes) > self.p.receive_buffer {
            if counted {
                *self.drops_by_endpoint.entry(ep).or_insert(0) += 1;
                self.stats.receive_buffer_drops += 1;
                self.stats.receive_buffer_dropped_bytes += bytes;
            }
            return false;
        }
        *h += bytes;
        true
    }

    /// The application read a datagram of `bytes`: its room is free.
    pub fn release(&mut self, ep: u32, bytes: u64) {
        let sock = self.socket(ep);
        if let Some(h) = self.held.get_mut(&sock) {
            *h -= bytes.min(*h);
        }
    }

    /// Bytes held in the receive buffer of `ep`'s socket (shared: every endpoint's).
    pub fn held(&self, ep: u32) -> u64 {
        self.held.get(&self.socket(ep)).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(ep: u32) -> Job {
        Job::Tx {
            ep,
            sdu: 0,
            seg: SegHdr::default(),
        }
    }

    fn drain(c: &mut HostCpu, mut next: Option<(SimTime, u32)>) -> (SimTime, Vec<Job>) {
        let (mut t, mut order) = (0, vec![]);
        while let Some((at, g)) = next {
            t = at;
            let (j, n) = c.complete(at, g).expect("not stale");
            order.push(j);
            next = n;
        }
        (t, order)
    }

    /// Jobs queued at once are served back to back: the last ends at the sum of the costs,
    /// protocol work first, first come first served within a level.
    #[test]
    fn one_server_two_levels_back_to_back() {
        let mut c = HostCpu::new(0, HostParams::ideal(), 0);
        let first = c.push(0, 1, 10, Job::Charge);
        assert_eq!(first, Some((10, 1)));
        // protocol work arriving at 0 preempts the call (10 left)
        assert_eq!(
            c.push(
                0,
                1,
                7,
                Job::Call {
                    ep: 1,
                    conn: 0,
                    read: false
                }
            ),
            None
        );
        let next = c.push(0, 0, 3, job(2));
        assert_eq!(next, Some((3, 2)));
        assert_eq!(c.push(0, 0, 4, job(3)), None);
        assert!(
            c.complete(10, 1).is_none(),
            "the preempted call's event is stale"
        );
        let (t, order) = drain(&mut c, next);
        assert_eq!(t, 24);
        assert_eq!(
            order,
            vec![
                job(2),
                job(3),
                Job::Charge,
                Job::Call {
                    ep: 1,
                    conn: 0,
                    read: false
                }
            ]
        );
        assert_eq!(c.stats.busy_ps, 24);
    }

    /// A system call preempted halfway resumes with what is left: it ends at its cost plus the
    /// protocol work that came in between.
    #[test]
    fn a_preempted_call_resumes_where_it_stopped() {
        let mut c = HostCpu::new(0, HostParams::ideal(), 0);
        let a = c.push(0, 1, 100, Job::Charge).unwrap();
        let b = c.push(40, 0, 25, job(1)).unwrap();
        assert_eq!(b, (65, a.1 + 1));
        assert!(c.complete(a.0, a.1).is_none());
        let (j, next) = c.complete(65, b.1).unwrap();
        assert_eq!(j, job(1));
        assert_eq!(next.unwrap().0, 125);
        assert_eq!(c.backlog(), 0);
    }

    #[test]
    fn receive_buffer_holds_what_fits_and_counts_the_rest() {
        let mut p = HostParams::ideal();
        p.receive_buffer = 1000;
        let mut c = HostCpu::new(0, p, 0);
        let admitted = (0..7).filter(|_| c.hold(4, 300, true)).count();
        assert_eq!(admitted, 3);
        assert_eq!(c.stats.receive_buffer_drops, 4);
        assert_eq!(c.held(4), 900);
        c.release(4, 300);
        assert!(c.hold(4, 400, true));
        assert_eq!(c.held(4), 1000);
    }

    /// One shared socket: the datagrams of every endpoint fill one buffer (seed 004's one
    /// receiving process); per connection, each endpoint has the whole buffer to itself.
    #[test]
    fn a_shared_socket_is_one_buffer_for_every_endpoint() {
        let mut p = HostParams::ideal();
        p.receive_buffer = 1000;
        let mut per = HostCpu::new(0, p.clone(), 0);
        assert_eq!((1..=4).filter(|&ep| per.hold(ep, 600, true)).count(), 4);
        p.shared_socket = true;
        let mut one = HostCpu::new(0, p, 0);
        assert_eq!((1..=4).filter(|&ep| one.hold(ep, 600, true)).count(), 1);
        assert_eq!(one.held(3), 600, "every endpoint sees the one buffer");
        assert_eq!(one.stats.receive_buffer_drops, 3);
        assert_eq!(
            one.drops_by_endpoint.keys().copied().collect::<Vec<_>>(),
            [2, 3, 4]
        );
        one.release(1, 600);
        assert!(one.hold(4, 1000, true));
    }

    /// The adapter holds frames up to its buffer, counts the rest by endpoint, and frees a
    /// frame's room when its receive processing is done.
    #[test]
    fn adapter_buffers_hold_what_fits() {
        let mut p = HostParams::ideal();
        p.adapter_buffer = 2000;
        let mut c = HostCpu::new(0, p, 0);
        assert!(c.adapter_take(1, 1500, true));
        assert!(!c.adapter_take(2, 600, true));
        assert!(
            !c.adapter_take(2, 600, false),
            "not counted before warm-up's end"
        );
        assert!(c.adapter_take(2, 500, true));
        assert_eq!(c.stats.adapter_drops, 1);
        assert_eq!(c.drops_by_endpoint.get(&2), Some(&1));
        c.adapter_free(1500);
        assert!(c.adapter_take(3, 1500, true));
    }

    #[test]
    fn costs_are_per_packet_plus_per_byte() {
        let mut p = HostParams::ideal();
        p.per_packet_send = 1_000_000;
        p.per_byte_send_ps = 12.5;
        p.per_packet_recv = 2_000_000;
        p.per_byte_recv_ps = 0.5;
        assert_eq!(p.send_cost(9140), 1_000_000 + 114_250);
        assert_eq!(p.recv_cost(9140), 2_000_000 + 4_570);
    }
}
