//! The workload runner: the application that executes a workload script ([`super::script`],
//! seed 001 section 13, SPIMS) above the sockets ([`super::Io`]) of K transport connections
//! bundled on one VC (seed 001 section 8); it never knows which transport is below. One [`WorkloadApp`] sits at each end of the VC: the initiator at the
//! connection's source, the responder at its destination; connection k of the bundle is socket k
//! at both ends, its frames carry `SegHdr::conn = k`.
//!
//! Both ends know the script (SPIMS hands the specification to both parties, section 13.1) and
//! step through it connection by connection. Per run of a member:
//!
//! - `bulk_get`: the initiator writes a control message (`control_bytes`), the responder reads
//!   it and writes the data units; the initiator reads them.
//! - `bulk_put`: the initiator writes the data units, the responder reads them and answers
//!   with a control message, which ends the run at the initiator.
//! - `rr`: per transaction the initiator writes the request; the responder reads the whole
//!   request, then writes the response; the transaction ends when the initiator has read the
//!   whole response.
//!
//! The interarrival (SPIMS "timing spec") is the delay before each data unit or transaction,
//! drawn by the data's sender from its endpoint's own stream. Sizes are drawn from a stream of
//! the connection that both ends derive from the run seed, so the receiver knows where a
//! request ends (a real application carries the length in its data; those bytes are not
//! modelled). A statement's run starts at once on every member's connection and ends when all
//! members have done their runs; the next run (statement) starts then at the initiator.
//!
//! Measurement uses the simulation clock at both ends: a run starts at the data sender's first
//! write (rr: the first request's) and ends when the data receiver read its last byte (rr: the
//! last response's last byte); see docs/workloads.md for the choices (fresh window per run,
//! the restart after idle).

use super::script::*;
use super::{AnyApp, AppSections, Application, Io, SocketFacts};
use crate::metrics::workload::*;
use crate::rng::Rng;
use crate::time::{ps_to_secs, secs_to_ps, SimTime};
use rand::RngExt;
use rand_distr::{Distribution, Exp};
use std::sync::Arc;

/// Which end of the VC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Initiator,
    Responder,
}

/// When a connection's congestion window starts anew (slow start).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Restart {
    /// Never: one transport connection per member for the whole script.
    Never,
    /// At every run of a member, as a fresh transport connection would (the handshake is not
    /// modelled; the RTT estimate is kept).
    Run,
}

/// The runner's parameters (`source.workload`).
#[derive(Clone, Copy, Debug)]
pub struct WorkloadParams {
    pub restart: Restart,
    /// Bytes of each control message (run start of bulk_get, run end of bulk_put).
    pub control_bytes: u64,
    /// When the script starts.
    pub start: SimTime,
    /// The transport's name for the results ("tcp", "xtpx").
    pub transport: &'static str,
}

fn draw(d: &Dist, rng: &mut Rng) -> f64 {
    match *d {
        Dist::Const(v) => v,
        Dist::Bivalued { a, b, p } => {
            if rng.random::<f64>() < p {
                a
            } else {
                b
            }
        }
        Dist::Exp { mean } => Exp::new(1.0 / mean).expect("validated mean").sample(rng),
    }
}

/// A size draw, whole bytes, at least 1.
pub fn draw_size(d: &Dist, rng: &mut Rng) -> u64 {
    (draw(d, rng).round() as u64).max(1)
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mark {
    Control,
    Data,
    Request,
    Response,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Act {
    Delay,
    Write(u64, Mark),
    Read(u64, Mark),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Stage {
    Pre,
    Unit(u64, u8),
    Post,
    Done,
}

/// One run of one member on one connection, step by step.
#[derive(Clone, Debug)]
struct Cursor {
    op: Op,
    stage: Stage,
    /// The current unit's sizes (request/data, response).
    sizes: (u64, u64),
    /// No data written yet in this run (the window restarts at the first write).
    fresh: bool,
    rec: usize,
}

/// What one end recorded of one run.
#[derive(Clone, Debug, Default)]
pub struct RunRec {
    pub stmt: u32,
    pub member: u16,
    pub first_write: Option<SimTime>,
    pub last_read: Option<SimTime>,
    pub bytes: u64,
    pub units: u64,
    pub trans_ms: Vec<f64>,
    trans_start: SimTime,
}

/// One transport connection of the bundle (socket k), at one end.
#[derive(Clone, Debug)]
pub struct Conn {
    shared: Rng,
    cur: Option<Cursor>,
    act: Option<Act>,
    pending: u64,
    wake: Option<SimTime>,
    read_total: u64,
    read_target: u64,
    /// Bytes the application wrote (accepted by the socket).
    pub written: u64,
    /// Since when nothing is unacknowledged (None: data outstanding).
    idle_since: Option<SimTime>,
    /// Responder: the next (statement, statement run, member run) of its plan.
    pos: (usize, u32, u32),
    /// Initiator: member runs done in the current statement run.
    runs_done: u32,
    pub recs: Vec<RunRec>,
}

/// The workload application at one end of a VC.
#[derive(Clone, Debug)]
pub struct WorkloadApp {
    pub role: Role,
    pub script: Arc<Script>,
    pub p: WorkloadParams,
    pub conns: Vec<Conn>,
    /// Initiator: the current statement and its run.
    stmt: usize,
    run: u32,
    started: bool,
    /// Initiator: when the last statement ended.
    pub done_at: Option<SimTime>,
    /// A call that took [`ACTS_PER_CALL`] actions stopped there and goes on at this time (the
    /// same instant: the application's timer).
    resume: Option<SimTime>,
}

/// The most actions (writes, reads, delays) one call of the runner takes: a script of many
/// small units through a socket that takes every write at once (an ideal host's: unlimited
/// buffers) would write them all in one event (`1 bulk_get 1000*4294967295;`: 4 billion
/// writes, minutes of computing in which the run could not be interrupted). Past this many the
/// call stops and the runner is called again at the same instant by its timer, so no event
/// takes more than a few milliseconds; the writes and their order are the same. No script of
/// the repository comes near it (the largest writes 100,000 units at once).
pub const ACTS_PER_CALL: u32 = 1 << 17;

impl WorkloadApp {
    /// One end; socket k is connection k, `shared[k]` its size stream (the same seed at both
    /// ends).
    pub fn new(role: Role, script: Arc<Script>, p: WorkloadParams, shared: Vec<Rng>) -> Self {
        let conns = shared
            .into_iter()
            .map(|shared| Conn {
                shared,
                cur: None,
                act: None,
                pending: 0,
                wake: None,
                read_total: 0,
                read_target: 0,
                written: 0,
                idle_since: Some(p.start),
                pos: (0, 0, 0),
                runs_done: 0,
                recs: Vec::new(),
            })
            .collect();
        WorkloadApp {
            role,
            script,
            p,
            conns,
            stmt: 0,
            run: 0,
            started: false,
            done_at: None,
            resume: None,
        }
    }

    /// The earliest time the application needs a call (the host adds its sockets').
    fn own_timer(&self) -> Option<SimTime> {
        let mut t = (!self.started).then_some(self.p.start).or(self.resume);
        for c in &self.conns {
            t = match (t, c.wake) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        t
    }

    /// The initiator begins statement run (self.stmt, self.run) on every member's connection.
    fn begin_statement_run(&mut self) {
        if self.stmt >= self.script.statements.len() {
            return;
        }
        let st = &self.script.statements[self.stmt];
        let members = st.members();
        for (k, (_, op)) in members.iter().enumerate() {
            if let Some(c) = self.conns.get_mut(k) {
                c.runs_done = 0;
                start_run(c, *op, self.stmt as u32, k as u16);
            }
        }
    }

    /// Responder: load the next run of connection k's plan.
    fn responder_next(&mut self, k: usize) -> bool {
        let script = self.script.clone();
        let c = &mut self.conns[k];
        loop {
            let (s, r, j) = c.pos;
            let Some(st) = script.statements.get(s) else {
                return false;
            };
            let members = st.members();
            if r >= st.runs {
                c.pos = (s + 1, 0, 0);
                continue;
            }
            let Some(&(runs, op)) = members.get(k) else {
                c.pos = (s + 1, 0, 0);
                continue;
            };
            if j >= runs {
                c.pos = (s, r + 1, 0);
                continue;
            }
            c.pos = (s, r, j + 1);
            start_run(c, op, s as u32, k as u16);
            return true;
        }
    }

    /// Run every connection as far as it can go now.
    fn pump(&mut self, io: &mut impl Io) {
        let now = io.now();
        if now < self.p.start {
            return;
        }
        if !self.started {
            self.started = true;
            if self.role == Role::Initiator {
                self.begin_statement_run();
            }
        }
        self.resume = None;
        let mut acts = ACTS_PER_CALL;
        loop {
            let mut progress = false;
            for k in 0..self.conns.len() {
                let role = self.role;
                let p = self.p;
                progress |= step(&mut self.conns[k], k as u16, role, &p, io, &mut acts);
                if self.role == Role::Responder && self.conns[k].cur.is_none() {
                    progress |= self.responder_next(k);
                }
            }
            if self.role == Role::Initiator {
                // a member whose run ended is picked up by the barrier
                if self.conns.iter().any(|c| c.cur.is_none()) {
                    progress |= self.barrier_once(now);
                }
            }
            if acts == 0 {
                // the rest at the same instant, in a call of its own (`ACTS_PER_CALL`)
                self.resume = Some(now);
                break;
            }
            if !progress {
                break;
            }
        }
        for (k, c) in self.conns.iter_mut().enumerate() {
            if io.send_buffered(k as u16) == 0 {
                c.idle_since.get_or_insert(now);
            } else {
                c.idle_since = None;
            }
        }
    }

    /// The barrier, counting each ended run once.
    fn barrier_once(&mut self, now: SimTime) -> bool {
        if self.stmt >= self.script.statements.len() {
            return false;
        }
        let st = self.script.statements[self.stmt].clone();
        let members = st.members();
        let mut progress = false;
        let mut all = true;
        for (k, (runs, op)) in members.iter().enumerate() {
            let Some(c) = self.conns.get_mut(k) else {
                continue;
            };
            if c.cur.is_none() && c.runs_done < *runs {
                c.runs_done += 1;
                if c.runs_done < *runs {
                    start_run(c, *op, self.stmt as u32, k as u16);
                    progress = true;
                }
            }
            if c.cur.is_some() || c.runs_done < *runs {
                all = false;
            }
        }
        if all {
            self.run += 1;
            if self.run >= st.runs {
                self.run = 0;
                self.stmt += 1;
            }
            if self.stmt >= self.script.statements.len() {
                self.done_at = Some(now);
            } else {
                self.begin_statement_run();
            }
            progress = true;
        }
        progress
    }
}

/// Start a run of `op` on connection `c` (both roles).
fn start_run(c: &mut Conn, op: Op, stmt: u32, member: u16) {
    crate::budget::vec_push(&c.recs, "a workload script's records of its runs");
    c.recs.push(RunRec {
        stmt,
        member,
        ..Default::default()
    });
    c.cur = Some(Cursor {
        op,
        stage: Stage::Pre,
        sizes: (0, 0),
        fresh: true,
        rec: c.recs.len() - 1,
    });
}

/// The steps of one unit: (role, op) -> actions, sizes filled in.
fn unit_acts(role: Role, op: &Op, sizes: (u64, u64)) -> [Option<Act>; 3] {
    use Act::*;
    use Mark::*;
    let delay = op.interarrival.map(|_| Delay);
    let (q, r) = sizes;
    match (role, &op.kind) {
        (Role::Initiator, OpKind::BulkGet) => [Some(Read(q, Data)), None, None],
        (Role::Initiator, OpKind::BulkPut) => [delay, Some(Write(q, Data)), None],
        (Role::Initiator, OpKind::Rr { .. }) => {
            [delay, Some(Write(q, Request)), Some(Read(r, Response))]
        }
        (Role::Responder, OpKind::BulkGet) => [delay, Some(Write(q, Data)), None],
        (Role::Responder, OpKind::BulkPut) => [Some(Read(q, Data)), None, None],
        (Role::Responder, OpKind::Rr { .. }) => {
            [Some(Read(q, Request)), Some(Write(r, Response)), None]
        }
    }
}

fn pre_post(role: Role, kind: &OpKind, ctrl: u64, pre: bool) -> Option<Act> {
    use Act::*;
    match (role, kind, pre) {
        (Role::Initiator, OpKind::BulkGet, true) => Some(Write(ctrl, Mark::Control)),
        (Role::Responder, OpKind::BulkGet, true) => Some(Read(ctrl, Mark::Control)),
        (Role::Initiator, OpKind::BulkPut, false) => Some(Read(ctrl, Mark::Control)),
        (Role::Responder, OpKind::BulkPut, false) => Some(Write(ctrl, Mark::Control)),
        _ => None,
    }
}

/// The cursor's next action (None: the run is over).
fn next_act(cur: &mut Cursor, role: Role, ctrl: u64, shared: &mut Rng) -> Option<Act> {
    loop {
        match cur.stage {
            Stage::Pre => {
                cur.stage = Stage::Unit(0, 0);
                if let Some(a) = pre_post(role, &cur.op.kind, ctrl, true) {
                    return Some(a);
                }
            }
            Stage::Unit(j, i) => {
                if j >= cur.op.count {
                    cur.stage = Stage::Post;
                    continue;
                }
                if i == 0 {
                    // both ends draw the unit's sizes in the same order
                    let q = draw_size(&cur.op.size, shared);
                    let r = match &cur.op.kind {
                        OpKind::Rr { response } => draw_size(response, shared),
                        _ => 0,
                    };
                    cur.sizes = (q, r);
                }
                let acts = unit_acts(role, &cur.op, cur.sizes);
                if (i as usize) < acts.len() {
                    cur.stage = Stage::Unit(j, i + 1);
                    if let Some(a) = acts[i as usize] {
                        return Some(a);
                    }
                } else {
                    cur.stage = Stage::Unit(j + 1, 0);
                }
            }
            Stage::Post => {
                cur.stage = Stage::Done;
                if let Some(a) = pre_post(role, &cur.op.kind, ctrl, false) {
                    return Some(a);
                }
            }
            Stage::Done => return None,
        }
    }
}

/// Move connection `c` on as far as it can go now, taking at most `acts` more actions (counted
/// down); true if anything changed.
fn step(
    c: &mut Conn,
    k: u16,
    role: Role,
    p: &WorkloadParams,
    io: &mut impl Io,
    acts: &mut u32,
) -> bool {
    let now = io.now();
    let mut progress = false;
    // the application reads whatever has arrived
    let avail = io.readable(k);
    if avail > 0 {
        // on a host with a model the read is a system call: 0 until it has been served
        let got = io.read(k, avail);
        c.read_total += got;
        progress |= got > 0;
    }
    if c.pending > 0 {
        let n = io.write(k, c.pending);
        c.pending -= n;
        c.written += n;
        progress |= n > 0;
    }
    loop {
        let Some(cur) = c.cur.as_mut() else {
            return progress;
        };
        match c.act {
            None if *acts == 0 => return progress,
            None => match next_act(cur, role, p.control_bytes, &mut c.shared) {
                None => {
                    c.cur = None;
                    return true;
                }
                Some(a) => {
                    c.act = Some(a);
                    *acts -= 1;
                    progress = true;
                    match a {
                        Act::Delay => {
                            let d = cur.op.interarrival.expect("a delay has a distribution");
                            let t = now + secs_to_ps(draw(&d, io.rng()).max(0.0));
                            c.wake = Some(t);
                        }
                        Act::Write(n, m) => {
                            let fresh = std::mem::replace(&mut cur.fresh, false);
                            // a fresh run's window, or the restart after idle (the transport's
                            // rule, `TcpEnd::restart_window`)
                            let quiet = c.idle_since.map(|t| t.max(io.last_rx(k)));
                            let fresh = fresh && p.restart == Restart::Run;
                            io.restart_window(k, fresh, c.idle_since, quiet);
                            let rec = &mut c.recs[cur.rec];
                            if matches!(m, Mark::Data | Mark::Request) {
                                rec.first_write.get_or_insert(now);
                            }
                            if m == Mark::Request {
                                rec.trans_start = now;
                            }
                            c.pending = n;
                            let w = io.write(k, n);
                            c.pending -= w;
                            c.written += w;
                        }
                        Act::Read(n, _) => c.read_target += n,
                    }
                }
            },
            Some(Act::Delay) => match c.wake {
                Some(t) if t > now => return progress,
                _ => {
                    c.wake = None;
                    c.act = None;
                    progress = true;
                }
            },
            Some(Act::Write(..)) => {
                if c.pending > 0 {
                    return progress;
                }
                c.act = None;
                progress = true;
            }
            Some(Act::Read(n, m)) => {
                if c.read_total < c.read_target {
                    return progress;
                }
                let i = cur.rec;
                let rec = &mut c.recs[i];
                match m {
                    Mark::Data => {
                        rec.last_read = Some(now);
                        rec.bytes += n;
                        rec.units += 1;
                    }
                    Mark::Response => {
                        rec.last_read = Some(now);
                        rec.units += 1;
                        rec.bytes += cur.sizes.0;
                        crate::budget::vec_push(
                            &rec.trans_ms,
                            "a workload script's transaction times",
                        );
                        rec.trans_ms.push(ps_to_secs(now - rec.trans_start) * 1e3);
                    }
                    Mark::Control | Mark::Request => {}
                }
                c.act = None;
                progress = true;
            }
        }
    }
}

impl Application for WorkloadApp {
    fn sock_start(&mut self, io: &mut impl Io) {
        self.pump(io);
    }
    fn sock_timer(&mut self, io: &mut impl Io) {
        self.pump(io);
    }
    fn sock_event(&mut self, io: &mut impl Io, _k: u16) {
        self.pump(io);
    }
    fn next_timer(&self) -> Option<SimTime> {
        self.own_timer()
    }
    fn reads(&self) -> bool {
        true
    }
    fn transport_section(&self) -> bool {
        false
    }
    fn sections(&self, peer: Option<&AnyApp>, socks: &SocketFacts) -> AppSections {
        let peer = match peer {
            Some(AnyApp::Workload(w)) if w.role == Role::Responder => Some(&**w),
            _ => None,
        };
        let lost = socks.stream_bytes_lost;
        AppSections {
            workload: (self.role == Role::Initiator).then(|| workload_summary(self, peer, lost)),
            ..Default::default()
        }
    }
}

fn op_name(k: &OpKind) -> &'static str {
    match k {
        OpKind::BulkGet => "bulk_get",
        OpKind::BulkPut => "bulk_put",
        OpKind::Rr { .. } => "rr",
    }
}

/// The workload's bytes from the start, both ways, every connection: written by one end's
/// application (taken by its socket), read by the other's, lost by the transports (`lost`:
/// only XTPX without error control loses any), and the rest, on its way.
fn workload_bytes(init: &WorkloadApp, resp: Option<&WorkloadApp>, lost: u64) -> [u64; 4] {
    let ends = || std::iter::once(init).chain(resp).flat_map(|w| &w.conns);
    let sent: u64 = ends().map(|c| c.written).sum();
    let received: u64 = ends().map(|c| c.read_total).sum();
    let in_network = sent
        .checked_sub(received)
        .and_then(|r| r.checked_sub(lost))
        .unwrap_or_else(|| panic!("workload bytes: {received} read + {lost} lost > {sent} sent"));
    [sent, received, in_network, lost]
}

/// The workload's results from both ends' records (the responder may be absent); `lost`: the
/// bytes its transports will never deliver.
pub fn workload_summary(
    init: &WorkloadApp,
    resp: Option<&WorkloadApp>,
    lost: u64,
) -> WorkloadSummary {
    let s = |t: SimTime| ps_to_secs(t);
    let mut statements: Vec<StatementSummary> = init
        .script
        .statements
        .iter()
        .map(|st| StatementSummary {
            line: st.pos.line,
            text: st.to_string(),
            runs: st.runs,
            members: st
                .members()
                .iter()
                .enumerate()
                .map(|(k, (_, op))| MemberSummary {
                    connection: k as u16,
                    op: op_name(&op.kind),
                    runs: Vec::new(),
                    throughput_kbps: None,
                    transaction_ms: None,
                })
                .collect(),
        })
        .collect();
    for (k, c) in init.conns.iter().enumerate() {
        let other = resp.and_then(|r| r.conns.get(k));
        for (n, a) in c.recs.iter().enumerate() {
            let b = other.and_then(|o| o.recs.get(n));
            let first = [a.first_write, b.and_then(|b| b.first_write)]
                .into_iter()
                .flatten()
                .min();
            let last = match &statements[a.stmt as usize].members[a.member as usize].op {
                &"rr" => a.last_read,
                _ => [a.last_read, b.and_then(|b| b.last_read)]
                    .into_iter()
                    .flatten()
                    .max(),
            };
            let (bytes, units) = match b {
                Some(b) if b.units > a.units => (b.bytes, b.units),
                _ => (a.bytes, a.units),
            };
            let m = &mut statements[a.stmt as usize].members[a.member as usize];
            let want = init.script.statements[a.stmt as usize].members()[k].1.count;
            let finished = units == want;
            let start = first.unwrap_or(0);
            let end = last.filter(|_| finished);
            m.runs.push(RunSummary {
                start_s: s(start),
                end_s: end.map(s),
                bytes,
                units,
                throughput_kbps: end
                    .filter(|&e| e > start)
                    .map(|e| bytes as f64 / s(e - start) / 1e3),
                transaction_ms: Stats::of(&a.trans_ms),
            });
        }
    }
    for st in &mut statements {
        for m in &mut st.members {
            let tp: Vec<f64> = m.runs.iter().filter_map(|r| r.throughput_kbps).collect();
            m.throughput_kbps = Stats::of(&tp);
            let tr: Vec<f64> = m
                .runs
                .iter()
                .filter(|r| r.end_s.is_some())
                .filter_map(|r| r.transaction_ms.map(|t| t.mean))
                .collect();
            m.transaction_ms = Stats::of(&tr);
        }
    }
    let [bytes_sent, bytes_received, bytes_in_network, bytes_lost] =
        workload_bytes(init, resp, lost);
    WorkloadSummary {
        transport: init.p.transport,
        bytes_sent,
        bytes_received,
        bytes_in_network,
        bytes_lost,
        statements,
        complete: init.done_at.is_some(),
        end_s: init.done_at.map(s),
    }
}
