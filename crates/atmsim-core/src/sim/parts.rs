//! Endpoint, source shaper and bundle monitor (to move to host/ and metrics/).

use crate::metrics::*;
use crate::policing::Contract;
use crate::tcp::{TcpReceiver, TcpSender};
use crate::time::*;
use crate::traffic::{AnySource, Rng};
use crate::wire::Cell;
use std::collections::VecDeque;

/// A source shaper (I.371 traffic shaping): cells wait in a FIFO until they conform to the
/// contract's GCRA(s) in virtual-scheduling form, so a shaped stream always passes UPC.
pub struct Shaper {
    pub(crate) pcr: crate::policing::VirtualScheduling,
    pub(crate) scr: Option<crate::policing::VirtualScheduling>,
    pub(crate) queue: VecDeque<Cell>,
    pub(crate) pending: bool,
    /// Most cells waiting at once.
    pub max_queue: usize,
}

impl Shaper {
    pub(crate) fn new(c: &Contract) -> Self {
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
    pub(crate) fn earliest(&self) -> SimTime {
        let p = self.pcr.tat().saturating_sub(self.pcr.limit_ps());
        self.scr
            .as_ref()
            .map_or(p, |s| p.max(s.tat().saturating_sub(s.limit_ps())))
    }

    pub(crate) fn take(&mut self, t: SimTime) {
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
    pub(crate) name: String,
    /// Connections measured together.
    pub(crate) members: Vec<String>,
    pub(crate) window_ps: SimDuration,
    pub(crate) window_end: SimTime,
    pub(crate) count: u32,
    pub(crate) counts: Vec<u32>,
    pub(crate) times: Vec<SimTime>,
    pub(crate) margin: f64,
    pub(crate) tolerance: f64,
}

impl Monitor {
    #[inline]
    pub(crate) fn record(&mut self, now: SimTime) {
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
    pub(crate) fn propose(&self, end: SimTime) -> Option<ProposedContract> {
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

/// An application attached to the sending end of a flow.
pub struct Endpoint {
    pub flow: u32,
    pub app: AnySource,
    pub(crate) rng: Rng,
    pub(crate) timer_at: Option<SimTime>,
    /// ABR sources: the ACR integral at the end of warm-up.
    pub(crate) acr_mark: f64,
    /// TCP: the sender's counters, the receiver's in-order bytes at the end of warm-up.
    pub(crate) tcp_mark: Option<Box<(crate::tcp::TcpStats, u64)>>,
}

pub fn tcp_sender(app: &AnySource) -> Option<&TcpSender> {
    match app {
        AnySource::Tcp(t) => Some(t),
        AnySource::Abr(a) => a.tcp(),
        _ => None,
    }
}

pub fn tcp_receiver(app: &AnySource) -> Option<&TcpReceiver> {
    match app {
        AnySource::TcpSink(r) => Some(r),
        AnySource::AbrDest(d) => d.tcp.as_deref(),
        _ => None,
    }
}
