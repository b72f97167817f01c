//! Building one connection: its flows (one per direction, per ABR segment) and endpoints.

use crate::abr::{AbrDest, AbrSource, Feed};
use crate::build::*;
use crate::host::AnySource;
use crate::host::Sar;
use crate::metrics::BlockCounter;
use crate::metrics::*;
use crate::net::*;
use crate::rng::{stream, LazyRng};
use crate::scenario::{
    CallSpec, Category, ConnectionSpec, HoldingSpec, QosSpec, Scenario, SourceKind, SourceSpec,
};
use crate::sim::*;
use crate::time::*;
use crate::transport::tcp::TcpEnd;
use crate::transport::tcp::{TcpParams, TcpReceiver, TcpSender};
use crate::transport::xtpx::XtpxEnd;
use crate::transport::AnyTransport;
use std::collections::{BTreeMap, VecDeque};
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
        let (sc, ports, link_mbps, node_id) = (self.sc, self.ports, self.link_mbps, self.node_id);
        // an ABR control loop's two flows, paired; their indices and the forward one-way delay
        let abr_pair = |flows: &mut Vec<Flow>, f: Flow, r: Flow| {
            let (fwd, rev) = (flows.len(), flows.len() + 1);
            let one_way: u64 = f
                .ports
                .iter()
                .map(|&p| ports[p as usize].link.delay_ps)
                .sum();
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
                if c.source.kind == SourceKind::Video {
                    self.video(c, fwd, flows, endpoints);
                    return;
                }
                if c.source.kind == SourceKind::Workload {
                    self.workload(c, fwd, flows, endpoints);
                    return;
                }
                endpoints.push(endpoint(
                    fwd,
                    source_app(&c.source, first_rate(&c.route)),
                    format!("connections.{}.source", c.name),
                ));
                // TCP, XTPX: segments one way, ACKs (status reports) the other, both as AAL5
                // frames
                let tcp = c.source.kind == SourceKind::Tcp;
                let xtpx = c.source.kind == SourceKind::Xtpx;
                if tcp || xtpx || c.bidirectional {
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
                        flows[fwd].sar.framed = true;
                        flows[rev].sar.framed = true;
                        let r = TcpEnd::receiver(tcp_params(&c.source));
                        Some((raw_end(AnyTransport::Tcp(Box::new(r))), "tcp_receiver"))
                    } else if xtpx {
                        flows[fwd].sar.framed = true;
                        flows[rev].sar.framed = true;
                        let r = XtpxEnd::receiver(xtpx_params(&c.source));
                        Some((raw_end(AnyTransport::Xtpx(Box::new(r))), "xtpx_receiver"))
                    } else {
                        c.reverse_source
                            .as_ref()
                            .map(|rs| (source_app(rs, first_rate(&route)), "reverse_source"))
                    };
                    if let Some((app, key)) = rx {
                        // each direction's cells reach the application sending the other way
                        flows[fwd].set_rx(0, endpoints.len() as u32);
                        flows[rev].set_rx(0, src as u32);
                        endpoints.push(endpoint(rev, app, format!("connections.{}.{key}", c.name)));
                    }
                    if tcp {
                        self.tcp_ends(c, fwd, rev, src, flows, endpoints);
                    }
                    if xtpx {
                        self.xtpx_bundle(c, fwd, rev, flows, endpoints);
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
                let rs = c
                    .reverse_source
                    .as_deref()
                    .cloned()
                    .unwrap_or_else(|| SourceSpec {
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
                flows[fwd].set_rx(0, b_end as u32);
                flows[rev].set_rx(0, a_end as u32);
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
                    .is_some_and(|a| a.vsvd)
            }));
            bounds.push(n - 1);
            let mut prev: Option<(usize, u64)> = None;
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
                    flows[fwd].sar.framed = true;
                    flows[rev].sar.framed = true;
                }
                endpoints.push(endpoint(
                    rev,
                    AnySource::AbrDest(des),
                    format!("{key}.abr_destination"),
                ));
                flows[fwd].set_rx(0, dst as u32);
                flows[rev].set_rx(0, src as u32);
                if let Some((p, up_one_way)) = prev {
                    // the queue term's drain time: vs_drain_s plus two round trips of the
                    // upstream segment, whose source answers the term only a round trip later
                    let vs_node = sc.nodes[node_id[&seg[0]] as usize].abr.as_ref();
                    let drain = vs_node.map_or(0.0, |a| a.vs_drain_s);
                    flows[p].vs_endpoint = src as u32;
                    flows[p].has_vs = true;
                    flows[p].vs_next = fwd as u32;
                    flows[p].vs_drain_s = if drain > 0.0 {
                        drain + 4.0 * up_one_way as f64 / 1e12
                    } else {
                        0.0
                    };
                    flows[rev].vs_fwd = fwd as u32;
                    flows[rev].has_vs = true;
                }
                prev = Some((fwd, one_way));
            }
        }
    }

    /// The TCP ends of a plain connection beyond the one-way pair made by `connection`: with
    /// `reverse_source.kind = "tcp"` both ends send and receive (the reverse direction's
    /// parameters are `reverse_source.tcp`), and with `source.bundle = k` connections 1..k-1
    /// are added on the same two flows, each with its own connection number.
    fn tcp_ends(
        &self,
        c: &ConnectionSpec,
        fwd: usize,
        rev: usize,
        src: usize,
        flows: &mut [Flow],
        endpoints: &mut Vec<Endpoint>,
    ) {
        let (there, back) = (
            tcp_params(&c.source),
            c.reverse_source
                .as_deref()
                .filter(|r| r.kind == SourceKind::Tcp)
                .map(tcp_params),
        );
        let end = |send: Option<&TcpParams>, recv: Option<&TcpParams>| {
            raw_end(AnyTransport::Tcp(Box::new(TcpEnd {
                sender: send.map(|p| TcpSender::new(p.clone())),
                receiver: recv.map(|p| TcpReceiver::new(p.clone())),
                idle_restart: crate::transport::tcp::IdleRestart::Never,
            })))
        };
        let dst = flows[fwd].rx_endpoint(0) as usize; // connection 0's receiving end
        if back.is_some() {
            endpoints[src].app = end(Some(&there), back.as_ref());
            endpoints[dst].app = end(back.as_ref(), Some(&there));
        }
        for k in 1..c.source.bundle as u16 {
            let pair = (
                end(Some(&there), back.as_ref()),
                end(back.as_ref(), Some(&there)),
            );
            self.bundle_member(c, k, (fwd, rev), pair, "tcp_receiver", flows, endpoints);
        }
    }

    /// With `source.bundle = k`, XTPX connections 1..k-1 on the same two flows as connection
    /// 0, each with its own connection number.
    fn xtpx_bundle(
        &self,
        c: &ConnectionSpec,
        fwd: usize,
        rev: usize,
        flows: &mut [Flow],
        endpoints: &mut Vec<Endpoint>,
    ) {
        let p = xtpx_params(&c.source);
        for k in 1..c.source.bundle as u16 {
            let end = |e: XtpxEnd| raw_end(AnyTransport::Xtpx(Box::new(e)));
            let pair = (
                end(XtpxEnd::sender(p.clone())),
                end(XtpxEnd::receiver(p.clone())),
            );
            self.bundle_member(c, k, (fwd, rev), pair, "xtpx_receiver", flows, endpoints);
        }
    }

    /// Connection `k` of a bundle on flows `fwd`/`rev`: its sending end (`apps.0`, on `fwd`)
    /// and receiving end (`apps.1`, named `connections.NAME.RX#k`), each flow handing frames
    /// numbered `k` to the far end.
    #[allow(clippy::too_many_arguments)]
    fn bundle_member(
        &self,
        c: &ConnectionSpec,
        k: u16,
        (fwd, rev): (usize, usize),
        apps: (AnySource, AnySource),
        rx: &str,
        flows: &mut [Flow],
        endpoints: &mut Vec<Endpoint>,
    ) {
        let (a, b) = (endpoints.len(), endpoints.len() + 1);
        let mut ea = self.endpoint(fwd, apps.0, format!("connections.{}.source#{k}", c.name));
        let mut eb = self.endpoint(rev, apps.1, format!("connections.{}.{rx}#{k}", c.name));
        (ea.conn, eb.conn) = (k, k);
        endpoints.push(ea);
        endpoints.push(eb);
        flows[fwd].set_rx(k, b as u32);
        flows[rev].set_rx(k, a as u32);
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
            source: c.source.clone(),
            first_link_mbps: link_mbps[&(ids[0], ids[1])],
            make_source: source_app,
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


