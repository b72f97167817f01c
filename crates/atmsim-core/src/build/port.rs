//! One output port and the channel it feeds, from the scenario's node, port and link specs.

use crate::build::port_scheme;
use crate::cac::PortCac;
use crate::metrics::PortStats;
use crate::net::*;
use crate::rng::stream;
use crate::scenario::{
    DiscardSpec, LinkSpec, NodeKind, NodeSpec, PerClass, Scenario, SchedulerSpec,
};
use crate::time::*;

/// The port of node `from` towards node `to` on link `l` (propagation delay `prop` ps; a cell
/// crosses node `to` in `transit_ps`).
pub(crate) fn build(
    sc: &Scenario,
    l: &LinkSpec,
    from: u32,
    to: u32,
    prop: SimDuration,
    transit_ps: SimDuration,
) -> Port {
    let spec = &sc.nodes[from as usize];
    let (from_name, to_name) = (&spec.name, &sc.nodes[to as usize].name);
    let ps = spec.ports.iter().find(|p| &p.to == to_name);
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
    let p = &spec.priority;
    let order = [p[0] as u8, p[1] as u8, p[2] as u8, p[3] as u8, p[4] as u8];
    let rate_bps = mbps_to_bps(l.rate_mbps);
    let in_flight_max = ((prop + transit_ps) / cell_time_ps(rate_bps).max(1)) as usize + 2;
    let impair = l.impairment.as_ref().map(|im| {
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
                &format!("links.{from_name}->{to_name}.impairment"),
            ),
        })
    });
    Port {
        name: format!("{from_name}->{to_name}"),
        node: from,
        to,
        rate_bps,
        pacer: Pacer::new(rate_bps),
        busy_until: 0,
        tx_pending: false,
        computed: false,
        computed_fast: false,
        computed_cls: 0,
        heard_fast: false,
        far_passes: false,
        deferred: false,
        tx_at: 0,
        starts: Default::default(),
        queue: Queue::new(
            limit,
            class_limit,
            ps.and_then(|p| p.clp1_threshold_cells)
                .or(spec.clp1_threshold_cells)
                .map(|v| v as u32)
                .unwrap_or(NONE),
        ),
        sched: match class_sched(spec, order) {
            Some(s) => Scheduler::Class(s),
            None => Scheduler::Strict(order),
        },
        cac: spec
            .cac
            .as_ref()
            .filter(|_| spec.kind == NodeKind::Switch)
            .map(|c| PortCac::new(l.rate_mbps, c.policy())),
        cac_max_bps: 0,
        cac_permanent_bps: 0,
        frames: match spec.discard {
            DiscardSpec::Tail => None,
            d => Some(Box::new(FrameDiscard {
                epd_threshold: if matches!(d, DiscardSpec::Epd | DiscardSpec::EpdPpd) {
                    spec.epd_threshold_cells
                        .expect("validated: epd needs epd_threshold_cells")
                        as u32
                } else {
                    NONE
                },
                ppd: matches!(d, DiscardSpec::Ppd | DiscardSpec::EpdPpd),
                vcs: Vec::new(),
            })),
        },
        group: NONE,
        fabric_node: NONE,
        link: Link {
            impair,
            ..Link::new(prop, transit_ps, in_flight_max)
        },
        scheme: port_scheme(if spec.kind == NodeKind::Switch {
            ps.and_then(|p| p.abr.as_ref()).or(spec.abr.as_ref())
        } else {
            None
        }),
        hp_tx: 0,
        hp_mark: 0,
        held_cells: 0,
        stats: PortStats::default(),
    }
}

/// The scheduler of a node's ports beyond plain strict priority in `order` (WRR, minimum or
/// maximum rates per category), or `None` when the node asks for none of them.
fn class_sched(n: &NodeSpec, order: [u8; 5]) -> Option<Box<ClassSched>> {
    let wrr = n.scheduler == SchedulerSpec::Wrr;
    if !wrr && n.class_min_mbps.is_none() && n.class_max_mbps.is_none() {
        return None;
    }
    let per_category = |r: &Option<PerClass<f64>>| {
        let mut v = [None; 5];
        if let Some(r) = r {
            for (c, x) in r.entries() {
                v[c as usize] = x;
            }
        }
        v
    };
    let weights = n
        .class_weights
        .clone()
        .unwrap_or_default()
        .cells_per_round();
    Some(Box::new(ClassSched::new(
        order,
        wrr,
        weights,
        per_category(&n.class_min_mbps),
        per_category(&n.class_max_mbps),
    )))
}
