//! The host model in the engine (docs/hosts.md; the model is `host/cpu.rs`): frames of an
//! endpoint on a host with a model pass through its CPU on the way out (send processing, then
//! the cells go to the adapter, the host's output port) and on the way in (receive
//! processing, then the transport gets the frame; a datagram then waits in its socket's
//! receive buffer for the application's read). The write and read system calls of every
//! application's sockets are served there too (one mechanism: the socket asks, the CPU serves
//! `per_tsdu`, the socket is granted and the application woken; `host/socket.rs`). Without host
//! models nothing here runs.

use crate::app::{Asks, Ctx};
use crate::engine::Event;
use crate::host::cpu::{HostCpu, Job};
use crate::host::Host;
use crate::net::NONE;
use crate::sim::*;
use crate::wire::SegHdr;

/// The engine's host models: one CPU per host node with a model, and which CPU serves each
/// endpoint.
#[derive(Default)]
pub struct Hosts {
    pub cpus: Vec<HostCpu>,
    /// By endpoint: its CPU (NONE: the ideal host).
    pub ep_cpu: Vec<u32>,
}

impl Simulation {
    /// The CPU serving endpoint `e`, if its host has a model.
    #[inline]
    pub(crate) fn cpu_of(&self, e: u32) -> Option<u32> {
        match self.hosts.ep_cpu.get(e as usize) {
            Some(&c) if c != NONE => Some(c),
            _ => None,
        }
    }

    fn cpu_push(&mut self, c: u32, level: usize, cost: SimDuration, job: Job) {
        if let Some((t, g)) = self.hosts.cpus[c as usize].push(self.now, level, cost, job) {
            self.queue.push(t, Event::Host(c, g));
        }
    }

    /// A frame of endpoint `e` on a host with a model: its send processing first.
    #[cold]
    #[inline(never)]
    pub(crate) fn host_tx(&mut self, c: u32, e: u32, sdu: u32, seg: SegHdr) {
        let hdr = self.header_bytes(e);
        let cost = self.hosts.cpus[c as usize]
            .p
            .send_cost(sdu.saturating_sub(hdr) as u64);
        self.cpu_push(c, 0, cost, Job::Tx { ep: e, sdu, seg });
    }

    /// An intact frame for endpoint `e` on a host with a model: it waits in the adapter's
    /// receive buffers (dropped there when they are full) for its receive processing.
    pub(crate) fn host_rx(&mut self, c: u32, e: u32, sdu: u32, seg: SegHdr) {
        let hdr = self.header_bytes(e);
        let warm = self.now >= self.warmup;
        let cpu = &mut self.hosts.cpus[c as usize];
        if !cpu.adapter_take(e, sdu as u64, warm) {
            return;
        }
        let cost = cpu.p.recv_cost(sdu.saturating_sub(hdr) as u64);
        self.cpu_push(c, 0, cost, Job::Rx { ep: e, sdu, seg });
    }

    /// Header bytes of endpoint `e`'s frames that its host's per-byte costs leave out.
    fn header_bytes(&self, e: u32) -> u32 {
        self.endpoints[e as usize]
            .app
            .host()
            .map_or(0, Host::header_bytes)
    }

    /// After any call of endpoint `e` on a host with a model: the write and read system calls
    /// its sockets asked for are queued on the CPU's application level (`per_tsdu` each).
    #[cold]
    #[inline(never)]
    pub(crate) fn host_after_call(&mut self, c: u32, e: u32) {
        let mut asked: Vec<Job> = Vec::new(); // allocates only when a call was asked
        if let Some(h) = self.endpoints[e as usize].app.host_mut() {
            h.take_asks(|conn, a| {
                for (yes, read) in [(a.write, false), (a.read, true)] {
                    if yes {
                        asked.push(Job::Call { ep: e, conn, read });
                    }
                }
            });
        }
        let cost = self.hosts.cpus[c as usize].p.per_tsdu;
        for j in asked {
            self.cpu_push(c, 1, cost, j);
        }
    }

    /// Call endpoint `e`'s host with `f` and carry out what it asked.
    fn host_call(&mut self, e: u32, f: impl FnOnce(&mut Host, &mut Ctx)) {
        let now = self.now;
        let ep = &mut self.endpoints[e as usize];
        let mut asks = Asks::default();
        let mut ctx = Ctx::new(now, &mut ep.rng, &mut asks);
        if let Some(h) = ep.app.host_mut() {
            f(h, &mut ctx);
        }
        self.apply(e, &asks);
    }

    /// The job in service at CPU `c` is done (unless `gen` says it was preempted since).
    pub(crate) fn host_event(&mut self, c: u32, gen: u32) {
        let now = self.now;
        let warm = now >= self.warmup;
        let Some((job, next)) = self.hosts.cpus[c as usize].complete(now, gen) else {
            return;
        };
        if let Some((t, g)) = next {
            self.queue.push(t, Event::Host(c, g));
        }
        match job {
            Job::Tx { ep, sdu, seg } => {
                if warm {
                    self.hosts.cpus[c as usize].stats.packets_sent += 1;
                }
                let e = &mut self.endpoints[ep as usize];
                let flow = e.flow;
                if let Some(h) = e.app.host_mut() {
                    // the packet reaches the adapter (the application hears of a message's
                    // first: seed 004's keep-up rule)
                    h.packet_out(now, seg, warm);
                }
                for (len, eof) in Sar::frame(sdu) {
                    self.emit_cell(flow, len, eof, seg);
                }
            }
            Job::Rx { ep, sdu, seg } => {
                let cpu = &mut self.hosts.cpus[c as usize];
                cpu.adapter_free(sdu as u64);
                if warm {
                    cpu.stats.packets_received += 1;
                }
                let datagram = self.endpoints[ep as usize]
                    .app
                    .host()
                    .is_some_and(Host::is_datagram);
                if datagram {
                    let bytes = sdu.saturating_sub(self.header_bytes(ep)) as u64;
                    let cpu = &mut self.hosts.cpus[c as usize];
                    if cpu.hold(ep, bytes, warm) {
                        let cost = cpu.p.per_tsdu;
                        self.cpu_push(c, 1, cost, Job::Read { ep, sdu, seg });
                    }
                    return;
                }
                self.host_call(ep, |h, ctx| h.on_frame(ctx, sdu, seg));
            }
            Job::Read { ep, sdu, seg } => {
                let hdr = self.header_bytes(ep);
                self.hosts.cpus[c as usize].release(ep, sdu.saturating_sub(hdr) as u64);
                if warm {
                    self.hosts.cpus[c as usize].stats.syscalls += 1;
                }
                self.host_call(ep, |h, ctx| h.on_frame(ctx, sdu, seg));
            }
            Job::Call { ep, conn, read } => {
                if warm {
                    self.hosts.cpus[c as usize].stats.syscalls += 1;
                }
                self.host_call(ep, |h, ctx| h.served(ctx, conn, read));
            }
            Job::Charge => {
                if warm {
                    self.hosts.cpus[c as usize].stats.syscalls += 1;
                }
            }
        }
    }
}

impl Simulation {
    /// The `hosts` section of the summary (empty without host models).
    pub(crate) fn host_summaries(
        &self,
        window_ps: SimDuration,
    ) -> std::collections::BTreeMap<String, crate::metrics::HostSummary> {
        use crate::metrics::{HostSummary, KeepUpSummary};
        let mut out = std::collections::BTreeMap::new();
        for (c, cpu) in self.hosts.cpus.iter().enumerate() {
            let conn = |e: u32| {
                self.flows[self.endpoints[e as usize].flow as usize]
                    .name
                    .clone()
            };
            let mut video_senders = std::collections::BTreeMap::new();
            for (e, ep) in self.endpoints.iter().enumerate() {
                if self.hosts.ep_cpu[e] != c as u32 {
                    continue;
                }
                let Some((log, interval)) = EndpointHooks::keep_up(&ep.app) else {
                    continue;
                };
                let mean = log.mean_send_ps();
                let tol = cpu.p.keep_up_tolerance as f64;
                video_senders.insert(
                    conn(e as u32),
                    KeepUpSummary {
                        frames: log.frames,
                        mean_send_time_ms: mean.map(|m| m / 1e9),
                        frame_interval_ms: interval / 1e9,
                        overloaded: mean.is_some_and(|m| m > interval + tol),
                    },
                );
            }
            out.insert(
                self.nodes[cpu.node as usize].name.clone(),
                HostSummary {
                    preset: cpu.p.preset,
                    cpu_utilization: cpu.busy_until(self.now) as f64 / window_ps.max(1) as f64,
                    packets_sent: cpu.stats.packets_sent,
                    packets_received: cpu.stats.packets_received,
                    system_calls: cpu.stats.syscalls,
                    drops: [
                        ("host_receive_buffer", cpu.stats.receive_buffer_drops),
                        ("adapter_receive_buffer", cpu.stats.adapter_drops),
                    ]
                    .into(),
                    drops_by_connection: cpu
                        .drops_by_endpoint
                        .iter()
                        .map(|(&e, &n)| (conn(e), n))
                        .collect(),
                    sender_overloaded: video_senders.values().any(|k| k.overloaded),
                    video_senders,
                },
            );
        }
        out
    }
}
