//! The bundle monitor of the adaptive contract proposal (seed 001 section 6.2): the cells a bundle
//! of connections sent, counted per window, with every cell's emission time for fitting CDVT and
//! MBS ([`crate::policing::fit_bursts`]).

use crate::metrics::ProposedContract;
use crate::time::*;

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

/// What the memory budget calls a monitor's records (`crate::budget`).
const MONITOR: &str = "the cell times of a bundle monitor (propose_contract)";

impl Monitor {
    /// Out of line: only monitored connections call it, and its memory accounting
    /// (`crate::budget`) is kept out of the per-cell emission of every other.
    #[inline(never)]
    pub(crate) fn record(&mut self, now: SimTime) {
        while now >= self.window_end {
            crate::budget::vec_push(&self.counts, MONITOR);
            self.counts.push(self.count);
            self.count = 0;
            self.window_end += self.window_ps;
        }
        self.count += 1;
        crate::budget::vec_push(&self.times, MONITOR);
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
