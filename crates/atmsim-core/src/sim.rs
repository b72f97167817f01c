//! The network and its run loop: nodes, output ports with their links, flows, endpoints.
//!
//! A duplex link is two directed channels; each has an output port at its tail node holding a
//! queue per service category (strict priority, CBR first by default; ITU-T I.371 / TM 4.0
//! service categories, seed 003 "per-QoS buffers, priority scheduling") and a FIFO of the cells
//! in flight with their delivery times. A port transmits at its line rate with exact departure
//! times ([`Pacer`]); a cell is delivered after transmission + propagation (5 us/km) + the
//! receiving switch's fabric delay. Cells are store-and-forward at cell granularity, and a port
//! starts a cell as soon as its line is free (unslotted).
//!
//! Queue length means cells waiting in the buffer, not counting the one being transmitted;
//! buffer limits apply to waiting cells.

use crate::abr::{
    AbrDest, AbrParams, AbrSource, Erica, Feed, PortScheme, TcpFeed, Thresholds, RM_DIR,
};
use crate::engine::{Event, EventQueue};
use crate::metrics::*;
use crate::policing::{
    BlockCounter, CacPolicy, CellOutcome, Contract, GcraForm, PortCac, Reservation, ScrStream, Upc,
    UpcAction, UpcOutcome,
};
use crate::scenario::{
    AbrSchemeSpec, AbrSpec, CacPolicySpec, CallSpec, Category, CcrSource, ClrFlowSpec,
    ConnectionSpec, ContractSpec, DiscardSpec, EricaVariant, GcraFormSpec, HoldingSpec, NodeKind,
    Scenario, SchemeKind, SourceKind, SourceSpec, UpcActionSpec,
};
use crate::tcp::{TcpReceiver, TcpSender};
use crate::time::*;
use crate::traffic::{stream, AnySource, Application, Asks, Cbr, Ctx, OnOff, Rng};
use crate::video::Multiplex;
use crate::wire::{
    aal5_cells, Cell, FrameEvent, Reassembler, CELL_PAYLOAD, H_CLP, H_EOF, H_ERR, H_MIS,
};
use rand::RngExt;
use rand_distr::{Distribution, Exp};
use std::collections::{BTreeMap, VecDeque};

const NONE: u32 = u32::MAX;

/// A node.
#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    pub fabric_ps: SimDuration,
    /// Call set-up processing per message (SETUP, CONNECT).
    pub setup_ps: SimDuration,
}

/// An output port and the directed channel it feeds.
pub struct Port {
    pub name: String,
    pub node: u32,
    pub to: u32,
    pub rate_bps: u64,
    pacer: Pacer,
    busy_until: SimTime,
    tx_pending: bool,
    queues: [VecDeque<Cell>; 5],
    order: [u8; 5],
    qlen: u32,
    class_len: [u32; 5],
    limit: u32,
    class_limit: [u32; 5],
    /// Selective discard: CLP = 1 cells are refused while the queue holds this many.
    clp1_threshold: u32,
    /// Frame-aware discard (EPD / PPD) for AAL5 flows, with per-VC state at this port.
    frames: Option<Box<FrameDiscard>>,
    /// Per-category bandwidth limits and the WRR scheduler, where configured.
    sched: Option<Box<ClassSched>>,
    /// Connection admission control, and the most bandwidth it has allocated (bit/s).
    cac: Option<PortCac>,
    cac_max_bps: u64,
    /// What the permanent connections hold of the CAC capacity (bit/s).
    cac_permanent_bps: u64,
    group: u32,
    pipe: VecDeque<(SimTime, Cell)>,
    /// Propagation + fabric delay of the receiving node.
    delay_ps: SimDuration,
    arrive_pending: bool,
    /// ABR feedback scheme of this port.
    pub scheme: PortScheme,
    /// The link's impairment model, if any.
    impair: Option<Box<Impairment>>,
    /// Cells of categories above ABR sent (CBR, VBR), and the count when the current ERICA
    /// interval began.
    hp_tx: u64,
    hp_mark: u64,
    pub stats: PortStats,
}

impl Port {
    /// Cells waiting in the buffer.
    pub fn queue_len(&self) -> u32 {
        self.qlen
    }
}

/// Per-cell link impairments (scenario `links[].impairment`), with the port's own random stream.
pub struct Impairment {
    loss: f64,
    error: f64,
    misinsertion: f64,
    extra_ps: SimDuration,
    variation_ps: f64,
    /// Delivery time of the last cell: later cells never overtake it.
    last_at: SimTime,
    /// Flows crossing this port, as (flow, index of this port on the flow's route).
    crossing: Vec<(u32, u8)>,
    rng: Rng,
    /// Scripted losses: cell numbers (from 1, increasing) and the cells counted so far.
    scripted: Vec<u64>,
    counted: u64,
}

/// Frame-aware discard at a port (seed 002; A. Romanow and S. Floyd, "Dynamics of TCP traffic
/// over ATM networks", IEEE JSAC 13(4), 1995). EPD refuses a whole new frame when the queue is at
/// or above the threshold on its first cell; PPD, once a cell of a frame is lost, drops the rest
/// of the frame but its last cell, which still delimits the frame for the receiver.
pub struct FrameDiscard {
    epd_threshold: u32,
    ppd: bool,
    /// Per flow: 0 = between frames, 1 = inside an admitted frame, 2 = EPD dropping the frame,
    /// 3 = PPD dropping the frame's rest.
    vcs: Vec<u8>,
}

const FD_IDLE: u8 = 0;
const FD_IN_FRAME: u8 = 1;
const FD_EPD: u8 = 2;
const FD_PPD: u8 = 3;

/// Which category a port serves next when it is not plain strict priority (seed 003: per-QoS
/// buffers with a maximum allocated and a minimum guaranteed bandwidth; weighted round robin).
///
/// A category with a minimum rate is served first, in priority order, while it is below that
/// rate (its virtual time `min_tat` has passed); a category with a maximum rate is not served
/// before `max_tat` (the port idles if nothing else may go). The rest is strict priority or WRR.
pub struct ClassSched {
    order: [u8; 5],
    wrr: bool,
    weights: [u32; 5],
    quota: [u32; 5],
    cursor: usize,
    min_t: [SimDuration; 5],
    min_tat: [SimTime; 5],
    max_t: [SimDuration; 5],
    max_tat: [SimTime; 5],
}

impl ClassSched {
    fn from_spec(n: &crate::scenario::NodeSpec, order: [u8; 5]) -> Option<Box<ClassSched>> {
        let wrr = n.scheduler == Some(crate::scenario::SchedulerSpec::Wrr);
        if !wrr && n.class_min_mbps.is_none() && n.class_max_mbps.is_none() {
            return None;
        }
        let interval = |r: &Option<crate::scenario::PerClass<f64>>| {
            let mut t = [0; 5];
            if let Some(r) = r {
                for (c, v) in r.entries() {
                    t[c as usize] = v.map(|v| CELL_BIT_PS.div_ceil(mbps_to_bps(v))).unwrap_or(0);
                }
            }
            t
        };
        let mut weights = [1; 5];
        if let Some(w) = &n.class_weights {
            for (c, v) in w.entries() {
                weights[c as usize] = v.unwrap_or(1) as u32;
            }
        }
        Some(Box::new(ClassSched {
            order,
            wrr,
            weights,
            quota: weights,
            cursor: 0,
            min_t: interval(&n.class_min_mbps),
            min_tat: [0; 5],
            max_t: interval(&n.class_max_mbps),
            max_tat: [0; 5],
        }))
    }

    #[inline]
    fn allowed(&self, c: usize, now: SimTime) -> bool {
        self.max_t[c] == 0 || now >= self.max_tat[c]
    }

    /// Account for one cell of category `c` sent now. The virtual times may lag `now` by one
    /// interval (a GCRA with a tolerance of one cell at that rate), so a category served only at
    /// the port's cell slots still averages its exact rate.
    fn served(&mut self, c: usize, now: SimTime) {
        if self.min_t[c] > 0 {
            self.min_tat[c] =
                self.min_tat[c].max(now.saturating_sub(self.min_t[c])) + self.min_t[c];
        }
        if self.max_t[c] > 0 {
            self.max_tat[c] =
                self.max_tat[c].max(now.saturating_sub(self.max_t[c])) + self.max_t[c];
        }
    }

    /// The category to serve now, or the earliest time one may be served.
    fn pick(&mut self, nonempty: [bool; 5], now: SimTime) -> Result<usize, SimTime> {
        let ok = |s: &Self, c: usize| nonempty[c] && s.allowed(c, now);
        if let Some(&c) = self.order.iter().find(|&&c| {
            ok(self, c as usize) && self.min_t[c as usize] > 0 && now >= self.min_tat[c as usize]
        }) {
            return Ok(c as usize);
        }
        if self.wrr {
            for _ in 0..2 {
                for k in 0..5 {
                    let i = (self.cursor + k) % 5;
                    let c = self.order[i] as usize;
                    if ok(self, c) && self.quota[c] > 0 {
                        self.quota[c] -= 1;
                        self.cursor = if self.quota[c] == 0 { (i + 1) % 5 } else { i };
                        return Ok(c);
                    }
                }
                self.quota = self.weights; // a new round
            }
        } else if let Some(&c) = self.order.iter().find(|&&c| ok(self, c as usize)) {
            return Ok(c as usize);
        }
        Err((0..5)
            .filter(|&c| nonempty[c])
            .map(|c| self.max_tat[c])
            .min()
            .unwrap_or(now))
    }
}

/// A source shaper (I.371 traffic shaping): cells wait in a FIFO until they conform to the
/// contract's GCRA(s) in virtual-scheduling form, so a shaped stream always passes UPC.
pub struct Shaper {
    pcr: crate::policing::VirtualScheduling,
    scr: Option<crate::policing::VirtualScheduling>,
    queue: VecDeque<Cell>,
    pending: bool,
    /// Most cells waiting at once.
    pub max_queue: usize,
}

impl Shaper {
    fn new(c: &Contract) -> Self {
        use crate::policing::{increment_ps, VirtualScheduling};
        Shaper {
            pcr: VirtualScheduling::new(increment_ps(c.pcr_mbps), c.cdvt_ps),
            scr: c
                .scr_mbps
                .map(|s| VirtualScheduling::new(increment_ps(s), c.bt_ps())),
            queue: VecDeque::new(),
            pending: false,
            max_queue: 0,
        }
    }

    /// The earliest time a cell conforms to every bucket.
    fn earliest(&self) -> SimTime {
        let p = self.pcr.tat().saturating_sub(self.pcr.limit_ps());
        self.scr
            .as_ref()
            .map_or(p, |s| p.max(s.tat().saturating_sub(s.limit_ps())))
    }

    fn take(&mut self, t: SimTime) {
        self.pcr.update(t);
        if let Some(s) = &mut self.scr {
            s.update(t);
        }
    }
}

/// The cells a bundle of connections sent (seed 001 section 6.2's throughput monitoring): counts
/// per window, and every cell's emission time for fitting the burst parameters (8 bytes per
/// monitored cell, only for connections with `propose_contract`).
pub struct Monitor {
    /// Bundle name (the connection's own name when it is not bundled).
    name: String,
    /// Connections measured together.
    members: Vec<String>,
    window_ps: SimDuration,
    window_end: SimTime,
    count: u32,
    counts: Vec<u32>,
    times: Vec<SimTime>,
    margin: f64,
    tolerance: f64,
}

impl Monitor {
    #[inline]
    fn record(&mut self, now: SimTime) {
        while now >= self.window_end {
            self.counts.push(self.count);
            self.count = 0;
            self.window_end += self.window_ps;
        }
        self.count += 1;
        self.times.push(now);
    }

    /// PCR: the largest window rate; SCR: the mean rate x (1 + margin); CDVT and MBS: the
    /// smallest with which a dual GCRA of that PCR and SCR would have found at most a share
    /// `tolerance` of the recorded cells non-conforming ([`crate::policing::fit_bursts`]). Every
    /// window complete by `end` counts, also the silent ones after the last cell.
    fn propose(&self, end: SimTime) -> Option<ProposedContract> {
        let mut counts = self.counts.clone();
        let mut window_end = self.window_end;
        let mut count = self.count;
        while window_end <= end {
            counts.push(count);
            count = 0;
            window_end += self.window_ps;
        }
        let n = counts.len();
        if n == 0 {
            return None;
        }
        let w_s = ps_to_secs(self.window_ps);
        let to_mbps = |cells: f64| cells * CELL_BITS as f64 / w_s / 1e6;
        let peak = *counts.iter().max().expect("n > 0") as f64;
        let mean = counts.iter().map(|&c| c as f64).sum::<f64>() / n as f64;
        let drain = mean * (1.0 + self.margin);
        let (mut level, mut most) = (0.0f64, 0.0f64);
        for &c in &counts {
            level = (level + c as f64 - drain).max(0.0);
            most = most.max(level);
        }
        let (pcr_mbps, scr_mbps) = (to_mbps(peak), to_mbps(drain).min(to_mbps(peak)));
        if pcr_mbps <= 0.0 {
            return None;
        }
        let fit = crate::policing::fit_bursts(&self.times, pcr_mbps, scr_mbps, self.tolerance)?;
        Some(ProposedContract {
            bundle: self.name.clone(),
            connections: self.members.clone(),
            pcr_mbps,
            cdvt_us: fit.cdvt_ps as f64 / 1e6,
            scr_mbps,
            mbs_cells: fit.mbs_cells as u64,
            fluid_backlog_cells: most.ceil() as u64,
            tolerance: self.tolerance,
            cells: self.times.len() as u64,
            nonconforming_share: fit.nonconforming as f64 / self.times.len() as f64,
            window_s: w_s,
            windows: n as u64,
        })
    }
}

/// A class of switched calls (scenario `calls[]`).
pub struct CallClass {
    pub name: String,
    contract: Contract,
    source: SourceSpec,
    first_link_mbps: f64,
    rate_per_s: f64,
    holding_mean_s: f64,
    exponential: bool,
    stop: SimTime,
    /// Switch ports on the route that run CAC.
    ports: Vec<u32>,
    /// Prepared (flow, endpoint) pairs, their reservations while a call holds them.
    slots: Vec<(u32, u32, Vec<Reservation>)>,
    /// Per slot, the call being set up or held: (arrival time, holding time s).
    calls: Vec<(SimTime, f64)>,
    /// Sum of the set-up delays (arrival to CONNECT) of the calls connected after warm-up.
    setup_sum_ps: u128,
    connected: u64,
    free: Vec<u32>,
    rng: Rng,
    offered: u64,
    admitted: u64,
    blocked: u64,
    no_slot: u64,
    /// Calls offered and blocked (CAC or no slot) per batch of the measurement window, by
    /// arrival time, for the batch-means confidence interval.
    batch_offered: [u64; CALL_BATCHES],
    batch_blocked: [u64; CALL_BATCHES],
    active: u32,
    max_active: u32,
}

/// The policing-level contract of a contract spec.
fn contract_of(k: &ContractSpec) -> Contract {
    match (k.scr_mbps, k.mbs_cells) {
        (Some(scr), Some(mbs)) => Contract::vbr(k.pcr_mbps, us_to_ps(k.cdvt_us), scr, mbs as u32),
        _ => Contract::cbr(k.pcr_mbps, us_to_ps(k.cdvt_us)),
    }
}

/// A buffer shared by several ports of one node.
#[derive(Clone, Debug)]
pub struct Group {
    pub limit: u32,
    pub used: u32,
}

/// A connection's requested QoS (seed 001 section 4.2): max CTD and peak-to-peak CDV in ps, CLR,
/// and whether the CLR objective is on the CLP=0 flow (else CLP=0+1).
#[derive(Clone, Copy)]
struct QosObjectives {
    max_ctd: Option<u64>,
    cdv: Option<u64>,
    clr: Option<f64>,
    clr_clp0: bool,
}

/// One direction of a connection.
pub struct Flow {
    pub name: String,
    pub category: Category,
    pub route: Vec<String>,
    /// Output ports along the route, the sending host's first.
    pub ports: Vec<u32>,
    frame_cells: u32,
    frame_len: u16,
    /// Cells travel in AAL5 frames (of fixed size `frame_len`, or of any size for transports).
    framed: bool,
    tx_seq: u32,
    tx_in_frame: u32,
    reasm: Reassembler,
    /// The endpoint at the receiving host that sees this flow's cells (the application sending
    /// on the reverse direction, e.g. an ABR destination or a TCP receiver), or NONE.
    rx_endpoint: u32,
    /// The opposite direction of the same connection (NONE if one-way).
    pair: u32,
    /// True for the direction that carries an ABR connection's backward RM cells.
    backward: bool,
    /// ABR segments ending at a VS/VD switch: the virtual source that takes this flow's data
    /// cells on, and its flow (the next segment); NONE otherwise.
    vs_endpoint: u32,
    vs_next: u32,
    /// Usage parameter control at the first switch.
    upc: Option<Box<Upc>>,
    /// Requested QoS.
    qos: Option<QosObjectives>,
    /// Receiver-side sequence tracking for SECBR, and the block counter.
    rx_next: Option<u32>,
    blocks: BlockCounter,
    /// Traffic shaping at the source (`source.shape`).
    shaper: Option<Box<Shaper>>,
    /// Throughput monitor (index into the simulation's monitors) of the adaptive contract
    /// scheme (`propose_contract`), shared by the connections of a bundle.
    monitor: Option<u32>,
    /// UPC counts at the end of warm-up (the summary reports the difference).
    upc_mark: Option<crate::policing::UpcCounts>,
    /// The least possible transfer delay on the route (cell times, propagation, fabric): the
    /// CTD histogram records the delay above it, so its 1/64 precision applies to the variation.
    base_ps: SimDuration,
    pub stats: FlowStats,
}

/// An application attached to the sending end of a flow.
pub struct Endpoint {
    pub flow: u32,
    pub app: AnySource,
    rng: Rng,
    timer_at: Option<SimTime>,
    /// ABR sources: the ACR integral at the end of warm-up.
    acr_mark: f64,
    /// TCP: the sender's counters, the receiver's in-order bytes at the end of warm-up.
    tcp_mark: Option<Box<(crate::tcp::TcpStats, u64)>>,
}

fn tcp_sender(app: &AnySource) -> Option<&TcpSender> {
    match app {
        AnySource::Tcp(t) => Some(t),
        AnySource::Abr(a) => a.tcp(),
        _ => None,
    }
}

fn tcp_receiver(app: &AnySource) -> Option<&TcpReceiver> {
    match app {
        AnySource::TcpSink(r) => Some(r),
        AnySource::AbrDest(d) => d.tcp.as_deref(),
        _ => None,
    }
}

/// A built network, ready to run.
pub struct Simulation {
    now: SimTime,
    end: SimTime,
    warmup: SimTime,
    sample_ps: SimDuration,
    samples_taken: u64,
    seed: u64,
    queue: EventQueue,
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    pub groups: Vec<Group>,
    pub flows: Vec<Flow>,
    pub endpoints: Vec<Endpoint>,
    pub calls: Vec<CallClass>,
    monitors: Vec<Monitor>,
    events: u64,
    cell_hops: u64,
    finished: bool,
    series: Series,
}

fn source_app(s: &SourceSpec, first_link_mbps: f64) -> AnySource {
    let start = secs_to_ps(s.start_s);
    let stop = s.stop_s.map(secs_to_ps).unwrap_or(SimTime::MAX);
    match s.kind {
        SourceKind::None => AnySource::Idle,
        SourceKind::Tcp => AnySource::Tcp(Box::new(TcpSender::new(tcp_params(s)))),
        SourceKind::Mpeg2 => AnySource::Video(Box::new(
            Multiplex::new(&s.video_params(), s.sources.unwrap_or(1) as usize)
                .expect("validated video parameters"),
        )),
        SourceKind::Cbr => AnySource::Cbr(Cbr::new(s.rate_mbps.unwrap_or(0.0), start, stop)),
        SourceKind::Persistent => AnySource::Cbr(Cbr::new(
            s.peak_mbps.unwrap_or(first_link_mbps),
            start,
            stop,
        )),
        SourceKind::Onoff => AnySource::OnOff(OnOff::new(
            s.peak_mbps.unwrap_or(0.0),
            s.duty_cycle.unwrap_or(1.0),
            s.period_s.unwrap_or(1.0),
            s.exponential.unwrap_or(false),
            start,
            stop,
        )),
    }
}

fn tcp_params(s: &SourceSpec) -> crate::tcp::TcpParams {
    s.tcp.clone().unwrap_or_default().params(s.start_s)
}

fn upc_of(c: &ConnectionSpec) -> Option<Box<Upc>> {
    let (k, u) = (c.contract.as_ref()?, c.upc.as_ref()?);
    let contract = contract_of(k);
    let action = |a: Option<UpcActionSpec>, d| match a.unwrap_or(d) {
        UpcActionSpec::Discard => UpcAction::Discard,
        UpcActionSpec::Tag => UpcAction::Tag,
    };
    let form = match u.form {
        Some(GcraFormSpec::LeakyBucket) => GcraForm::LeakyBucket,
        _ => GcraForm::VirtualScheduling,
    };
    let stream = if u.scr_clp0_only.unwrap_or(true) {
        ScrStream::Clp0
    } else {
        ScrStream::Clp0Plus1
    };
    Some(Box::new(Upc::from_contract(
        &contract,
        form,
        action(u.pcr_action, UpcActionSpec::Discard),
        action(u.scr_action, UpcActionSpec::Tag),
        stream,
    )))
}

fn abr_params(a: &AbrSpec, first_link_mbps: f64, frtt_ps: u64) -> AbrParams {
    let pcr = a.pcr_mbps.unwrap_or(first_link_mbps);
    let nrm = a.nrm.unwrap_or(32) as u32;
    let tbe = a.tbe.unwrap_or(16_777_215) as f64;
    let frtt_s = a.frtt_us.map(|u| u * 1e-6).unwrap_or(ps_to_secs(frtt_ps));
    let mut icr = a.icr_mbps.unwrap_or(pcr);
    if frtt_s > 0.0 {
        icr = icr.min(tbe * CELL_BITS as f64 / frtt_s / 1e6); // at setup: ICR <- min(ICR, TBE/FRTT)
    }
    let mcr = a.mcr_mbps.unwrap_or(0.0);
    AbrParams {
        pcr,
        mcr,
        icr: icr.max(mcr),
        rif: a.rif.unwrap_or(1.0 / 16.0),
        rdf: a.rdf.unwrap_or(1.0 / 16.0),
        nrm,
        mrm: a.mrm.unwrap_or(2) as u32,
        trm: secs_to_ps(a.trm_ms.unwrap_or(100.0) / 1e3),
        cdf: a.cdf.unwrap_or(1.0 / 16.0),
        crm: (tbe / nrm as f64).ceil() as u32,
        adtf: secs_to_ps(a.adtf_s.unwrap_or(0.5)),
    }
}

fn abr_feed(s: &SourceSpec) -> Feed {
    let start = secs_to_ps(s.start_s);
    let stop = s.stop_s.map(secs_to_ps).unwrap_or(SimTime::MAX);
    match source_app(s, 0.0) {
        AnySource::Cbr(c) if s.kind == SourceKind::Cbr => Feed::Cbr(c),
        AnySource::OnOff(o) => Feed::OnOff(o),
        AnySource::Video(v) => Feed::Video(v),
        AnySource::Tcp(t) => Feed::Tcp(Box::new(TcpFeed {
            tcp: *t,
            queue: Default::default(),
        })),
        // no traffic (kind "none"): a feed that never starts
        AnySource::Idle => Feed::Persistent {
            start: SimTime::MAX,
            stop: SimTime::MAX,
        },
        _ => Feed::Persistent { start, stop },
    }
}

fn port_scheme(spec: Option<&AbrSchemeSpec>) -> PortScheme {
    let Some(a) = spec else {
        return PortScheme::None;
    };
    let th = || Thresholds {
        high: a.high_cells.unwrap_or(0) as u32,
        low: a.low_cells.unwrap_or(0) as u32,
        congested: false,
    };
    match a.scheme {
        SchemeKind::None => PortScheme::None,
        SchemeKind::Efci => PortScheme::Efci(th()),
        SchemeKind::RelativeRate => PortScheme::RelativeRate(th()),
        SchemeKind::Erica | SchemeKind::EricaPlus => PortScheme::Erica(Box::new(Erica {
            plus: a.scheme == SchemeKind::EricaPlus,
            target_utilization: a.target_utilization.unwrap_or(0.9),
            interval: secs_to_ps(a.interval_s.unwrap_or(0.005)),
            interval_cells: a.interval_cells.map(|v| v as u32).unwrap_or(u32::MAX),
            basic: a.variant == Some(EricaVariant::Basic),
            measured_ccr: a.ccr == Some(CcrSource::Measured),
            delta: a.delta.unwrap_or(0.1),
            one_feedback: a.one_feedback_per_interval.unwrap_or(true),
            t0_s: a.t0_us.unwrap_or(500.0) * 1e-6,
            a: a.a.unwrap_or(1.15),
            b: a.b.unwrap_or(1.05),
            qdlf: a.qdlf.unwrap_or(0.5),
            ..Default::default()
        })),
    }
}

/// What building a connection needs to look up: the scenario and the ports built so far.
struct Builder<'a> {
    sc: &'a Scenario,
    ports: &'a [Port],
    link_mbps: &'a BTreeMap<(u32, u32), f64>,
    node_id: &'a BTreeMap<String, u32>,
    port_id: &'a BTreeMap<(u32, u32), u32>,
}

impl Builder<'_> {
    /// A flow along `route` (node names).
    fn flow(
        &self,
        name: String,
        route: &[String],
        category: Category,
        frame: Option<u32>,
        backward: bool,
    ) -> Flow {
        let ids: Vec<u32> = route.iter().map(|n| self.node_id[n]).collect();
        let fports: Vec<u32> = ids
            .windows(2)
            .map(|w| self.port_id[&(w[0], w[1])])
            .collect();
        Flow {
            name,
            category,
            route: route.to_vec(),
            frame_cells: frame.map(aal5_cells).unwrap_or(0),
            framed: frame.is_some(),
            frame_len: frame.unwrap_or(0) as u16,
            tx_seq: 0,
            tx_in_frame: 0,
            reasm: Reassembler::default(),
            rx_endpoint: NONE,
            pair: NONE,
            backward,
            vs_endpoint: NONE,
            vs_next: NONE,
            upc: None,
            qos: None,
            rx_next: None,
            blocks: BlockCounter::new(128, 4),
            upc_mark: None,
            shaper: None,
            monitor: None,
            base_ps: 0,
            stats: FlowStats::new(fports.len()),
            ports: fports,
        }
    }

    /// An endpoint on `flow` with its own random stream named `key`.
    fn endpoint(&self, flow: usize, app: AnySource, key: String) -> Endpoint {
        Endpoint {
            flow: flow as u32,
            app,
            rng: stream(self.sc.run.seed, &key),
            timer_at: None,
            acr_mark: 0.0,
            tcp_mark: None,
        }
    }

    /// The flows (one per direction, per ABR segment) and endpoints of one connection.
    fn connection(&self, c: &ConnectionSpec, flows: &mut Vec<Flow>, endpoints: &mut Vec<Endpoint>) {
        let (sc, ports, link_mbps, node_id) = (self.sc, self.ports, self.link_mbps, self.node_id);
        // an ABR control loop's two flows, paired; their indices and the forward one-way delay
        let abr_pair = |flows: &mut Vec<Flow>, f: Flow, r: Flow| {
            let (fwd, rev) = (flows.len(), flows.len() + 1);
            let one_way: u64 = f.ports.iter().map(|&p| ports[p as usize].delay_ps).sum();
            flows.push(f);
            flows.push(r);
            flows[fwd].pair = rev as u32;
            flows[rev].pair = fwd as u32;
            (fwd, rev, one_way)
        };
        let new_flow = |name, route: &[String], category, frame, backward| {
            self.flow(name, route, category, frame, backward)
        };
        let endpoint = |flow, app, key| self.endpoint(flow, app, key);
        {
            let frame = c.source.frame_bytes.map(|f| f as u32);
            let first_rate =
                |route: &[String]| link_mbps[&(node_id[&route[0]], node_id[&route[1]])];
            let Some(abr) = &c.abr else {
                // a plain connection: the source, and optionally traffic on the reverse direction
                let fwd = flows.len();
                flows.push(new_flow(c.name.clone(), &c.route, c.category, frame, false));
                let src = endpoints.len();
                endpoints.push(endpoint(
                    fwd,
                    source_app(&c.source, first_rate(&c.route)),
                    format!("connections.{}.source", c.name),
                ));
                // TCP: segments one way, ACKs the other, both as AAL5 frames
                let tcp = c.source.kind == SourceKind::Tcp;
                if tcp || c.bidirectional {
                    let route: Vec<String> = c.route.iter().rev().cloned().collect();
                    let rev = flows.len();
                    let rframe = c
                        .reverse_source
                        .as_ref()
                        .and_then(|s| s.frame_bytes)
                        .map(|f| f as u32);
                    flows.push(new_flow(
                        format!("{}.reverse", c.name),
                        &route,
                        c.category,
                        rframe,
                        false,
                    ));
                    flows[fwd].pair = rev as u32;
                    flows[rev].pair = fwd as u32;
                    let rx = if tcp {
                        flows[fwd].framed = true;
                        flows[rev].framed = true;
                        let r = TcpReceiver::new(tcp_params(&c.source));
                        Some((AnySource::TcpSink(Box::new(r)), "tcp_receiver"))
                    } else {
                        c.reverse_source
                            .as_ref()
                            .map(|rs| (source_app(rs, first_rate(&route)), "reverse_source"))
                    };
                    if let Some((app, key)) = rx {
                        // each direction's cells reach the application sending the other way
                        flows[fwd].rx_endpoint = endpoints.len() as u32;
                        flows[rev].rx_endpoint = src as u32;
                        endpoints.push(endpoint(rev, app, format!("connections.{}.{key}", c.name)));
                    }
                }
                return;
            };
            if c.bidirectional {
                // ABR both ways (validated: no VS/VD on the route): each end runs the source of
                // its direction and is the destination of the other's, turning that
                // direction's FRMs around in rate on its own flow (SES rule 3b, DES rules 1-4).
                // Both flows carry backward RM cells of the other loop.
                let back: Vec<String> = c.route.iter().rev().cloned().collect();
                let rs = c.reverse_source.clone().unwrap_or_else(|| SourceSpec {
                    kind: SourceKind::None,
                    ..c.source.clone()
                });
                let rframe = rs.frame_bytes.map(|f| f as u32);
                let (fwd, rev, one_way) = abr_pair(
                    flows,
                    new_flow(c.name.clone(), &c.route, c.category, frame, true),
                    new_flow(
                        format!("{}.reverse", c.name),
                        &back,
                        c.category,
                        rframe,
                        true,
                    ),
                );
                let end = |route: &[String], s: &SourceSpec| {
                    let mut a = AbrSource::new(
                        abr_params(abr, first_rate(route), 2 * one_way),
                        abr_feed(s),
                    );
                    a.turnaround = true;
                    AnySource::Abr(Box::new(a))
                };
                let a_end = endpoints.len();
                endpoints.push(endpoint(
                    fwd,
                    end(&c.route, &c.source),
                    format!("connections.{}.source", c.name),
                ));
                let b_end = endpoints.len();
                endpoints.push(endpoint(
                    rev,
                    end(&back, &rs),
                    format!("connections.{}.reverse_source", c.name),
                ));
                flows[fwd].rx_endpoint = b_end as u32;
                flows[rev].rx_endpoint = a_end as u32;
                return;
            }
            // ABR: one control loop per segment, split at VS/VD switches; each segment has its
            // forward flow (source -> destination) and its backward flow (BRMs)
            let n = c.route.len();
            let mut bounds = vec![0];
            bounds.extend((1..n - 1).filter(|&k| {
                sc.nodes[node_id[&c.route[k]] as usize]
                    .abr
                    .as_ref()
                    .is_some_and(|a| a.vsvd == Some(true))
            }));
            bounds.push(n - 1);
            let mut prev: Option<usize> = None;
            for (i, w) in bounds.windows(2).enumerate() {
                let seg = &c.route[w[0]..=w[1]];
                let name = if i == 0 {
                    c.name.clone()
                } else {
                    format!("{}.seg{i}", c.name)
                };
                let back: Vec<String> = seg.iter().rev().cloned().collect();
                let (fwd, rev, one_way) = abr_pair(
                    flows,
                    new_flow(name.clone(), seg, c.category, frame, false),
                    new_flow(format!("{name}.reverse"), &back, c.category, None, true),
                );
                let params = abr_params(abr, first_rate(seg), 2 * one_way);
                let feed = if i == 0 {
                    abr_feed(&c.source)
                } else {
                    Feed::Relay(VecDeque::new())
                };
                let key = if i == 0 {
                    format!("connections.{}", c.name)
                } else {
                    format!("connections.{}.seg{i}", c.name)
                };
                let src = endpoints.len();
                endpoints.push(endpoint(
                    fwd,
                    AnySource::Abr(Box::new(AbrSource::new(params, feed))),
                    format!("{key}.source"),
                ));
                let dst = endpoints.len();
                let mut des = AbrDest::default();
                if c.source.kind == SourceKind::Tcp && i + 1 == bounds.len() - 1 {
                    des.tcp = Some(Box::new(TcpReceiver::new(tcp_params(&c.source))));
                    flows[fwd].framed = true;
                    flows[rev].framed = true;
                }
                endpoints.push(endpoint(
                    rev,
                    AnySource::AbrDest(des),
                    format!("{key}.abr_destination"),
                ));
                flows[fwd].rx_endpoint = dst as u32;
                flows[rev].rx_endpoint = src as u32;
                if let Some(p) = prev {
                    flows[p].vs_endpoint = src as u32;
                    flows[p].vs_next = fwd as u32;
                }
                prev = Some(fwd);
            }
        }
    }

    /// Prepare a call class: its slots (idle flows named `NAME#k`) and its CAC ports.
    fn calls(
        &self,
        i: usize,
        spec: &CallSpec,
        flows: &mut Vec<Flow>,
        endpoints: &mut Vec<Endpoint>,
    ) -> CallClass {
        let (sc, ports, link_mbps, node_id, port_id) = (
            self.sc,
            self.ports,
            self.link_mbps,
            self.node_id,
            self.port_id,
        );
        let c = &spec.connection;
        let contract = contract_of(
            c.contract
                .as_ref()
                .expect("validated: calls have contracts"),
        );
        let ids: Vec<u32> = c.route.iter().map(|n| node_id[n]).collect();
        let cac_ports: Vec<u32> = ids
            .windows(2)
            .map(|w| port_id[&(w[0], w[1])])
            .filter(|&p| ports[p as usize].cac.is_some())
            .collect();
        let k = spec.max_active.map(|m| m as usize).unwrap_or_else(|| {
            let fit = cac_ports
                .iter()
                .map(|&p| {
                    let cac = ports[p as usize].cac.as_ref().expect("filtered");
                    let bw = cac.policy().bandwidth(&contract).max(1e-9);
                    (cac.capacity_bps() as f64 / 1e6 / bw).floor() as usize
                })
                .min()
                .unwrap_or(0);
            // calls in set-up hold a slot too: a margin so that CAC, not the slot pool, blocks
            fit.clamp(0, 99_999) + 16
        });
        let mut slots = Vec::with_capacity(k);
        for s in 0..k {
            let mut slot = c.clone();
            slot.name = format!("{}#{s}", c.name);
            slot.source = SourceSpec {
                kind: SourceKind::None,
                ..c.source.clone()
            };
            let (f, e) = (flows.len() as u32, endpoints.len() as u32);
            self.connection(&slot, flows, endpoints);
            slots.push((f, e, Vec::new()));
        }
        CallClass {
            name: c.name.clone(),
            contract,
            source: c.source.clone(),
            first_link_mbps: link_mbps[&(ids[0], ids[1])],
            rate_per_s: spec.arrival_rate_per_s,
            holding_mean_s: spec.holding_s,
            exponential: spec.holding != Some(HoldingSpec::Fixed),
            stop: spec.stop_s.map(secs_to_ps).unwrap_or(SimTime::MAX),
            ports: cac_ports,
            free: (0..k as u32).rev().collect(),
            calls: vec![(0, 0.0); k],
            setup_sum_ps: 0,
            connected: 0,
            slots,
            rng: stream(sc.run.seed, &format!("calls[{i}].{}", c.name)),
            offered: 0,
            batch_offered: [0; CALL_BATCHES],
            batch_blocked: [0; CALL_BATCHES],
            admitted: 0,
            blocked: 0,
            no_slot: 0,
            active: 0,
            max_active: 0,
        }
    }
}

impl Simulation {
    /// Build from a validated scenario (see [`crate::scenario::parse`]).
    ///
    /// Fails only when a permanent connection does not fit a CAC port's capacity.
    pub fn build(sc: &Scenario) -> Result<Simulation, crate::scenario::ScenarioError> {
        let end = secs_to_ps(sc.run.duration_s);
        let warmup = secs_to_ps(sc.run.warmup_s);
        let sample_ps = secs_to_ps(
            sc.run
                .sample_interval_s
                .unwrap_or(sc.run.duration_s / 1000.0),
        )
        .max(1);
        let mut node_id = BTreeMap::new();
        let nodes: Vec<Node> = sc
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                node_id.insert(n.name.clone(), i as u32);
                Node {
                    name: n.name.clone(),
                    kind: n.kind,
                    fabric_ps: us_to_ps(n.fabric_delay_us),
                    setup_ps: us_to_ps(n.call_processing_us),
                }
            })
            .collect();
        let mut ports = Vec::new();
        let mut port_id: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        let mut link_mbps: BTreeMap<(u32, u32), f64> = BTreeMap::new();
        for l in &sc.links {
            let (a, b) = (node_id[&l.a], node_id[&l.b]);
            let prop = match (l.length_km, l.delay_us) {
                (Some(km), _) => us_to_ps(km * 5.0),
                (_, Some(us)) => us_to_ps(us),
                _ => 0,
            };
            for (from, to) in [(a, b), (b, a)] {
                let spec = &sc.nodes[from as usize];
                let ps = spec.ports.iter().find(|p| p.to == nodes[to as usize].name);
                let limit = ps
                    .and_then(|p| p.buffer_cells)
                    .or(spec.buffer_cells)
                    .map(|v| v as u32)
                    .unwrap_or(NONE);
                let cb = ps
                    .and_then(|p| p.class_buffer_cells.clone())
                    .or(spec.class_buffer_cells.clone())
                    .unwrap_or_default();
                let class_limit = [cb.cbr, cb.rt_vbr, cb.nrt_vbr, cb.abr, cb.ubr]
                    .map(|v| v.map(|v| v as u32).unwrap_or(NONE));
                let order = match &spec.priority {
                    Some(p) => [p[0] as u8, p[1] as u8, p[2] as u8, p[3] as u8, p[4] as u8],
                    None => [0, 1, 2, 3, 4],
                };
                let rate_bps = mbps_to_bps(l.rate_mbps);
                let delay_ps = prop + nodes[to as usize].fabric_ps;
                let in_flight_max = (delay_ps / cell_time_ps(rate_bps).max(1)) as usize + 2;
                port_id.insert((from, to), ports.len() as u32);
                link_mbps.insert((from, to), l.rate_mbps);
                ports.push(Port {
                    name: format!("{}->{}", nodes[from as usize].name, nodes[to as usize].name),
                    node: from,
                    to,
                    rate_bps,
                    pacer: Pacer::new(rate_bps),
                    busy_until: 0,
                    tx_pending: false,
                    queues: Default::default(),
                    order,
                    qlen: 0,
                    class_len: [0; 5],
                    limit,
                    class_limit,
                    clp1_threshold: ps
                        .and_then(|p| p.clp1_threshold_cells)
                        .or(spec.clp1_threshold_cells)
                        .map(|v| v as u32)
                        .unwrap_or(NONE),
                    sched: ClassSched::from_spec(spec, order),
                    cac: spec
                        .cac
                        .as_ref()
                        .filter(|_| spec.kind == NodeKind::Switch)
                        .map(|c| {
                            let policy = match c.policy {
                                CacPolicySpec::Peak => CacPolicy::Peak,
                                CacPolicySpec::Sustainable => CacPolicy::Sustainable,
                                CacPolicySpec::EffectiveBandwidth => {
                                    CacPolicy::EffectiveBandwidth {
                                        buffer_cells: c.buffer_cells.unwrap_or(1000.0),
                                        clr: c.clr.unwrap_or(1e-6),
                                    }
                                }
                            };
                            PortCac::new(l.rate_mbps, policy)
                        }),
                    cac_max_bps: 0,
                    cac_permanent_bps: 0,
                    frames: match spec.discard {
                        None | Some(DiscardSpec::Tail) => None,
                        Some(d) => Some(Box::new(FrameDiscard {
                            epd_threshold: if matches!(d, DiscardSpec::Epd | DiscardSpec::EpdPpd) {
                                spec.epd_threshold_cells.unwrap_or(0) as u32
                            } else {
                                NONE
                            },
                            ppd: matches!(d, DiscardSpec::Ppd | DiscardSpec::EpdPpd),
                            vcs: Vec::new(),
                        })),
                    },
                    group: NONE,
                    pipe: VecDeque::with_capacity(in_flight_max),
                    delay_ps,
                    arrive_pending: false,
                    scheme: port_scheme(if spec.kind == NodeKind::Switch {
                        ps.and_then(|p| p.abr.as_ref()).or(spec.abr.as_ref())
                    } else {
                        None
                    }),
                    hp_tx: 0,
                    hp_mark: 0,
                    impair: l.impairment.as_ref().map(|im| {
                        Box::new(Impairment {
                            loss: im.loss_probability,
                            error: im.error_probability,
                            misinsertion: im.misinsertion_probability,
                            extra_ps: us_to_ps(im.extra_delay_us),
                            variation_ps: im.delay_variation_us * 1e6,
                            last_at: 0,
                            crossing: Vec::new(),
                            scripted: if l.a == spec.name {
                                im.drop_cells_a_to_b.clone()
                            } else {
                                im.drop_cells_b_to_a.clone()
                            },
                            counted: 0,
                            rng: stream(
                                sc.run.seed,
                                &format!(
                                    "links.{}->{}.impairment",
                                    nodes[from as usize].name, nodes[to as usize].name
                                ),
                            ),
                        })
                    }),
                    stats: PortStats::default(),
                });
            }
        }
        let mut groups = Vec::new();
        for n in &sc.nodes {
            let from = node_id[&n.name];
            for g in &n.shared_buffers {
                for to in &g.ports {
                    ports[port_id[&(from, node_id[to])] as usize].group = groups.len() as u32;
                }
                groups.push(Group {
                    limit: g.buffer_cells as u32,
                    used: 0,
                });
            }
        }
        let mut flows: Vec<Flow> = Vec::new();
        let mut endpoints: Vec<Endpoint> = Vec::new();
        let mut monitors: Vec<Monitor> = Vec::new();
        let mut ports = ports;
        let b = Builder {
            sc,
            ports: &ports,
            link_mbps: &link_mbps,
            node_id: &node_id,
            port_id: &port_id,
        };
        for c in &sc.connections {
            let first_flow = flows.len();
            b.connection(c, &mut flows, &mut endpoints);
            // contract, UPC and requested QoS belong to the connection's first (forward) flow
            let f = &mut flows[first_flow];
            f.upc = upc_of(c);
            if c.source.shape == Some(true) {
                f.shaper = c
                    .contract
                    .as_ref()
                    .map(|k| Box::new(Shaper::new(&contract_of(k))));
            }
            if let Some(m) = &c.propose_contract {
                let name = m.bundle.clone().unwrap_or_else(|| c.name.clone());
                let k = match monitors.iter().position(|x: &Monitor| x.name == name) {
                    Some(k) => k,
                    None => {
                        let window_ps = secs_to_ps(m.window_s.unwrap_or(0.01)).max(1);
                        monitors.push(Monitor {
                            name,
                            members: vec![],
                            window_ps,
                            window_end: warmup + window_ps,
                            count: 0,
                            counts: Vec::new(),
                            times: Vec::new(),
                            margin: m.scr_margin.unwrap_or(0.1),
                            tolerance: m.tolerance.unwrap_or(0.0),
                        });
                        monitors.len() - 1
                    }
                };
                monitors[k].members.push(c.name.clone());
                f.monitor = Some(k as u32);
            }
            if let Some(q) = &c.qos {
                let vbr_clp0 = c.contract.as_ref().is_some_and(|k| k.scr_mbps.is_some())
                    && c.upc
                        .as_ref()
                        .is_some_and(|u| u.scr_clp0_only.unwrap_or(true));
                let clp0 = match q.clr_flow {
                    Some(ClrFlowSpec::Clp0) => true,
                    Some(ClrFlowSpec::Clp0Plus1) => false,
                    None => vbr_clp0,
                };
                f.qos = Some(QosObjectives {
                    max_ctd: q.max_ctd_us.map(us_to_ps),
                    cdv: q.cdv_us.map(us_to_ps),
                    clr: q.clr,
                    clr_clp0: clp0,
                });
                f.blocks = BlockCounter::new(
                    q.secb_block_cells.unwrap_or(128) as u32,
                    q.secb_max_bad.unwrap_or(4) as u32,
                );
            }
        }
        let mut calls = Vec::new();
        for (i, spec) in sc.calls.iter().enumerate() {
            calls.push(b.calls(i, spec, &mut flows, &mut endpoints));
        }
        // permanent connections with a contract hold their share of every CAC port on their
        // route for the whole run. ABR connections are admitted on their MCR whatever their
        // contract says (TM 4.0 section 5.10: the network commits to MCR only); UBR carries no
        // commitment and reserves nothing (its contract's PCR is for policing)
        for (i, c) in sc.connections.iter().enumerate() {
            let (contract, key) = match (c.category, &c.contract, &c.abr) {
                (Category::Abr, _, Some(a)) if a.mcr_mbps.unwrap_or(0.0) > 0.0 => {
                    (Contract::cbr(a.mcr_mbps.unwrap_or(0.0), 0), "abr.mcr_mbps")
                }
                (Category::Abr | Category::Ubr, _, _) => continue,
                (_, Some(k), _) => (contract_of(k), "contract"),
                _ => continue,
            };
            for w in c.route.windows(2) {
                let p = port_id[&(node_id[&w[0]], node_id[&w[1]])] as usize;
                let port = &mut ports[p];
                let Some(cac) = port.cac.as_mut() else {
                    continue;
                };
                let (need, free) = (
                    cac.policy().bandwidth(&contract),
                    cac.available_bps() as f64 / 1e6,
                );
                if cac.admit(&contract).is_none() {
                    return Err(crate::scenario::ScenarioError::new(
                        format!("connections[{i}].{key}"),
                        format!("CAC at port {} cannot admit it: needs {need:.6} Mb/s, {free:.6} Mb/s free", port.name),
                    ));
                }
                port.cac_max_bps = port.cac_max_bps.max(cac.allocated_bps());
                port.cac_permanent_bps = cac.allocated_bps();
            }
        }
        let mut sim = Self::finish_build(
            end, warmup, sample_ps, sc, nodes, ports, groups, flows, endpoints,
        );
        for (i, c) in calls.iter().enumerate() {
            let t = secs_to_ps(sc.calls[i].start_s);
            if t < c.stop.min(sim.end) {
                sim.queue.push(t, Event::CallArrival(i as u32));
            }
        }
        sim.calls = calls;
        sim.monitors = monitors;
        Ok(sim)
    }

    /// A call arrives: CAC at every port of the route (all or nothing), then a free slot.
    fn call_arrival(&mut self, c: u32) {
        let now = self.now;
        let in_window = now >= self.warmup;
        let cls = &mut self.calls[c as usize];
        let gap = Exp::new(cls.rate_per_s)
            .expect("validated rate")
            .sample(&mut cls.rng);
        let next = now + secs_to_ps(gap).max(1);
        if next < cls.stop.min(self.end) {
            self.queue.push(next, Event::CallArrival(c));
        }
        let hold_s = if cls.exponential {
            Exp::new(1.0 / cls.holding_mean_s)
                .expect("validated holding")
                .sample(&mut cls.rng)
        } else {
            cls.holding_mean_s
        };
        let batch = call_batch(now, self.warmup, self.end);
        if in_window {
            cls.offered += 1;
            cls.batch_offered[batch] += 1;
        }
        let Some(slot) = cls.free.pop() else {
            if in_window {
                cls.no_slot += 1;
                cls.batch_blocked[batch] += 1;
            }
            return;
        };
        cls.calls[slot as usize] = (now, hold_s);
        // the SETUP crosses the calling host's link to the first switch
        let flow = cls.slots[slot as usize].0;
        let p0 = self.flows[flow as usize].ports[0];
        let t = now + self.ports[p0 as usize].delay_ps;
        self.queue.push(t, Event::CallSetup(c, slot, 1));
    }

    /// Q.2931-style set-up, hop by hop (seed 003's CAC at each switch): the SETUP reaches node
    /// `hop` of the route; a switch processes it and, if its output port on the route runs CAC,
    /// admits or refuses the call there. A refusal releases what the call holds upstream (at
    /// once: the RELEASE message's travel is not modelled) and blocks the call. At the called
    /// host the call is accepted and a CONNECT goes back along the route.
    fn call_setup(&mut self, c: u32, slot: u32, hop: u32) {
        let now = self.now;
        let cls = &self.calls[c as usize];
        let flow = cls.slots[slot as usize].0 as usize;
        let route_len = self.flows[flow].ports.len() as u32 + 1;
        let arrived = cls.calls[slot as usize].0;
        let in_window = arrived >= self.warmup;
        if hop == route_len - 1 {
            // the called host accepts; the CONNECT takes the way back (same links and switches)
            let cls = &mut self.calls[c as usize];
            if in_window {
                cls.admitted += 1;
            }
            let t = now + (now - arrived);
            self.queue.push(t, Event::CallConnect(c, slot));
            return;
        }
        let p = self.flows[flow].ports[hop as usize];
        let node = self.ports[p as usize].node;
        let t = now + self.nodes[node as usize].setup_ps;
        let contract = self.calls[c as usize].contract;
        let port = &mut self.ports[p as usize];
        if let Some(cac) = port.cac.as_mut() {
            match cac.admit(&contract) {
                Some(r) => {
                    port.cac_max_bps = port.cac_max_bps.max(cac.allocated_bps());
                    self.calls[c as usize].slots[slot as usize].2.push(r);
                }
                None => {
                    let batch = call_batch(arrived, self.warmup, self.end);
                    let cls = &mut self.calls[c as usize];
                    if in_window {
                        cls.blocked += 1;
                        cls.batch_blocked[batch] += 1;
                    }
                    self.release_call(c, slot);
                    return;
                }
            }
        }
        let delay = self.ports[p as usize].delay_ps;
        self.queue
            .push(t + delay, Event::CallSetup(c, slot, hop + 1));
    }

    /// Free a call's reservations and its slot.
    fn release_call(&mut self, c: u32, slot: u32) {
        let cls = &mut self.calls[c as usize];
        let held = std::mem::take(&mut cls.slots[slot as usize].2);
        for (r, &p) in held.into_iter().zip(&cls.ports) {
            self.ports[p as usize]
                .cac
                .as_mut()
                .expect("CAC port")
                .release(r);
        }
        cls.free.push(slot);
    }

    /// The CONNECT reaches the calling host: the call's source starts and holds for its
    /// holding time.
    fn call_connect(&mut self, c: u32, slot: u32) {
        let now = self.now;
        let cls = &mut self.calls[c as usize];
        let (arrived, hold_s) = cls.calls[slot as usize];
        if arrived >= self.warmup {
            cls.setup_sum_ps += (now - arrived) as u128;
            cls.connected += 1;
        }
        cls.active += 1;
        cls.max_active = cls.max_active.max(cls.active);
        let end = now + secs_to_ps(hold_s).max(1);
        let e = cls.slots[slot as usize].1;
        let spec = SourceSpec {
            start_s: ps_to_secs(now),
            stop_s: Some(ps_to_secs(end)),
            ..cls.source.clone()
        };
        let app = source_app(&spec, cls.first_link_mbps);
        let ep = &mut self.endpoints[e as usize];
        ep.app = app;
        ep.timer_at = None;
        let mut ctx = Ctx::new(now, &mut ep.rng);
        ep.app.start(&mut ctx);
        let asks = ctx.asks();
        self.apply(e, asks);
        if end < self.end {
            self.queue.push(end, Event::CallEnd(c, slot));
        }
    }

    /// A call ends: its reservations are released and its slot is free again.
    fn call_end(&mut self, c: u32, slot: u32) {
        let e = self.calls[c as usize].slots[slot as usize].1;
        self.release_call(c, slot);
        self.calls[c as usize].active -= 1;
        let ep = &mut self.endpoints[e as usize];
        ep.app = AnySource::Idle;
        ep.timer_at = None;
    }

    #[allow(clippy::too_many_arguments)]
    fn finish_build(
        end: SimTime,
        warmup: SimTime,
        sample_ps: SimDuration,
        sc: &Scenario,
        nodes: Vec<Node>,
        ports: Vec<Port>,
        groups: Vec<Group>,
        flows: Vec<Flow>,
        endpoints: Vec<Endpoint>,
    ) -> Simulation {
        let mut sim = Simulation {
            now: 0,
            end,
            warmup,
            sample_ps,
            samples_taken: 0,
            seed: sc.run.seed,
            queue: EventQueue::new(),
            nodes,
            ports,
            groups,
            flows,
            endpoints,
            calls: Vec::new(),
            monitors: Vec::new(),
            events: 0,
            cell_hops: 0,
            finished: false,
            series: Series::default(),
        };
        if warmup > 0 {
            sim.queue.push(warmup, Event::WarmupEnd);
        }
        if sample_ps < end {
            sim.queue.push(sample_ps, Event::Sample);
        }
        for flow in sim.flows.iter_mut() {
            flow.base_ps = flow
                .ports
                .iter()
                .map(|&p| {
                    CELL_BIT_PS.div_ceil(sim.ports[p as usize].rate_bps)
                        + sim.ports[p as usize].delay_ps
                })
                .sum();
        }
        for (f, flow) in sim.flows.iter().enumerate() {
            for (h, &p) in flow.ports.iter().enumerate() {
                if let Some(im) = &mut sim.ports[p as usize].impair {
                    im.crossing.push((f as u32, h as u8));
                }
            }
        }
        let n_flows = sim.flows.len();
        for p in sim.ports.iter_mut() {
            if let Some(fd) = &mut p.frames {
                fd.vcs = vec![FD_IDLE; n_flows];
            }
        }
        for (i, p) in sim.ports.iter_mut().enumerate() {
            if let PortScheme::Erica(e) = &mut p.scheme {
                e.init(p.rate_bps as f64 / 1e6, n_flows);
                sim.queue.push(e.deadline, Event::AbrInterval(i as u32));
            }
        }
        for e in 0..sim.endpoints.len() {
            let ep = &mut sim.endpoints[e];
            let mut ctx = Ctx::new(0, &mut ep.rng);
            ep.app.start(&mut ctx);
            let asks = ctx.asks();
            sim.apply(e as u32, asks);
        }
        sim
    }

    pub fn now(&self) -> SimTime {
        self.now
    }
    pub fn end(&self) -> SimTime {
        self.end
    }
    pub fn events(&self) -> u64 {
        self.events
    }
    pub fn cell_hops(&self) -> u64 {
        self.cell_hops
    }
    pub fn is_finished(&self) -> bool {
        self.finished
    }
    pub fn series(&self) -> &Series {
        &self.series
    }

    /// Run at most `max_events` events; returns true once the run has reached its end.
    pub fn advance(&mut self, max_events: u64) -> bool {
        let mut n = 0;
        while n < max_events {
            match self.queue.peek_time() {
                Some(t) if t < self.end => {}
                _ => {
                    self.events += n;
                    self.finish();
                    return true;
                }
            }
            let (t, ev) = self.queue.pop().expect("peeked");
            self.now = t;
            self.step(ev);
            n += 1;
        }
        self.events += n;
        if self.queue.peek_time().is_none_or(|t| t >= self.end) {
            self.finish();
        }
        self.finished
    }

    /// Run to the end.
    pub fn run(&mut self) {
        while !self.advance(u64::MAX) {}
    }

    /// The run covers [0, end): events at `end` itself do not run, except the last sample.
    fn finish(&mut self) {
        if !self.finished {
            self.now = self.end;
            if (self.samples_taken + 1) * self.sample_ps == self.end {
                self.sample();
            }
            for p in &mut self.ports {
                p.stats.area += p.qlen as u128 * (self.end - p.stats.last_change) as u128;
                p.stats.last_change = self.end;
            }
            self.finished = true;
        }
    }

    #[inline]
    fn step(&mut self, ev: Event) {
        match ev {
            Event::Arrive(p) => self.arrive(p),
            Event::PortTx(p) => self.port_tx(p),
            Event::Endpoint(e) => self.endpoint_timer(e),
            Event::Sample => self.sample(),
            Event::WarmupEnd => self.warmup_end(),
            Event::AbrInterval(p) => self.abr_interval_timer(p),
            Event::CallArrival(c) => self.call_arrival(c),
            Event::CallEnd(c, s) => self.call_end(c, s),
            Event::CallSetup(c, s, k) => self.call_setup(c, s, k),
            Event::CallConnect(c, s) => self.call_connect(c, s),
            Event::Shaper(f) => self.shaper_release(f),
        }
    }

    fn endpoint_timer(&mut self, e: u32) {
        let now = self.now;
        let ep = &mut self.endpoints[e as usize];
        if ep.timer_at != Some(now) {
            return; // superseded
        }
        ep.timer_at = None;
        let mut ctx = Ctx::new(now, &mut ep.rng);
        ep.app.on_timer(&mut ctx);
        let asks = ctx.asks();
        self.apply(e, asks);
    }

    /// Carry out what an application asked for: send cells and frames, set its timer.
    fn apply(&mut self, e: u32, asks: Asks) {
        let flow = self.endpoints[e as usize].flow;
        if let Some(c) = asks.cell {
            self.emit_explicit(flow, c);
        }
        if let Some((len, eof, tag)) = asks.frame_cell {
            self.emit_cell(flow, len, eof, tag);
        }
        for &(sdu, tag) in &asks.frames {
            let n = aal5_cells(sdu);
            for i in 0..n - 1 {
                self.emit_cell(flow, i as u16, false, tag);
            }
            self.emit_cell(flow, sdu as u16, true, tag);
        }
        for _ in 0..asks.send {
            self.emit(flow);
        }
        if let Some(t) = asks.timer {
            let t = t.max(self.now);
            let ep = &mut self.endpoints[e as usize];
            // a timer already pending at that time has its event in the queue
            if ep.timer_at != Some(t) {
                ep.timer_at = Some(t);
                if t < self.end {
                    self.queue.push(t, Event::Endpoint(e));
                }
            }
        }
    }

    /// Create one cell of `flow` now (AAL5 framing by the flow) and queue it at the host port.
    fn emit(&mut self, flow: u32) {
        let f = &mut self.flows[flow as usize];
        let (mut len, mut eof) = (0, false);
        if f.frame_cells > 0 {
            len = f.tx_in_frame as u16; // index within the frame (the EOF cell carries the length)
            f.tx_in_frame += 1;
            if f.tx_in_frame == f.frame_cells {
                f.tx_in_frame = 0;
                eof = true;
                len = f.frame_len;
            }
        }
        self.emit_cell(flow, len, eof, 0);
    }

    /// Create one data cell of `flow` now: `len` is the index within its AAL5 frame or, on the
    /// end-of-frame cell, the frame's SDU length; `tag` the transport's header field.
    fn emit_cell(&mut self, flow: u32, len: u16, eof: bool, tag: u32) {
        let now = self.now;
        let warm = now >= self.warmup;
        let f = &mut self.flows[flow as usize];
        let mut cell = Cell {
            created: now,
            flow,
            seq: f.tx_seq,
            len,
            tag,
            ..Default::default()
        };
        f.tx_seq = f.tx_seq.wrapping_add(1);
        if eof {
            cell.hdr |= H_EOF;
            if warm {
                f.stats.frames_sent += 1;
            }
        }
        if warm {
            f.stats.sent += 1;
            if let Some(m) = f.monitor {
                self.monitors[m as usize].record(now);
            }
        }
        if let Some(sh) = &mut f.shaper {
            if !sh.queue.is_empty() || sh.earliest() > now {
                sh.queue.push_back(cell);
                sh.max_queue = sh.max_queue.max(sh.queue.len());
                if !sh.pending {
                    sh.pending = true;
                    let t = sh.earliest().max(now);
                    self.queue.push(t, Event::Shaper(flow));
                }
                return;
            }
            sh.take(now);
        }
        let p = f.ports[0];
        let cls = f.category as usize;
        self.enqueue(p, cell, cls);
    }

    /// The shaper of `flow` releases its head cell (it conforms now) into the host's port.
    fn shaper_release(&mut self, flow: u32) {
        let now = self.now;
        let f = &mut self.flows[flow as usize];
        let sh = f.shaper.as_mut().expect("a shaper event has a shaper");
        sh.pending = false;
        let Some(cell) = sh.queue.pop_front() else {
            return;
        };
        sh.take(now);
        if !sh.queue.is_empty() {
            sh.pending = true;
            let t = sh.earliest().max(now);
            self.queue.push(t, Event::Shaper(flow));
        }
        let (p, cls) = (f.ports[0], f.category as usize);
        self.enqueue(p, cell, cls);
    }

    /// Send a cell the application built (RM cells): it keeps its header and RM fields and does
    /// not take a data sequence number.
    /// A data cell sent this way is a relayed cell (a virtual source passing on its upstream
    /// segment's data): it keeps its creation time, sequence number and AAL5 bits.
    fn emit_explicit(&mut self, flow: u32, mut cell: Cell) {
        let now = self.now;
        let f = &mut self.flows[flow as usize];
        cell.flow = flow;
        cell.hop = 0;
        if cell.is_rm() {
            cell.created = now;
            cell.seq = f.tx_seq; // not consumed: RM cells are not part of AAL5 frames
        }
        if cell.created >= self.warmup {
            f.stats.sent += 1;
            if cell.is_rm() {
                f.stats.rm_sent += 1;
            } else if cell.is_eof() && f.framed {
                f.stats.frames_sent += 1;
            }
        }
        let (p, cls) = (f.ports[0], f.category as usize);
        self.enqueue(p, cell, cls);
    }

    #[inline]
    fn enqueue(&mut self, p: u32, mut cell: Cell, cls: usize) {
        let now = self.now;
        if cls == Category::Abr as usize
            && !matches!(self.ports[p as usize].scheme, PortScheme::None)
        {
            self.abr_input(p, &mut cell);
        }
        let mut frame_state = None;
        if self.ports[p as usize].frames.is_some() && self.flows[cell.flow as usize].framed {
            let port = &mut self.ports[p as usize];
            let fd = port.frames.as_mut().expect("checked");
            let st = fd.vcs[cell.flow as usize];
            let eof = cell.is_eof();
            let (next, refuse) = match st {
                FD_EPD => (if eof { FD_IDLE } else { FD_EPD }, Some(DropReason::Epd)),
                FD_PPD if !eof => (FD_PPD, Some(DropReason::Ppd)),
                FD_IDLE if port.qlen >= fd.epd_threshold => {
                    (if eof { FD_IDLE } else { FD_EPD }, Some(DropReason::Epd))
                }
                _ => (if eof { FD_IDLE } else { FD_IN_FRAME }, None),
            };
            fd.vcs[cell.flow as usize] = next;
            if let Some(r) = refuse {
                self.drop_cell(p, cell, r);
                return;
            }
            frame_state = Some(fd.ppd && !eof);
        }
        let port = &mut self.ports[p as usize];
        if port.qlen == 0
            && !port.tx_pending
            && port.busy_until <= now
            && port.sched.as_ref().is_none_or(|s| s.allowed(cls, now))
        {
            if let Some(s) = &mut port.sched {
                s.served(cls, now);
            }
            self.transmit(p, cell, cls);
            return;
        }
        let reason = if port.qlen >= port.limit {
            Some(DropReason::PortBufferFull)
        } else if cell.hdr & H_CLP != 0 && port.qlen >= port.clp1_threshold {
            Some(DropReason::Clp1Threshold)
        } else if port.class_len[cls] >= port.class_limit[cls] {
            Some(DropReason::ClassBufferFull)
        } else if port.group != NONE
            && self.groups[port.group as usize].used >= self.groups[port.group as usize].limit
        {
            Some(DropReason::SharedBufferFull)
        } else {
            None
        };
        if let Some(r) = reason {
            if frame_state == Some(true) {
                // PPD: the rest of this frame (but its last cell) goes too
                if let Some(fd) = &mut port.frames {
                    fd.vcs[cell.flow as usize] = FD_PPD;
                }
            }
            self.drop_cell(p, cell, r);
            return;
        }
        let st = &mut port.stats;
        st.area += port.qlen as u128 * (now - st.last_change) as u128;
        st.last_change = now;
        port.qlen += 1;
        if port.qlen > st.max_queue {
            st.max_queue = port.qlen;
        }
        port.class_len[cls] += 1;
        if port.group != NONE {
            self.groups[port.group as usize].used += 1;
        }
        port.queues[cls].push_back(cell);
        if !port.tx_pending {
            port.tx_pending = true;
            let t = port.busy_until;
            self.queue.push(t, Event::PortTx(p));
        }
    }

    fn drop_cell(&mut self, p: u32, cell: Cell, r: DropReason) {
        self.ports[p as usize].stats.drops[r as usize] += 1;
        // a misinserted cell is not its current connection's cell: only the port counts it
        if cell.created >= self.warmup && cell.hdr & H_MIS == 0 {
            let f = &mut self.flows[cell.flow as usize];
            f.stats.dropped += 1;
            if cell.hdr & H_CLP == 0 {
                f.stats.dropped_clp0 += 1;
            }
            f.stats.drops[r as usize] += 1;
            f.stats.drops_by_hop[cell.hop as usize] += 1;
        }
    }

    /// Put `cell` on the line now (the port is free): it ends transmission one cell time later
    /// and reaches the far node after the link's delay.
    /// An ABR cell enters a port with a feedback scheme (before buffer admission: the offered load).
    fn abr_input(&mut self, p: u32, cell: &mut Cell) {
        let port = &mut self.ports[p as usize];
        let q = port.class_len[Category::Abr as usize];
        let close = match &mut port.scheme {
            PortScheme::Erica(e) => e.on_input(cell),
            PortScheme::Efci(th) => {
                PortScheme::mark_efci(th, q, cell);
                false
            }
            _ => false,
        };
        if close {
            self.close_interval(p);
        }
    }

    /// End the current ERICA averaging interval of port `p` now (steps 1-5) and start the next.
    fn close_interval(&mut self, p: u32) {
        let now = self.now;
        let in_window = now >= self.warmup;
        let port = &mut self.ports[p as usize];
        let line = port.rate_bps as f64 / 1e6;
        let hp = port.hp_tx - port.hp_mark;
        port.hp_mark = port.hp_tx;
        let q = port.class_len[Category::Abr as usize];
        let PortScheme::Erica(e) = &mut port.scheme else {
            return;
        };
        if let Some(r) = e.end_interval(now, line, hp, q, in_window) {
            let s = &mut self.series;
            s.abr_time_s.push(ps_to_secs(now));
            s.abr_port.push(p);
            s.abr_z.push(r.z);
            s.abr_fair_mbps.push(r.fair);
            s.abr_capacity_mbps.push(r.abr_capacity);
            s.abr_input_mbps.push(r.input);
            s.abr_target_mbps.push(r.target);
            s.abr_er_max_mbps.push(r.er_max);
            s.abr_queue_cells.push(r.abr_queue);
        }
        let d = e.deadline;
        if d < self.end {
            self.queue.push(d, Event::AbrInterval(p));
        }
    }

    fn abr_interval_timer(&mut self, p: u32) {
        if let PortScheme::Erica(e) = &self.ports[p as usize].scheme {
            if e.deadline == self.now {
                self.close_interval(p);
            }
        }
    }

    /// A backward RM cell of `flow` is at the node that owns the forward port `fp` of its VC:
    /// that port's scheme writes its feedback into the cell.
    fn abr_feedback(&mut self, fp: u32, fwd_flow: u32, cell: &mut Cell) {
        let port = &mut self.ports[fp as usize];
        let q = port.class_len[Category::Abr as usize];
        match &mut port.scheme {
            PortScheme::Erica(e) => {
                let er = e.feedback(fwd_flow);
                cell.rm.er = cell.rm.er.min(er as f32);
            }
            PortScheme::RelativeRate(th) => PortScheme::mark_rr(th, q, &mut cell.rm),
            _ => {}
        }
    }

    #[inline]
    fn transmit(&mut self, p: u32, mut cell: Cell, cls: usize) {
        let now = self.now;
        let port = &mut self.ports[p as usize];
        if cls < Category::Abr as usize {
            port.hp_tx += 1;
        }
        if now > port.busy_until {
            port.pacer.start(now);
        }
        let end = port.pacer.advance();
        port.busy_until = end;
        port.stats.tx_cells += 1;
        port.stats.tx_total += 1;
        self.cell_hops += 1;
        let mut at = end + port.delay_ps;
        if let Some(im) = &mut port.impair {
            im.counted += 1;
            let scripted = im.scripted.binary_search(&im.counted).is_ok();
            let u: f64 = im.rng.random();
            if u < im.loss || scripted {
                self.drop_cell(p, cell, DropReason::LinkLoss);
                return;
            } else if u < im.loss + im.error {
                cell.hdr |= H_ERR;
            } else if u < im.loss + im.error + im.misinsertion {
                // the corrupted header matches another connection crossing this link
                let others = im.crossing.iter().filter(|(f, _)| *f != cell.flow).count();
                if others > 0 {
                    let k = im.rng.random_range(0..others);
                    let &(f, h) = im
                        .crossing
                        .iter()
                        .filter(|(f, _)| *f != cell.flow)
                        .nth(k)
                        .expect("k < others");
                    let lost = cell;
                    cell.flow = f;
                    cell.hop = h;
                    cell.hdr |= H_MIS;
                    self.drop_cell(p, lost, DropReason::Misinserted);
                }
            }
            let port = &mut self.ports[p as usize];
            let im = port.impair.as_mut().expect("checked");
            let jitter = if im.variation_ps > 0.0 {
                (im.rng.random::<f64>() * im.variation_ps) as SimDuration
            } else {
                0
            };
            at = (at + im.extra_ps + jitter).max(im.last_at);
            im.last_at = at;
        }
        let port = &mut self.ports[p as usize];
        port.pipe.push_back((at, cell));
        if !port.arrive_pending {
            port.arrive_pending = true;
            self.queue.push(at, Event::Arrive(p));
        }
    }

    fn port_tx(&mut self, p: u32) {
        let now = self.now;
        let port = &mut self.ports[p as usize];
        port.tx_pending = false;
        let mut next = None;
        if let Some(s) = &mut port.sched {
            let nonempty = [0, 1, 2, 3, 4].map(|c| !port.queues[c].is_empty());
            match s.pick(nonempty, now) {
                Ok(c) => {
                    s.served(c, now);
                    let cell = port.queues[c].pop_front().expect("non-empty");
                    port.class_len[c] -= 1;
                    next = Some((cell, c));
                }
                Err(t) => {
                    if nonempty.iter().any(|&b| b) {
                        // every waiting category is held back by its maximum rate
                        port.tx_pending = true;
                        self.queue.push(t.max(now), Event::PortTx(p));
                    }
                    return;
                }
            }
        } else {
            for &c in &port.order {
                if let Some(cell) = port.queues[c as usize].pop_front() {
                    port.class_len[c as usize] -= 1;
                    next = Some((cell, c as usize));
                    break;
                }
            }
        }
        let Some((cell, cls)) = next else { return };
        let st = &mut port.stats;
        st.area += port.qlen as u128 * (now - st.last_change) as u128;
        st.last_change = now;
        port.qlen -= 1;
        if port.group != NONE {
            self.groups[port.group as usize].used -= 1;
        }
        self.transmit(p, cell, cls);
        let port = &mut self.ports[p as usize];
        if port.qlen > 0 {
            port.tx_pending = true;
            let t = port.busy_until;
            self.queue.push(t, Event::PortTx(p));
        }
    }

    fn arrive(&mut self, p: u32) {
        let port = &mut self.ports[p as usize];
        let (_, mut cell) = port.pipe.pop_front().expect("arrival with an empty link");
        match port.pipe.front() {
            Some(&(t, _)) => self.queue.push(t, Event::Arrive(p)),
            None => port.arrive_pending = false,
        }
        cell.hop += 1;
        if cell.hop == 1 && self.flows[cell.flow as usize].upc.is_some() && cell.hdr & H_MIS == 0 {
            // usage parameter control at the network ingress (the first switch)
            let now = self.now;
            let upc = self.flows[cell.flow as usize]
                .upc
                .as_mut()
                .expect("checked");
            match upc.police(now, cell.hdr & H_CLP != 0) {
                UpcOutcome::Pass => {}
                UpcOutcome::Tag => cell.hdr |= H_CLP,
                UpcOutcome::Discard => {
                    cell.hop -= 1; // lost at the first switch's ingress, before its output port
                    let p = self.flows[cell.flow as usize].ports[0];
                    self.drop_cell(p, cell, DropReason::UpcDiscard);
                    return;
                }
            }
        }
        let f = &self.flows[cell.flow as usize];
        let hops = f.ports.len();
        if cell.hop as usize == hops {
            self.deliver(cell);
        } else {
            let (np, cls) = (f.ports[cell.hop as usize], f.category as usize);
            if f.backward && cell.is_rm() && cell.rm.bits & RM_DIR != 0 {
                // this node's forward port of the VC: forward route index hops - hop
                let fwd = f.pair;
                let fp = self.flows[fwd as usize].ports[hops - cell.hop as usize];
                self.abr_feedback(fp, fwd, &mut cell);
            }
            self.enqueue(np, cell, cls);
        }
    }

    /// A cell reaches the last node of its flow.
    fn deliver(&mut self, cell: Cell) {
        let now = self.now;
        let in_window = now >= self.warmup;
        let f = &mut self.flows[cell.flow as usize];
        if cell.hdr & H_MIS != 0 {
            // a stranger: counted, not delivered to the application
            if in_window {
                f.stats.misinserted += 1;
                f.blocks.record(CellOutcome::Misinserted);
            }
            return;
        }
        let errored = cell.hdr & H_ERR != 0;
        if !cell.is_rm() && cell.created >= self.warmup {
            // SECBR blocks in sending order: a gap in the sequence numbers is lost cells
            if let Some(next) = f.rx_next {
                for _ in 0..cell.seq.wrapping_sub(next).min(1 << 20) {
                    f.blocks.record(CellOutcome::Lost);
                }
            }
            f.blocks.record(if errored {
                CellOutcome::Errored
            } else {
                CellOutcome::Delivered
            });
        }
        if !cell.is_rm() {
            f.rx_next = Some(cell.seq.wrapping_add(1));
        }
        let st = &mut f.stats;
        if cell.created >= self.warmup && cell.hdr & H_CLP == 0 {
            st.delivered_clp0 += 1;
        }
        if errored && cell.created >= self.warmup {
            st.errored += 1;
        }
        st.rx_total += 1;
        if cell.created >= self.warmup {
            st.delivered += 1;
            let d = now - cell.created;
            st.ctd_sum += d as u128;
            st.ctd_max = st.ctd_max.max(d);
            st.ctd_min = st.ctd_min.min(d);
            st.ctd_hist.record(d.saturating_sub(f.base_ps));
        }
        let mut frame_done = None;
        if cell.is_rm() {
            // RM cells take capacity but carry no user data
        } else if f.framed {
            match f
                .reasm
                .on_cell_checked(cell.seq, cell.is_eof(), cell.len, errored)
            {
                FrameEvent::None => {}
                FrameEvent::Delivered { len } => {
                    frame_done = Some((len as u32, cell.tag));
                    if cell.created >= self.warmup {
                        f.stats.frames_delivered += 1;
                    }
                    if in_window {
                        f.stats.user_bytes_window += len as u64;
                    }
                }
                FrameEvent::Lost => {}
            }
        } else if in_window {
            f.stats.user_bytes_window += CELL_PAYLOAD as u64;
        }
        if in_window && !cell.is_rm() {
            f.stats.rx_cells_window += 1;
        }
        // at a VS/VD switch data cells go on to the virtual source, RM cells to the virtual
        // destination; elsewhere everything goes to the application at the far end
        let (vs, next) = (f.vs_endpoint, f.vs_next);
        let e = if vs != NONE && !cell.is_rm() {
            vs
        } else {
            f.rx_endpoint
        };
        if e != NONE {
            let ep = &mut self.endpoints[e as usize];
            let mut ctx = Ctx::new(now, &mut ep.rng);
            ep.app.on_cell(&mut ctx, &cell);
            if let Some((sdu, tag)) = frame_done {
                if e != vs {
                    ep.app.on_frame(&mut ctx, sdu, tag);
                }
            }
            let mut asks = ctx.asks();
            if vs != NONE && e != vs {
                if let Some(b) = &mut asks.cell {
                    self.couple_vd(vs, next, b);
                }
            }
            if !asks.is_empty() {
                self.apply(e, asks);
            }
        }
    }

    /// A virtual destination's turned-around RM cell: its ER is limited by the switch's own
    /// feedback for the next segment's port and by the virtual source's ACR there.
    fn couple_vd(&mut self, vs: u32, next: u32, brm: &mut Cell) {
        let fp = self.flows[next as usize].ports[0];
        self.abr_feedback(fp, next, brm);
        if let AnySource::Abr(a) = &self.endpoints[vs as usize].app {
            brm.rm.er = brm.rm.er.min(a.acr as f32);
        }
    }

    fn sample(&mut self) {
        self.samples_taken += 1;
        let t = self.now;
        let ts = ps_to_secs(t);
        let interval_s = ps_to_secs(self.sample_ps);
        for (i, p) in self.ports.iter_mut().enumerate() {
            let cells = p.stats.tx_total - p.stats.sample_tx;
            p.stats.sample_tx = p.stats.tx_total;
            self.series.port_time_s.push(ts);
            self.series.port_index.push(i as u32);
            self.series.port_queue_cells.push(p.qlen);
            self.series
                .port_utilization
                .push(cells as f64 * CELL_BITS as f64 / p.rate_bps as f64 / interval_s);
        }
        for ep in &self.endpoints {
            if let AnySource::Abr(a) = &ep.app {
                self.series.acr_time_s.push(ts);
                self.series.acr_flow.push(ep.flow);
                self.series.acr_mbps.push(a.acr);
            }
        }
        for ep in &self.endpoints {
            if let Some(t) = tcp_sender(&ep.app) {
                self.series.tcp_time_s.push(ts);
                self.series.tcp_flow.push(ep.flow);
                self.series.tcp_cwnd_bytes.push(t.cwnd);
            }
        }
        for (i, f) in self.flows.iter_mut().enumerate() {
            let cells = f.stats.rx_total - f.stats.sample_rx;
            f.stats.sample_rx = f.stats.rx_total;
            self.series.conn_time_s.push(ts);
            self.series.conn_index.push(i as u32);
            self.series
                .conn_throughput_mbps
                .push(cells as f64 * (CELL_PAYLOAD * 8) as f64 / interval_s / 1e6);
        }
        let next = (self.samples_taken + 1) * self.sample_ps;
        if next < self.end {
            self.queue.push(next, Event::Sample);
        }
    }

    fn warmup_end(&mut self) {
        let now = self.now;
        for p in &mut self.ports {
            let s = &mut p.stats;
            s.max_queue = p.qlen;
            s.area = 0;
            s.last_change = now;
            s.tx_cells = 0;
            s.drops = [0; DropReason::COUNT];
        }
        for e in &mut self.endpoints {
            if let AnySource::Abr(a) = &e.app {
                e.acr_mark = a.acr_integral(now).0;
            }
            let sent = tcp_sender(&e.app).map(|t| t.stats.clone());
            let got = tcp_receiver(&e.app).map(|r| r.rcv_nxt);
            if sent.is_some() || got.is_some() {
                e.tcp_mark = Some(Box::new((sent.unwrap_or_default(), got.unwrap_or(0))));
            }
        }
        for f in &mut self.flows {
            f.stats.rx_cells_window = 0;
            f.stats.user_bytes_window = 0;
            f.upc_mark = f.upc.as_ref().map(|u| u.counts());
        }
    }

    /// Cells of `flow` created after warm-up that are now in a queue or on a link, counted by
    /// looking at every buffer (independent of the flow's counters).
    pub fn cells_in_network(&self, flow: u32) -> u64 {
        let mut n = 0;
        for p in &self.ports {
            let ours = |c: &Cell| c.flow == flow && c.created >= self.warmup && c.hdr & H_MIS == 0;
            n += p.pipe.iter().filter(|(_, c)| ours(c)).count() as u64;
            n += p
                .queues
                .iter()
                .flat_map(|q| q.iter())
                .filter(|c| ours(c))
                .count() as u64;
        }
        // cells still held by the source's shaper were sent by the application
        if let Some(sh) = &self.flows[flow as usize].shaper {
            n += sh.queue.iter().filter(|c| c.created >= self.warmup).count() as u64;
        }
        n
    }

    /// End-of-frame cells of `flow` created after warm-up that are in a queue or on a link.
    pub fn frames_in_network(&self, flow: u32) -> u64 {
        let ours = |c: &Cell| {
            c.flow == flow && c.created >= self.warmup && c.is_eof() && c.hdr & H_MIS == 0
        };
        self.ports
            .iter()
            .map(|p| {
                p.pipe.iter().filter(|(_, c)| ours(c)).count()
                    + p.queues
                        .iter()
                        .flat_map(|q| q.iter())
                        .filter(|c| ours(c))
                        .count()
            })
            .sum::<usize>() as u64
    }

    /// All cells in queues or on links now.
    pub fn cells_in_flight_now(&self) -> u64 {
        self.ports
            .iter()
            .map(|p| (p.pipe.len() + p.qlen as usize) as u64)
            .sum()
    }

    /// The summary of the run so far (complete once [`Self::advance`] has returned true).
    pub fn summary(&self) -> Summary {
        let window_ps = self.now.saturating_sub(self.warmup).max(1);
        let window_s = ps_to_secs(window_ps);
        let mut ports = BTreeMap::new();
        for p in &self.ports {
            let s = &p.stats;
            let area = s.area + p.qlen as u128 * (self.now - s.last_change.min(self.now)) as u128;
            ports.insert(
                p.name.clone(),
                PortSummary {
                    node: self.nodes[p.node as usize].name.clone(),
                    to: self.nodes[p.to as usize].name.clone(),
                    rate_mbps: p.rate_bps as f64 / 1e6,
                    max_queue_cells: s.max_queue,
                    mean_queue_cells: area as f64 / window_ps as f64,
                    utilization: s.tx_cells as f64 * CELL_BITS as f64
                        / p.rate_bps as f64
                        / window_s,
                    cells_transmitted: s.tx_cells,
                    cells_dropped: s.drops.iter().sum(),
                    drops: drops_map(&s.drops),
                    z_mean: erica_mean(&p.scheme, |e| e.z_sum),
                    fairshare_mbps: erica_mean(&p.scheme, |e| e.fair_sum),
                    abr_capacity_mbps: erica_mean(&p.scheme, |e| e.cap_sum),
                    abr_intervals: match &p.scheme {
                        PortScheme::Erica(e) => Some(e.n_intervals),
                        _ => None,
                    },
                    cac_capacity_mbps: p.cac.as_ref().map(|c| c.capacity_bps() as f64 / 1e6),
                    cac_allocated_mbps: p.cac.as_ref().map(|c| c.allocated_bps() as f64 / 1e6),
                    cac_allocated_max_mbps: p.cac.as_ref().map(|_| p.cac_max_bps as f64 / 1e6),
                },
            );
        }
        let mut connections = BTreeMap::new();
        for (i, f) in self.flows.iter().enumerate() {
            let s = &f.stats;
            let us = |ps: u64| ps as f64 / 1e6;
            let got = s.delivered > 0;
            // CLR over every cell and over the CLP=0 flow (cells still in flight are neither)
            let ratio = |lost: u64, all: u64| {
                if all > 0 {
                    lost as f64 / all as f64
                } else {
                    0.0
                }
            };
            let clr = ratio(s.dropped, s.delivered + s.dropped);
            let clr_clp0 = ratio(s.dropped_clp0, s.delivered_clp0 + s.dropped_clp0);
            // UPC counts after warm-up
            let upc = f.upc.as_ref().map(|u| {
                let (now, m) = (u.counts(), f.upc_mark.unwrap_or_default());
                crate::policing::UpcCounts {
                    cells: now.cells - m.cells,
                    passed: now.passed - m.passed,
                    tagged: now.tagged - m.tagged,
                    discarded: now.discarded - m.discarded,
                    pcr_failures: now.pcr_failures - m.pcr_failures,
                    scr_failures: now.scr_failures - m.scr_failures,
                }
            });
            let ep = self
                .endpoints
                .iter()
                .find(|e| e.flow == i as u32 && matches!(e.app, AnySource::Abr(_)));
            let abr = ep.and_then(|e| match &e.app {
                AnySource::Abr(a) => Some(a),
                _ => None,
            });
            let acr_mean = ep.zip(abr).and_then(|(e, a)| {
                let (area_end, active) = a.acr_integral(self.now);
                let active = active?;
                let (from, area_from) = if active < self.warmup {
                    (self.warmup, e.acr_mark)
                } else {
                    (active, 0.0)
                };
                (from < self.now).then(|| (area_end - area_from) / (self.now - from) as f64)
            });
            let tcp = self.tcp_summary(i, window_s);
            connections.insert(
                f.name.clone(),
                ConnectionSummary {
                    tcp,
                    category: f.category.name(),
                    route: f.route.clone(),
                    cells_sent: s.sent,
                    cells_delivered: s.delivered,
                    cells_dropped: s.dropped,
                    cells_in_flight: self.cells_in_network(i as u32),
                    throughput_mbps: s.rx_cells_window as f64 * (CELL_PAYLOAD * 8) as f64
                        / window_s
                        / 1e6,
                    user_throughput_mbps: s.user_bytes_window as f64 * 8.0 / window_s / 1e6,
                    frames_sent: s.frames_sent,
                    frames_delivered: s.frames_delivered,
                    frames_lost: s.frames_sent
                        - s.frames_delivered
                        - self.frames_in_network(i as u32),
                    ctd_mean_us: got.then(|| s.ctd_sum as f64 / s.delivered as f64 / 1e6),
                    ctd_max_us: got.then(|| us(s.ctd_max)),
                    ctd_min_us: got.then(|| us(s.ctd_min)),
                    cdv_p2p_us: got.then(|| us(s.ctd_max - s.ctd_min)),
                    ctd_p999_us: s
                        .ctd_hist
                        .quantile(0.999)
                        .map(|q| us((f.base_ps + q).min(s.ctd_max))),
                    cdv_p999_us: s
                        .ctd_hist
                        .quantile(0.999)
                        .map(|q| us((f.base_ps + q).min(s.ctd_max).saturating_sub(s.ctd_min))),
                    clr,
                    drops: drops_map(&s.drops),
                    drops_by_port: f
                        .ports
                        .iter()
                        .zip(&s.drops_by_hop)
                        .filter(|(_, &n)| n > 0)
                        .map(|(&p, &n)| (self.ports[p as usize].name.clone(), n))
                        .collect(),
                    rm_cells_sent: s.rm_sent,
                    cells_errored: s.errored,
                    cer: if s.delivered > 0 {
                        s.errored as f64 / s.delivered as f64
                    } else {
                        0.0
                    },
                    cells_misinserted: s.misinserted,
                    cmr_per_s: s.misinserted as f64 / window_s,
                    clr_clp0,
                    secbr: f.blocks.secbr(),
                    upc_cells: upc.map(|u| u.cells),
                    upc_tagged: upc.map(|u| u.tagged),
                    upc_discarded: upc.map(|u| u.discarded),
                    proposed_contract: f
                        .monitor
                        .and_then(|m| self.monitors[m as usize].propose(self.now)),
                    qos_met: f.qos.map(|q| {
                        let mut m = BTreeMap::new();
                        if let Some(v) = q.max_ctd {
                            m.insert("max_ctd", got && s.ctd_max <= v);
                        }
                        if let Some(v) = q.cdv {
                            m.insert("cdv", got && s.ctd_max - s.ctd_min <= v);
                        }
                        if let Some(v) = q.clr {
                            m.insert("clr", if q.clr_clp0 { clr_clp0 } else { clr } <= v);
                        }
                        let all = m.values().all(|&b| b);
                        m.insert("all", all);
                        m
                    }),
                    qos_clr_flow: f
                        .qos
                        .and_then(|q| q.clr.map(|_| if q.clr_clp0 { "clp0" } else { "clp0+1" })),
                    acr_final_mbps: abr.map(|a| a.acr),
                    acr_mean_mbps: acr_mean,
                    rm_overhead: abr.map(|_| {
                        if s.sent > 0 {
                            s.rm_sent as f64 / s.sent as f64
                        } else {
                            0.0
                        }
                    }),
                    source_queue_max_cells: abr.map(|a| a.max_backlog),
                    brm_turned_around: abr.filter(|a| a.turnaround).map(|a| a.brm_sent),
                    brm_overwritten: abr.filter(|a| a.turnaround).map(|a| a.brm_overwritten),
                },
            );
        }
        Summary {
            seed: self.seed,
            sim_time_s: ps_to_secs(self.now),
            warmup_s: ps_to_secs(self.warmup),
            cell_hops: self.cell_hops,
            events: self.events,
            ports,
            connections,
            calls: self
                .calls
                .iter()
                .map(|c| {
                    let decided = c.offered.max(1) as f64;
                    let pb = (c.blocked + c.no_slot) as f64 / decided;
                    (
                        c.name.clone(),
                        CallSummary {
                            offered: c.offered,
                            admitted: c.admitted,
                            blocked: c.blocked,
                            blocked_no_slot: c.no_slot,
                            blocking_probability: pb,
                            blocking_ci95: batch_means_ci95(&c.batch_offered, &c.batch_blocked),
                            active_at_end: c.active,
                            max_active: c.max_active,
                            setup_delay_mean_ms: (c.connected > 0)
                                .then(|| c.setup_sum_ps as f64 / c.connected as f64 / 1e9),
                            erlang_b: self.erlang_b_of(c),
                        },
                    )
                })
                .collect(),
        }
    }

    /// Erlang-B blocking for a call class alone on peak-rate CAC ports: servers = the calls that
    /// fit the tightest port (its capacity less the permanent connections' share), offered load
    /// = arrival rate x mean holding time (the formula holds for any holding distribution).
    fn erlang_b_of(&self, c: &CallClass) -> Option<f64> {
        let shared = self
            .calls
            .iter()
            .filter(|o| !std::ptr::eq(*o, c))
            .any(|o| o.ports.iter().any(|p| c.ports.contains(p)));
        if shared || c.ports.is_empty() {
            return None;
        }
        let mut servers = u32::MAX;
        for &p in &c.ports {
            let port = &self.ports[p as usize];
            let cac = port.cac.as_ref()?;
            if cac.policy() != CacPolicy::Peak {
                return None;
            }
            let free_mbps = (cac.capacity_bps() - port.cac_permanent_bps) as f64 / 1e6;
            let per_call = cac.policy().bandwidth(&c.contract);
            servers = servers.min((free_mbps / per_call + 1e-9).floor() as u32);
        }
        Some(crate::policing::erlang_b(
            c.rate_per_s * c.holding_mean_s,
            servers,
        ))
    }

    /// The TCP view of flow `i` if a TCP sender sends on it.
    fn tcp_summary(&self, i: usize, window_s: f64) -> Option<TcpSummary> {
        let se = self
            .endpoints
            .iter()
            .find(|e| e.flow == i as u32 && tcp_sender(&e.app).is_some())?;
        let t = tcp_sender(&se.app)?;
        let rx_e = self.flows[i].rx_endpoint;
        let re = (rx_e != NONE).then(|| &self.endpoints[rx_e as usize]);
        let r = re.and_then(|e| tcp_receiver(&e.app));
        let zero = (crate::tcp::TcpStats::default(), 0);
        let sm = se.tcp_mark.as_deref().unwrap_or(&zero);
        let rm = re
            .and_then(|e| e.tcp_mark.as_deref())
            .map(|m| m.1)
            .unwrap_or(0);
        let bytes = r.map(|r| r.rcv_nxt - rm).unwrap_or(0);
        let rm_share = match &se.app {
            AnySource::Abr(a) => (a.p.nrm - 1) as f64 / a.p.nrm as f64,
            _ => 1.0,
        };
        let max_payload_fraction =
            crate::wire::aal5_efficiency(t.p.mss, crate::tcp::TCP_IP_LLC_BYTES) * rm_share;
        Some(TcpSummary {
            max_payload_fraction,
            goodput_mbps: if window_s > 0.0 {
                bytes as f64 * 8.0 / window_s / 1e6
            } else {
                0.0
            },
            bytes_delivered: bytes,
            segments_sent: t.stats.segments_sent - sm.0.segments_sent,
            retransmitted_segments: t.stats.retransmitted_segments - sm.0.retransmitted_segments,
            timeouts: t.stats.timeouts - sm.0.timeouts,
            fast_retransmits: t.stats.fast_retransmits - sm.0.fast_retransmits,
            cwnd_bytes: t.cwnd,
            max_cwnd_bytes: t.stats.max_cwnd,
            ssthresh_bytes: t.ssthresh.min(1 << 40),
            srtt_ms: t.srtt_s().map(|s| s * 1e3),
            rto_ms: t.rto() as f64 / 1e9,
            completed_s: t.done_at.map(ps_to_secs),
        })
    }

    /// The ABR source of flow `flow`, if it has one.
    pub fn abr_source(&self, flow: usize) -> Option<&AbrSource> {
        self.endpoints.iter().find_map(|e| match &e.app {
            AnySource::Abr(a) if e.flow == flow as u32 => Some(&**a),
            _ => None,
        })
    }

    /// Index of a port by its name `A->B`.
    pub fn port_index(&self, name: &str) -> Option<usize> {
        self.ports.iter().position(|p| p.name == name)
    }

    /// Index of a flow by name.
    pub fn flow_index(&self, name: &str) -> Option<usize> {
        self.flows.iter().position(|f| f.name == name)
    }
}

/// Batches of the measurement window for the confidence interval of a call class's blocking.
pub const CALL_BATCHES: usize = 20;

/// The batch (of [`CALL_BATCHES`] equal parts of [warm-up, end)) of a call arriving at `t`.
fn call_batch(t: SimTime, warmup: SimTime, end: SimTime) -> usize {
    let span = end.saturating_sub(warmup).max(1) as u128;
    ((t.saturating_sub(warmup) as u128 * CALL_BATCHES as u128 / span) as usize)
        .min(CALL_BATCHES - 1)
}

/// Half-width of the 95% confidence interval of the blocking probability by the method of batch
/// means (Law and Kelton, Simulation Modeling and Analysis, section 9.5.3): the blocking ratios
/// of the batches with calls are treated as independent, Student's t with (batches - 1) degrees
/// of freedom. Successive calls are correlated (a blocked call finds the port full, and so does
/// the next one), which a binomial interval would ignore. NaN with fewer than two such batches.
pub fn batch_means_ci95(offered: &[u64], blocked: &[u64]) -> f64 {
    let ratios: Vec<f64> = offered
        .iter()
        .zip(blocked)
        .filter(|(&o, _)| o > 0)
        .map(|(&o, &b)| b as f64 / o as f64)
        .collect();
    let k = ratios.len();
    if k < 2 {
        return f64::NAN;
    }
    let mean = ratios.iter().sum::<f64>() / k as f64;
    let var = ratios.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (k - 1) as f64;
    t975(k - 1) * (var / k as f64).sqrt()
}

/// The 0.975 quantile of Student's t with `df` degrees of freedom (df 1 to 30, then 1.96).
fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    T.get(df.wrapping_sub(1)).copied().unwrap_or(1.96)
}

fn erica_mean(s: &PortScheme, f: impl Fn(&Erica) -> f64) -> Option<f64> {
    match s {
        PortScheme::Erica(e) if e.n_intervals > 0 => Some(f(e) / e.n_intervals as f64),
        PortScheme::Erica(_) => Some(f64::NAN).filter(|_| false),
        _ => None,
    }
}
