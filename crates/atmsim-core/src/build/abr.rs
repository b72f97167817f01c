//! Building ABR connections (TM 4.0 end systems on both ends of a control loop, one loop per
//! segment between VS/VD switches, or one loop each way) and the ABR parameters, feeds and
//! switch schemes from their scenario sections.

use crate::abr::switch::{
    Aprc, Capc, Charny, Efci, Eprca, Metered, Osu, Phantom, RelativeRate, Ucsc,
};
use crate::abr::{AbrParams, AbrSource, Erica, Feed, PortScheme, Thresholds};
use crate::app::AnyApp;
use crate::build::*;
use crate::host::abr_end::{Above, AbrEnd};
use crate::host::AnySource;
use crate::net::*;
use crate::scenario::{
    default_av, default_capc_erf, default_capc_qt_cells, default_dpf, default_dqt_cells,
    default_eprca_erf, default_eprca_qt_cells, default_eru, default_mrf, default_rdn, default_rup,
    default_uf, AbrSchemeSpec, AbrSpec, CcrSource, ConnectionSpec, EricaVariant, SchemeKind,
    SourceKind, SourceSpec,
};
use crate::sim::*;
use crate::time::*;
use std::collections::VecDeque;

impl Builder<'_> {
    /// An ABR control loop's two flows, paired; their indices and the forward one-way delay.
    fn abr_pair(&self, flows: &mut Vec<Flow>, f: Flow, r: Flow) -> (usize, usize, u64) {
        let (fwd, rev) = (flows.len(), flows.len() + 1);
        let one_way: u64 = f
            .ports
            .iter()
            .map(|&p| self.ports[p as usize].link.delay_ps)
            .sum();
        flows.push(f);
        flows.push(r);
        flows[fwd].pair = rev as u32;
        flows[rev].pair = fwd as u32;
        (fwd, rev, one_way)
    }

    /// The rate of the first link of `route` (node names), Mb/s.
    pub(crate) fn first_rate(&self, route: &[String]) -> f64 {
        self.link_mbps[&(self.node_id[&route[0]], self.node_id[&route[1]])]
    }

    /// ABR both ways (validated: no VS/VD on the route): each end runs the source of its
    /// direction and is the destination of the other's, turning that direction's FRMs around
    /// in rate on its own flow (SES rule 3b, DES rules 1-4). Both flows carry backward RM cells
    /// of the other loop.
    pub(crate) fn abr_two_way(
        &self,
        c: &ConnectionSpec,
        abr: &AbrSpec,
        flows: &mut Vec<Flow>,
        endpoints: &mut Vec<Endpoint>,
    ) {
        let frame = c.source.frame_bytes.map(|f| f as u32);
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
        let (fwd, rev, one_way) = self.abr_pair(
            flows,
            self.flow(c.name.clone(), &c.route, c.category, frame, true),
            self.flow(
                format!("{}.reverse", c.name),
                &back,
                c.category,
                rframe,
                true,
            ),
        );
        let end = |route: &[String], s: &SourceSpec| {
            let (feed, above) = abr_feeder(source_app(s, 0.0), s);
            let mut a = AbrSource::new(abr_params(abr, self.first_rate(route), 2 * one_way), feed);
            a.turnaround = true;
            AnySource::Abr(Box::new(AbrEnd::source(a, above)))
        };
        let a_end = endpoints.len();
        endpoints.push(self.endpoint(
            fwd,
            end(&c.route, &c.source),
            format!("connections.{}.source", c.name),
        ));
        let b_end = endpoints.len();
        endpoints.push(self.endpoint(
            rev,
            end(&back, &rs),
            format!("connections.{}.reverse_source", c.name),
        ));
        flows[fwd].set_rx(0, b_end as u32);
        flows[rev].set_rx(0, a_end as u32);
    }

    /// ABR: one control loop per segment, split at VS/VD switches; each segment has its
    /// forward flow (source -> destination) and its backward flow (BRMs).
    pub(crate) fn abr_segments(
        &self,
        c: &ConnectionSpec,
        abr: &AbrSpec,
        flows: &mut Vec<Flow>,
        endpoints: &mut Vec<Endpoint>,
    ) {
        let (sc, node_id) = (self.sc, self.node_id);
        let frame = c.source.frame_bytes.map(|f| f as u32);
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
        // what sits above the loop's two ends: the hosts a plain VC would have at its ends
        // (validated: no VS/VD between them), or a cell-level application at the source
        let (mut first, mut last, k) = match self.host_ends(c) {
            Some((tx, rx, k)) => (Some(tx), Some(rx), k),
            None => (Some(source_app(&c.source, 0.0)), None, 1),
        };
        let mut prev: Option<(usize, u64)> = None;
        for (i, w) in bounds.windows(2).enumerate() {
            let seg = &c.route[w[0]..=w[1]];
            let name = if i == 0 {
                c.name.clone()
            } else {
                format!("{}.seg{i}", c.name)
            };
            let back: Vec<String> = seg.iter().rev().cloned().collect();
            let (fwd, rev, one_way) = self.abr_pair(
                flows,
                self.flow(name.clone(), seg, c.category, frame, false),
                self.flow(format!("{name}.reverse"), &back, c.category, None, true),
            );
            let params = abr_params(abr, self.first_rate(seg), 2 * one_way);
            let (feed, above) = if let Some(tx) = first.take() {
                abr_feeder(tx, &c.source)
            } else {
                (Feed::Relay(VecDeque::new()), Above::Nothing)
            };
            let key = if i == 0 {
                format!("connections.{}", c.name)
            } else {
                format!("connections.{}.seg{i}", c.name)
            };
            let src = endpoints.len();
            endpoints.push(self.endpoint(
                fwd,
                AnySource::Abr(Box::new(AbrEnd::source(
                    AbrSource::new(params, feed),
                    above,
                ))),
                format!("{key}.source"),
            ));
            let dst = endpoints.len();
            let mut above = Above::Nothing;
            if i + 1 == bounds.len() - 1 {
                if let Some(rx) = last.take() {
                    above = host_above(rx);
                    flows[fwd].sar.framed = true;
                    flows[rev].sar.framed = true;
                }
            }
            endpoints.push(self.endpoint(
                rev,
                AnySource::Abr(Box::new(AbrEnd::dest(above))),
                format!("{key}.abr_destination"),
            ));
            // every transport connection's frames reach the host at the far end
            for conn in 0..k {
                flows[fwd].set_rx(conn, dst as u32);
                flows[rev].set_rx(conn, src as u32);
            }
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

/// An ABR end system's parameters; `first_link_mbps` and `frtt_ps` (the built loop's round
/// trip) stand in for an absent `pcr_mbps` and `frtt_us`.
pub(crate) fn abr_params(a: &AbrSpec, first_link_mbps: f64, frtt_ps: u64) -> AbrParams {
    let pcr = a.pcr_mbps.unwrap_or(first_link_mbps);
    let nrm = a.nrm as u32;
    let tbe = a.tbe as f64;
    let frtt_s = a.frtt_us.map(|u| u * 1e-6).unwrap_or(ps_to_secs(frtt_ps));
    let mut icr = a.icr_mbps.unwrap_or(pcr);
    if a.icr_tbe_limit && frtt_s > 0.0 {
        icr = icr.min(tbe * CELL_BITS as f64 / frtt_s / 1e6); // at setup: ICR <- min(ICR, TBE/FRTT)
    }
    let mcr = a.mcr_mbps;
    AbrParams {
        pcr,
        mcr,
        icr: icr.max(mcr),
        rif: a.rif,
        rdf: a.rdf,
        nrm,
        mrm: a.mrm as u32,
        trm: secs_to_ps(a.trm_ms / 1e3),
        cdf: a.cdf,
        crm: (tbe / nrm as f64).ceil() as u32,
        adtf: secs_to_ps(a.adtf_s),
    }
}

/// What feeds an ABR source whose source spec is `s` and whose sending end on a plain VC
/// would be `end`, and where its data waits: a host's frames wait as AAL5 frames, a cell-level
/// application's cells are counted, a persistent source is the source's own supply.
pub(crate) fn abr_feeder(end: AnySource, s: &SourceSpec) -> (Feed, Above) {
    let start = secs_to_ps(s.start_s);
    let stop = s.stop_s.map(secs_to_ps).unwrap_or(SimTime::MAX);
    match end {
        AnySource::App(AnyApp::Idle) => (
            Feed::Persistent {
                start: SimTime::MAX,
                stop: SimTime::MAX,
            },
            Above::Nothing,
        ),
        AnySource::App(AnyApp::Cbr(_)) if s.kind == SourceKind::Persistent => {
            (Feed::Persistent { start, stop }, Above::Nothing)
        }
        AnySource::App(a) => (Feed::Cells, Above::App(a)),
        host @ AnySource::Host(_) => (Feed::Frames(Default::default()), host_above(host)),
        AnySource::Abr(_) => unreachable!("a source spec builds no ABR end"),
    }
}

/// A host endpoint as what sits above an ABR end.
fn host_above(e: AnySource) -> Above {
    match e {
        AnySource::Host(h) => Above::Host(h),
        _ => unreachable!("built as a host"),
    }
}

pub(crate) fn port_scheme(spec: Option<&AbrSchemeSpec>) -> PortScheme {
    let Some(a) = spec else {
        return PortScheme::None;
    };
    let th = || Thresholds {
        high: a.high_cells.expect("validated: efci/rr need high_cells") as u32,
        low: a.low_cells.expect("validated: efci/rr need low_cells") as u32,
        congested: false,
    };
    match a.scheme {
        SchemeKind::None => PortScheme::None,
        SchemeKind::Efci => PortScheme::Efci(Efci(th())),
        SchemeKind::RelativeRate => PortScheme::RelativeRate(RelativeRate(th())),
        SchemeKind::Erica | SchemeKind::EricaPlus => PortScheme::Erica(Box::new(Erica {
            plus: a.scheme == SchemeKind::EricaPlus,
            target_utilization: a.target_utilization,
            interval: secs_to_ps(a.interval_s),
            // absent: no cell count ends the interval
            interval_cells: a.interval_cells.map(|v| v as u32).unwrap_or(u32::MAX),
            basic: a.variant == EricaVariant::Basic,
            measured_ccr: a.ccr == CcrSource::Measured,
            delta: a.delta,
            one_feedback: a.one_feedback_per_interval,
            t0_s: a.t0_us * 1e-6,
            a: a.a,
            b: a.b,
            qdlf: a.qdlf,
            ..Default::default()
        })),
        SchemeKind::Eprca => PortScheme::Eprca(Box::new(eprca(a))),
        SchemeKind::Aprc => PortScheme::Aprc(metered(
            a,
            1.0,
            Aprc {
                core: eprca(a),
                ..Default::default()
            },
        )),
        SchemeKind::Capc => PortScheme::Capc(metered(
            a,
            a.target_utilization,
            Capc {
                rup: a.rup.unwrap_or(default_rup()),
                rdn: a.rdn.unwrap_or(default_rdn()),
                eru: a.eru.unwrap_or(default_eru()),
                erf: a.erf.unwrap_or(default_capc_erf()),
                qt: a.qt_cells.unwrap_or(default_capc_qt_cells()) as u32,
                ..Default::default()
            },
        )),
        SchemeKind::Osu => PortScheme::Osu(metered(
            a,
            a.target_utilization,
            Osu {
                delta: a.delta,
                ..Default::default()
            },
        )),
        SchemeKind::Charny => {
            PortScheme::Charny(metered(a, a.target_utilization, Charny::default()))
        }
        SchemeKind::Ucsc => PortScheme::Ucsc(metered(a, a.target_utilization, Ucsc::default())),
        SchemeKind::Phantom => PortScheme::Phantom(metered(
            a,
            1.0,
            Phantom {
                uf: a.uf.unwrap_or(default_uf()),
                av: a.av.unwrap_or(default_av()),
                ..Default::default()
            },
        )),
    }
}

/// A scheme timed by the clock interval `interval_s` with target utilization `u` (1: the whole
/// ABR capacity, APRC and Phantom).
fn metered<R>(a: &AbrSchemeSpec, u: f64, rule: R) -> Box<Metered<R>> {
    Box::new(Metered::new(secs_to_ps(a.interval_s), u, rule))
}

/// EPRCA's parameters (also APRC's core) with the defaults of `abr/switch/eprca.rs`.
fn eprca(a: &AbrSchemeSpec) -> Eprca {
    Eprca {
        av: a.av.unwrap_or(default_av()),
        dpf: a.dpf.unwrap_or(default_dpf()),
        erf: a.erf.unwrap_or(default_eprca_erf()),
        mrf: a.mrf.unwrap_or(default_mrf()),
        qt: a.qt_cells.unwrap_or(default_eprca_qt_cells()) as u32,
        dqt: a.dqt_cells.unwrap_or(default_dqt_cells()) as u32,
        ..Default::default()
    }
}
