//! Building one connection: its flows (one per direction, per ABR segment) and endpoints.

use crate::build::*;
use crate::host::AnySource;
use crate::wire::Sar;
use crate::metrics::BlockCounter;
use crate::metrics::*;
use crate::net::*;
use crate::rng::{stream, LazyRng};
use crate::scenario::{
    CallSpec, Category, ConnectionSpec, HoldingSpec, QosSpec, Scenario, SourceKind, SourceSpec,
};
use crate::sim::*;
use crate::time::*;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What building a connection needs to look up: the scenario and the ports built so far.
pub(crate) struct Builder<'a> {
    pub(crate) sc: &'a Scenario,
    /// Every trace of the scenario, once (video streams share them).
    pub(crate) traces: &'a BTreeMap<String, Arc<[u32]>>,
    pub(crate) ports: &'a [Port],
    pub(crate) link_mbps: &'a BTreeMap<(u32, u32), f64>,
    pub(crate) node_id: &'a BTreeMap<String, u32>,
    pub(crate) port_id: &'a BTreeMap<(u32, u32), u32>,
}

impl Builder<'_> {
    /// A flow along `route` (node names).
    pub(crate) fn flow(
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
            sar: Sar::new(frame),
            rx: InlineU32s::default(),
            vc_slot: Vec::new(),
            pair: NONE,
            backward,
            has_vs: false,
            sent: 0,
            vs_endpoint: NONE,
            vs_next: NONE,
            vs_drain_s: 0.0,
            vs_fwd: NONE,
            upc: None,
            qos: None,
            rx_next: None,
            // without a `qos` table, SECBR is counted in the default blocks
            blocks: {
                let q = QosSpec::default();
                BlockCounter::new(q.secb_block_cells as u32, q.secb_max_bad as u32)
            },
            upc_mark: None,
            shaper: None,
            monitor: None,
            base_ps: 0,
            stats: FlowStats::new(fports.len()),
            ports: fports.into(),
        }
    }

    /// An endpoint on `flow` with its own random stream named `key`.
    pub(crate) fn endpoint(&self, flow: usize, app: AnySource, key: String) -> Endpoint {
        Endpoint {
            flow: flow as u32,
            app,
            rng: LazyRng::new(self.sc.run.seed, &key),
            timer_at: None,
            conn: 0,
        }
    }

    /// The flows (one per direction, per ABR segment) and endpoints of one connection.
    pub(crate) fn connection(
        &self,
        c: &ConnectionSpec,
        flows: &mut Vec<Flow>,
        endpoints: &mut Vec<Endpoint>,
    ) {
        match &c.abr {
            None => self.plain(c, flows, endpoints),
            Some(abr) if c.bidirectional => self.abr_two_way(c, abr, flows, endpoints),
            Some(abr) => self.abr_segments(c, abr, flows, endpoints),
        }
    }

    /// Prepare a call class: its slots (idle flows named `NAME#k`) and its CAC ports.
    pub(crate) fn calls(
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
        let contract = c
            .contract
            .as_ref()
            .expect("validated: calls have contracts")
            .contract();
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
                .expect("validated: a call's route has a CAC switch");
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
            make_source: call_source(c.source.clone(), link_mbps[&(ids[0], ids[1])]),
            rate_per_s: spec.arrival_rate_per_s,
            holding_mean_s: spec.holding_s,
            exponential: spec.holding == HoldingSpec::Exponential,
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

/// A call's source: the class's `source` with the call's start and stop times (converted to
/// seconds in the spec and back to ps by [`source_app`], as a connection's are).
fn call_source(source: SourceSpec, first_link_mbps: f64) -> CallSource {
    Box::new(move |start: SimTime, stop: SimTime| {
        let spec = SourceSpec {
            start_s: ps_to_secs(start),
            stop_s: Some(ps_to_secs(stop)),
            ..source.clone()
        };
        source_app(&spec, first_link_mbps)
    })
}
