//! The summary of a run (counters to the per-port, per-connection and per-call-class results).

use crate::abr::AbrSource;
use crate::cac::CacPolicy;
use crate::metrics::accounting::lost;
use crate::metrics::*;
use crate::net::*;
use crate::sim::*;
use crate::time::*;
use crate::transport::InTransit;
use crate::wire::{SegHdr, CELL_PAYLOAD};
use std::collections::BTreeMap;

impl Simulation {
    /// The node names along `flow`'s route (the first port's node, then each port's far end):
    /// built for the summary from the ports rather than kept per flow (issue 13, memory per VC).
    pub fn route_names(&self, flow: usize) -> Vec<String> {
        let ports = &self.flows[flow].ports;
        let mut names = Vec::with_capacity(ports.len() + 1);
        if let Some(&p) = ports.first() {
            names.push(
                self.nodes[self.ports[p as usize].node as usize]
                    .name
                    .clone(),
            );
        }
        for &p in ports.iter() {
            names.push(self.nodes[self.ports[p as usize].to as usize].name.clone());
        }
        names
    }

    /// All cells in queues or on links now.
    pub fn cells_in_flight_now(&self) -> u64 {
        let mut held = 0;
        for nd in &self.nodes {
            nd.fabric.for_each_held(&mut |_| held += 1);
        }
        held + self
            .ports
            .iter()
            // a computed departure's cell is on the link and counted as waiting until it starts
            .map(|p| (p.link.pipe.len() + p.queue.len as usize - p.starts.len()) as u64)
            .sum::<u64>()
    }

    /// The summary of the run so far (complete once [`Self::advance`] has returned true).
    pub fn summary(&self) -> Summary {
        let ctx = self.summary_context();
        let mut connections = BTreeMap::new();
        for (i, f) in self.flows.iter().enumerate() {
            connections.insert(f.name.clone(), self.connection_of(i, &ctx));
        }
        Summary {
            connections,
            ..self.summary_head()
        }
    }

    /// The summary without its connections (`connections` empty): what [`StreamedSummary`]
    /// writes around the connections it builds one at a time.
    fn summary_head(&self) -> Summary {
        let window_ps = self.now.saturating_sub(self.warmup).max(1);
        let window_s = ps_to_secs(window_ps);
        let ports = self
            .ports
            .iter()
            .map(|p| (p.name.clone(), self.port_summary(p, window_ps, window_s)))
            .collect();
        Summary {
            seed: self.seed,
            sim_time_s: ps_to_secs(self.now),
            warmup_s: ps_to_secs(self.warmup),
            cell_hops: self.cell_hops,
            events: self.events,
            ports,
            connections: BTreeMap::new(),
            fabrics: self
                .nodes
                .iter()
                .filter_map(|n| n.fabric.summary().map(|f| (n.name.clone(), f)))
                .collect(),
            hosts: self.host_summaries(window_ps),
            calls: self.call_summaries(),
        }
    }

    /// What every connection's section needs, looked up once: the endpoints sending on each
    /// flow, and what is on its way (from one look at every buffer).
    fn summary_context(&self) -> SummaryContext<'_> {
        let window_ps = self.now.saturating_sub(self.warmup).max(1);
        let mut by_flow: Vec<Vec<&Endpoint>> = vec![Vec::new(); self.flows.len()];
        for e in &self.endpoints {
            by_flow[e.flow as usize].push(e);
        }
        SummaryContext {
            window_s: ps_to_secs(window_ps),
            by_flow,
            in_network: self.in_network(),
            transit: self.frames_in_transit(),
        }
    }

    /// Flow `i`'s whole section.
    fn connection_of(&self, i: usize, ctx: &SummaryContext<'_>) -> ConnectionSummary {
        let mut c = self.connection_summary(i, ctx.window_s, ctx.in_network[i]);
        self.abr_fields(&mut c, i, &ctx.by_flow[i]);
        self.endpoint_fields(&mut c, i, &ctx.by_flow[i], ctx.window_s, &ctx.transit);
        c
    }

    /// The summary as [`Self::summary`] gives it, to serialize without holding every
    /// connection's section at once: the connections are built one at a time while they are
    /// written (issue 27 row (d): memory per VC). The same JSON value, keys in the same order.
    pub fn streamed_summary(&self) -> StreamedSummary<'_> {
        // the flows in the order of their names (a BTreeMap's), the last of equal names kept
        let mut order: Vec<u32> = (0..self.flows.len() as u32).collect();
        order.sort_by(|&a, &b| {
            self.flows[a as usize]
                .name
                .cmp(&self.flows[b as usize].name)
        });
        let flows = &self.flows;
        let mut kept: Vec<u32> = Vec::with_capacity(order.len());
        for k in 0..order.len() {
            let last = order
                .get(k + 1)
                .is_none_or(|&n| flows[n as usize].name != flows[order[k] as usize].name);
            if last {
                kept.push(order[k]);
            }
        }
        StreamedSummary {
            sim: self,
            head: self.summary_head(),
            order: kept,
        }
    }

    /// One output port's section.
    fn port_summary(&self, p: &Port, window_ps: SimDuration, window_s: f64) -> PortSummary {
        let s = &p.stats;
        let means = p.scheme.interval_means();
        let area = s.area + p.queue.len as u128 * (self.now - s.last_change.min(self.now)) as u128;
        PortSummary {
            node: self.nodes[p.node as usize].name.clone(),
            to: self.nodes[p.to as usize].name.clone(),
            rate_mbps: p.rate_bps as f64 / 1e6,
            max_queue_cells: s.max_queue,
            mean_queue_cells: area as f64 / window_ps as f64,
            utilization: s.tx_cells as f64 * CELL_BITS as f64 / p.rate_bps as f64 / window_s,
            cells_transmitted: s.tx_cells,
            cells_dropped: s.drops.iter().sum(),
            drops: drops_map(&s.drops),
            z_mean: means.map(|m| m.z),
            fairshare_mbps: means.map(|m| m.fair_mbps),
            abr_capacity_mbps: means.map(|m| m.abr_capacity_mbps),
            abr_intervals: p.scheme.intervals_closed(),
            cac_capacity_mbps: p.cac.as_ref().map(|c| c.capacity_bps() as f64 / 1e6),
            cac_allocated_mbps: p.cac.as_ref().map(|c| c.allocated_bps() as f64 / 1e6),
            cac_allocated_max_mbps: p.cac.as_ref().map(|_| p.cac_max_bps as f64 / 1e6),
        }
    }

    /// Flow `i`'s section: its cells, frames, delays and losses, policing and QoS (the ABR
    /// and endpoint fields are filled in by [`Self::abr_fields`] and
    /// [`Self::endpoint_fields`]); `net`: what of it is in the network now.
    fn connection_summary(&self, i: usize, window_s: f64, net: InNetwork) -> ConnectionSummary {
        let f = &self.flows[i];
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
        let upc = self.upc_counts(f);
        let p999 = s
            .ctd_hist
            .quantile(0.999)
            .map(|q| (f.base_ps + q).min(s.ctd_max));
        ConnectionSummary {
            category: f.category.name(),
            route: self.route_names(i),
            cells_sent: f.sent,
            cells_delivered: s.delivered,
            cells_dropped: s.dropped,
            cells_in_flight: net.cells,
            throughput_mbps: s.rx_cells_window as f64 * (CELL_PAYLOAD * 8) as f64 / window_s / 1e6,
            user_throughput_mbps: s.user_bytes_window as f64 * 8.0 / window_s / 1e6,
            frames_sent: s.frames_sent,
            frames_delivered: s.frames_delivered,
            frames_in_network: net.frames,
            frames_lost: lost(s.frames_sent, s.frames_delivered, net.frames, "frames"),
            frame_bytes_sent: s.frame_bytes_sent,
            frame_bytes_delivered: s.frame_bytes_delivered,
            frame_bytes_in_network: net.frame_bytes,
            frame_bytes_lost: lost(
                s.frame_bytes_sent,
                s.frame_bytes_delivered,
                net.frame_bytes,
                "frame bytes",
            ),
            ctd_mean_us: got.then(|| s.ctd_sum as f64 / s.delivered as f64 / 1e6),
            ctd_max_us: got.then(|| us(s.ctd_max)),
            ctd_min_us: got.then(|| us(s.ctd_min)),
            cdv_p2p_us: got.then(|| us(s.ctd_max - s.ctd_min)),
            ctd_p999_us: p999.map(us),
            cdv_p999_us: p999.map(|q| us(q.saturating_sub(s.ctd_min))),
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
            cer: ratio(s.errored, s.delivered),
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
            qos_met: f.qos.as_deref().map(|q| {
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
                .as_deref()
                .and_then(|q| q.clr.map(|_| if q.clr_clp0 { "clp0" } else { "clp0+1" })),
            acr_final_mbps: None,
            acr_mean_mbps: None,
            rm_overhead: None,
            source_queue_max_cells: None,
            source_queue_final_cells: None,
            brm_turned_around: None,
            brm_overwritten: None,
            tcp: None,
            tcp_bundle: None,
            xtpx: None,
            xtpx_bundle: None,
            video: None,
            workload: None,
            sections: BTreeMap::new(),
        }
    }

    /// The UPC counts of flow `f` after warm-up.
    fn upc_counts(&self, f: &Flow) -> Option<crate::policing::UpcCounts> {
        f.upc.as_ref().map(|u| {
            let (now, m) = (
                u.counts(),
                f.upc_mark.as_deref().copied().unwrap_or_default(),
            );
            crate::policing::UpcCounts {
                cells: now.cells - m.cells,
                passed: now.passed - m.passed,
                tagged: now.tagged - m.tagged,
                discarded: now.discarded - m.discarded,
                pcr_failures: now.pcr_failures - m.pcr_failures,
                scr_failures: now.scr_failures - m.scr_failures,
            }
        })
    }

    /// The ABR fields of flow `i`'s section, from the ABR source sending on it (`on_flow`: the
    /// endpoints sending on the flow).
    fn abr_fields(&self, c: &mut ConnectionSummary, i: usize, on_flow: &[&Endpoint]) {
        let Some(a) = on_flow.iter().find_map(|e| e.app.abr()) else {
            return;
        };
        let (f, s) = (&self.flows[i], &self.flows[i].stats);
        let (area_end, active) = a.acr_integral(self.now);
        c.acr_mean_mbps = active.and_then(|active| {
            let (from, area_from) = if active < self.warmup {
                (self.warmup, a.acr_mark)
            } else {
                (active, 0.0)
            };
            (from < self.now).then(|| (area_end - area_from) / (self.now - from) as f64)
        });
        c.acr_final_mbps = Some(a.acr);
        c.rm_overhead = Some(if f.sent > 0 {
            s.rm_sent as f64 / f.sent as f64
        } else {
            0.0
        });
        c.source_queue_max_cells = Some(a.max_backlog);
        c.source_queue_final_cells = a.is_relay().then_some(a.backlog);
        c.brm_turned_around = a.turnaround.then_some(a.brm_sent);
        c.brm_overwritten = a.turnaround.then_some(a.brm_overwritten);
    }

    /// The endpoints' sections of flow `i`'s summary: each transport connection sending on the
    /// flow, by number, and the applications' own sections (`on_flow`: the endpoints sending;
    /// `transit`: every flow's frames on their way, [`Self::frames_in_transit`]).
    fn endpoint_fields(
        &self,
        c: &mut ConnectionSummary,
        i: usize,
        on_flow: &[&Endpoint],
        window_s: f64,
        transit: &[Vec<FrameInTransit>],
    ) {
        let f = &self.flows[i];
        let rx_of = |conn: u16| {
            let r = f.rx_endpoint(conn);
            (r != NONE).then(|| &self.endpoints[r as usize].app)
        };
        // each endpoint's frames on their way, both ways: its own connection's when the flow
        // carries a bundle of ends (one per connection number), else all of them
        let bundle = on_flow.iter().any(|e| e.conn != 0);
        let pick = |frames: &[FrameInTransit], conn: u16| -> Vec<FrameInTransit> {
            let mine = |s: &SegHdr| !bundle || s.conn == conn;
            frames.iter().filter(|(_, s)| mine(s)).copied().collect()
        };
        let back: &[FrameInTransit] = transit.get(f.pair as usize).map_or(&[], |v| v);
        let mine: Vec<_> = on_flow
            .iter()
            .map(|e| (pick(&transit[i], e.conn), pick(back, e.conn)))
            .collect();
        let at = |k: usize| InTransit {
            out: &mine[k].0,
            back: &mine[k].1,
        };
        let ts = crate::host::endpoint::transport_sections(
            on_flow
                .iter()
                .enumerate()
                .map(|(k, e)| (e.conn, &e.app, at(k))),
            rx_of,
            window_s,
        );
        c.tcp = ts.tcp.first().map(|t| t.1.clone());
        c.tcp_bundle = (ts.tcp.len() > 1).then(|| ts.tcp.into_iter().map(|t| t.1).collect());
        c.xtpx = ts.xtpx.first().map(|t| t.1.clone());
        c.xtpx_bundle = (ts.xtpx.len() > 1).then(|| ts.xtpx.into_iter().map(|t| t.1).collect());
        for (k, e) in on_flow.iter().enumerate() {
            let a = EndpointHooks::sections(&e.app, rx_of(e.conn), at(k));
            c.video = c.video.take().or(a.video);
            c.workload = c.workload.take().or(a.workload);
            for (k, v) in a.other {
                c.sections.entry(k).or_insert(v);
            }
        }
    }

    /// The call classes' sections.
    fn call_summaries(&self) -> BTreeMap<String, CallSummary> {
        self.calls
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
            .collect()
    }

    /// Erlang-B blocking for a call class alone on peak-rate CAC ports: servers = the calls that
    /// fit the tightest port (its capacity less the permanent connections' share), offered load
    /// = arrival rate x mean holding time (the formula holds for any holding distribution).
    pub(crate) fn erlang_b_of(&self, c: &CallClass) -> Option<f64> {
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
        Some(crate::cac::erlang_b(
            c.rate_per_s * c.holding_mean_s,
            servers,
        ))
    }

    /// The ABR source of flow `flow`, if it has one.
    pub fn abr_source(&self, flow: usize) -> Option<&AbrSource> {
        self.endpoints
            .iter()
            .filter(|e| e.flow == flow as u32)
            .find_map(|e| e.app.abr())
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

/// What every connection's section needs (see [`Simulation::summary_context`]).
struct SummaryContext<'a> {
    window_s: f64,
    by_flow: Vec<Vec<&'a Endpoint>>,
    in_network: Vec<InNetwork>,
    transit: Vec<Vec<FrameInTransit>>,
}

/// The summary serialized with each connection's section built only as it is written
/// ([`Simulation::streamed_summary`]): a map of the same keys, in the same order, as
/// [`Summary`]'s.
pub struct StreamedSummary<'a> {
    sim: &'a Simulation,
    head: Summary,
    order: Vec<u32>,
}

struct StreamedConnections<'a>(&'a StreamedSummary<'a>);

impl serde::Serialize for StreamedConnections<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let sim = self.0.sim;
        let ctx = sim.summary_context();
        let mut m = ser.serialize_map(Some(self.0.order.len()))?;
        for &i in &self.0.order {
            let c = sim.connection_of(i as usize, &ctx);
            m.serialize_entry(&sim.flows[i as usize].name, &c)?;
        }
        m.end()
    }
}

impl serde::Serialize for StreamedSummary<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let h = &self.head;
        let mut m = ser.serialize_map(None)?;
        m.serialize_entry("seed", &h.seed)?;
        m.serialize_entry("sim_time_s", &h.sim_time_s)?;
        m.serialize_entry("warmup_s", &h.warmup_s)?;
        m.serialize_entry("cell_hops", &h.cell_hops)?;
        m.serialize_entry("events", &h.events)?;
        m.serialize_entry("ports", &h.ports)?;
        m.serialize_entry("connections", &StreamedConnections(self))?;
        if !h.calls.is_empty() {
            m.serialize_entry("calls", &h.calls)?;
        }
        if !h.fabrics.is_empty() {
            m.serialize_entry("fabrics", &h.fabrics)?;
        }
        if !h.hosts.is_empty() {
            m.serialize_entry("hosts", &h.hosts)?;
        }
        m.end()
    }
}
