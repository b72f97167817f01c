//! ABR feedback schemes of a switch output port: the extension point.
//!
//! Each scheme is one file and implements [`SwitchScheme`], whose hooks default to doing
//! nothing; [`PortScheme`] lists the schemes and forwards each hook to
//! the scheme of its variant, one `match` per method (the pattern of smoltcp
//! `src/socket/tcp/congestion.rs`: enum dispatch, no `dyn` in the hot path). Adding a scheme
//! means a new file, a variant here and one arm per method.
//!
//! - [`efci`]: EFCI marking of forward data cells with queue thresholds ([`Thresholds`]).
//! - [`rr`]: relative-rate marking (CI / NI) of backward RM cells, same thresholds.
//! - [`erica`]: ERICA and ERICA+ explicit rate (Jain, Kalyanaraman et al.; seeds 000 and 003).
//!
//! Source: ATM Forum TM 4.0 (af-tm-0056.000) section 5.10 and `../shared/SPEC-ABR.md` ("Switch
//! feedback schemes"). Feedback is written into backward RM cells with the measurements of the
//! VC's forward port.
//!
//! The EFCI and relative-rate variants both hold a [`Thresholds`]; their [`SwitchScheme`] impls
//! are the views [`Efci`] and [`RelativeRate`] over it, built in the `match` arm. Hooks that
//! only read (`&self`) have nothing to do for them and forward to [`NoScheme`].

pub mod efci;
pub mod erica;
pub mod rr;

pub use efci::{Efci, Thresholds};
pub use erica::{erica_plus_fraction, Erica, VcState};
pub use rr::RelativeRate;

use crate::metrics::probe::{ColumnDecl, Row, TableDecl, PORT_KEY};
use crate::time::SimTime;
use crate::wire::{Cell, RmFields};

/// The hooks of an ABR feedback scheme at one output port; every hook defaults to nothing.
pub trait SwitchScheme {
    /// The simulation starts: the port's line rate and the number of VCs (flows) that cross
    /// the port, numbered 0..n_vcs at this port (`Flow::vc_slot`: the `vc` of the other hooks).
    /// Returns the first time the scheme's averaging interval ends (None: no interval timer).
    fn start(&mut self, _line_mbps: f64, _n_vcs: usize) -> Option<SimTime> {
        None
    }

    /// A forward ABR cell enters the port (before buffer admission: the offered load) with
    /// `abr_queue` ABR cells waiting; `vc` is the cell's VC at this port. The scheme may mark it.
    /// Returns true when this cell closes the averaging interval.
    fn on_forward(&mut self, _abr_queue: u32, _vc: u32, _cell: &mut Cell) -> bool {
        false
    }

    /// When the current averaging interval ends (None: the scheme has no intervals).
    fn next_deadline(&self) -> Option<SimTime> {
        None
    }

    /// End the current averaging interval now and start the next; what it measured, if
    /// anything.
    fn close_interval(
        &mut self,
        _now: SimTime,
        _line_mbps: f64,
        _hp_cells: u64,
        _abr_queue: u32,
        _in_window: bool,
    ) -> Option<IntervalRecord> {
        None
    }

    /// A backward RM cell of the VC `vc` (at this port) whose forward flow leaves by this port,
    /// with `abr_queue` ABR cells waiting here: the scheme writes its feedback into the cell.
    fn on_backward(&mut self, _vc: u32, _abr_queue: u32, _rm: &mut RmFields) {}

    /// Averaging intervals closed after warm-up (None: the scheme has no intervals).
    fn intervals_closed(&self) -> Option<u64> {
        None
    }

    /// Means over the intervals closed after warm-up (None: no intervals, or none closed).
    fn interval_means(&self) -> Option<IntervalMeans> {
        None
    }
}

/// Means over the averaging intervals closed after warm-up (the port summary's ERICA fields).
#[derive(Clone, Copy, Debug)]
pub struct IntervalMeans {
    /// Mean load factor z.
    pub z: f64,
    /// Mean FairShare, Mb/s.
    pub fair_mbps: f64,
    /// Mean ABR capacity, Mb/s.
    pub abr_capacity_mbps: f64,
}

/// No feedback: the port treats ABR cells like any other (every hook does nothing).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoScheme;

impl SwitchScheme for NoScheme {}

/// The ABR scheme of one output port.
#[derive(Clone, Debug)]
pub enum PortScheme {
    None,
    Efci(Thresholds),
    RelativeRate(Thresholds),
    Erica(Box<Erica>),
}

impl PortScheme {
    /// No feedback scheme at this port (ABR cells need not be shown to it).
    #[inline]
    pub fn is_none(&self) -> bool {
        matches!(self, PortScheme::None)
    }

    /// See [`SwitchScheme::start`].
    pub fn start(&mut self, line_mbps: f64, n_vcs: usize) -> Option<SimTime> {
        match self {
            PortScheme::None => NoScheme.start(line_mbps, n_vcs),
            PortScheme::Efci(th) => Efci(th).start(line_mbps, n_vcs),
            PortScheme::RelativeRate(th) => RelativeRate(th).start(line_mbps, n_vcs),
            PortScheme::Erica(e) => e.start(line_mbps, n_vcs),
        }
    }

    /// See [`SwitchScheme::on_forward`].
    #[inline]
    pub fn on_forward(&mut self, abr_queue: u32, vc: u32, cell: &mut Cell) -> bool {
        match self {
            PortScheme::None => NoScheme.on_forward(abr_queue, vc, cell),
            PortScheme::Efci(th) => Efci(th).on_forward(abr_queue, vc, cell),
            PortScheme::RelativeRate(th) => RelativeRate(th).on_forward(abr_queue, vc, cell),
            PortScheme::Erica(e) => e.on_forward(abr_queue, vc, cell),
        }
    }

    /// See [`SwitchScheme::next_deadline`].
    pub fn next_deadline(&self) -> Option<SimTime> {
        match self {
            PortScheme::None | PortScheme::Efci(_) | PortScheme::RelativeRate(_) => {
                NoScheme.next_deadline()
            }
            PortScheme::Erica(e) => e.next_deadline(),
        }
    }

    /// See [`SwitchScheme::close_interval`].
    pub fn close_interval(
        &mut self,
        now: SimTime,
        line_mbps: f64,
        hp_cells: u64,
        abr_queue: u32,
        in_window: bool,
    ) -> Option<IntervalRecord> {
        match self {
            PortScheme::None => {
                NoScheme.close_interval(now, line_mbps, hp_cells, abr_queue, in_window)
            }
            PortScheme::Efci(th) => {
                Efci(th).close_interval(now, line_mbps, hp_cells, abr_queue, in_window)
            }
            PortScheme::RelativeRate(th) => {
                RelativeRate(th).close_interval(now, line_mbps, hp_cells, abr_queue, in_window)
            }
            PortScheme::Erica(e) => {
                e.close_interval(now, line_mbps, hp_cells, abr_queue, in_window)
            }
        }
    }

    /// See [`SwitchScheme::on_backward`].
    #[inline]
    pub fn on_backward(&mut self, vc: u32, abr_queue: u32, rm: &mut RmFields) {
        match self {
            PortScheme::None => NoScheme.on_backward(vc, abr_queue, rm),
            PortScheme::Efci(th) => Efci(th).on_backward(vc, abr_queue, rm),
            PortScheme::RelativeRate(th) => RelativeRate(th).on_backward(vc, abr_queue, rm),
            PortScheme::Erica(e) => e.on_backward(vc, abr_queue, rm),
        }
    }

    /// See [`SwitchScheme::intervals_closed`].
    pub fn intervals_closed(&self) -> Option<u64> {
        match self {
            PortScheme::None | PortScheme::Efci(_) | PortScheme::RelativeRate(_) => {
                NoScheme.intervals_closed()
            }
            PortScheme::Erica(e) => e.intervals_closed(),
        }
    }

    /// See [`SwitchScheme::interval_means`].
    pub fn interval_means(&self) -> Option<IntervalMeans> {
        match self {
            PortScheme::None | PortScheme::Efci(_) | PortScheme::RelativeRate(_) => {
                NoScheme.interval_means()
            }
            PortScheme::Erica(e) => e.interval_means(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::{RM_CI, RM_NI};
    use crate::wire::{H_EFCI, H_RM};

    fn th() -> Thresholds {
        Thresholds {
            high: 10,
            low: 5,
            congested: false,
        }
    }

    /// The dispatch does what the schemes' own functions do, and nothing for the others.
    #[test]
    fn threshold_schemes_dispatch_to_their_marking() {
        let data = Cell::default();
        for q in [0u32, 6, 11, 7, 3] {
            let mut s = PortScheme::Efci(th());
            let mut reference = th();
            let (mut a, mut b) = (data, data);
            assert!(!s.on_forward(q, 0, &mut a));
            PortScheme::mark_efci(&mut reference, q, &mut b);
            assert_eq!(a.hdr, b.hdr);
            let mut rm = RmFields::default();
            s.on_backward(0, q, &mut rm);
            assert_eq!(rm.bits, 0, "EFCI leaves backward RM cells alone");
        }
        let mut s = PortScheme::Efci(th());
        let mut c = data;
        s.on_forward(11, 0, &mut c);
        s.on_forward(7, 0, &mut c);
        assert_eq!(c.hdr & H_EFCI, H_EFCI, "hysteresis: still congested at 7");
        for (q, bits) in [(3u32, 0u8), (6, RM_NI), (11, RM_CI)] {
            let mut s = PortScheme::RelativeRate(th());
            let mut rm = RmFields::default();
            s.on_backward(0, q, &mut rm);
            assert_eq!(rm.bits, bits);
            let mut c = data;
            assert!(!s.on_forward(q, 0, &mut c));
            assert_eq!(c.hdr, data.hdr, "RR leaves forward cells alone");
        }
        for mut s in [
            PortScheme::None,
            PortScheme::Efci(th()),
            PortScheme::RelativeRate(th()),
        ] {
            assert_eq!(s.start(100.0, 2), None);
            assert_eq!(s.next_deadline(), None);
            assert!(s.close_interval(1, 100.0, 0, 0, true).is_none());
            assert_eq!(s.intervals_closed(), None);
            assert!(s.interval_means().is_none());
        }
        assert!(PortScheme::None.is_none() && !PortScheme::Efci(th()).is_none());
    }

    #[test]
    fn erica_dispatch_matches_its_own_methods() {
        let mut e = Erica {
            target_utilization: 0.9,
            interval: 5_000_000_000,
            interval_cells: u32::MAX,
            delta: 0.1,
            one_feedback: false,
            ..Default::default()
        };
        let mut s = PortScheme::Erica(Box::new(e.clone()));
        assert_eq!(s.start(100.0, 2), Some(5_000_000_000));
        e.init(100.0, 2);
        assert_eq!(s.intervals_closed(), Some(0));
        assert!(s.interval_means().is_none(), "no interval closed yet");
        let mut frm = Cell {
            flow: 1,
            hdr: H_RM,
            ..Default::default()
        };
        frm.rm.ccr = 30.0;
        for _ in 0..100 {
            assert_eq!(s.on_forward(0, 1, &mut frm), e.on_input(1, &frm));
        }
        let r = s.close_interval(5_000_000_000, 100.0, 0, 0, true).unwrap();
        let r0 = e.end_interval(5_000_000_000, 100.0, 0, 0, true).unwrap();
        assert_eq!((r.z, r.fair, r.target), (r0.z, r0.fair, r0.target));
        assert_eq!(s.next_deadline(), Some(e.deadline));
        let mut rm = RmFields {
            er: 150.0,
            ..Default::default()
        };
        s.on_backward(1, 0, &mut rm);
        assert_eq!(rm.er, 150f32.min(e.feedback(1) as f32));
        assert_eq!(s.intervals_closed(), Some(1));
        let m = s.interval_means().unwrap();
        assert_eq!(m.z, e.z_sum / e.n_intervals as f64);
        assert_eq!(m.fair_mbps, e.fair_sum / e.n_intervals as f64);
        assert_eq!(m.abr_capacity_mbps, e.cap_sum / e.n_intervals as f64);
    }
}

/// What the end of a scheme's averaging interval measured (one row of the `abr_ports` series;
/// ERICA and ERICA+ measure intervals, `abr/switch/erica.rs`). Moved from `erica.rs`: it is what
/// [`SwitchScheme::close_interval`] returns, so it belongs to the face.
#[derive(Clone, Copy, Debug)]
pub struct IntervalRecord {
    pub z: f64,
    pub fair: f64,
    pub abr_capacity: f64,
    pub input: f64,
    pub target: f64,
    /// The largest ER the port gave in the interval (MaxAllocCurrent), Mb/s.
    pub er_max: f64,
    /// ABR cells waiting at the port when the interval ended.
    pub abr_queue: u32,
}

impl IntervalRecord {
    /// The `abr_ports` series: one row per ERICA / ERICA+ port and averaging interval.
    pub const PROBES: TableDecl = TableDecl {
        name: "abr_ports",
        doc: "Every ERICA / ERICA+ port at the end of each averaging interval",
        key: PORT_KEY,
        columns: &[
            ColumnDecl::f64("z", "", "Load factor: ABR input rate / target rate")
                .plot("abr_ports", "load factor z"),
            ColumnDecl::f64(
                "fairshare_mbps",
                "Mb/s",
                "FairShare: target rate / VCs active in the interval",
            )
            .plot("abr_ports", "fair share"),
            ColumnDecl::f64(
                "abr_capacity_mbps",
                "Mb/s",
                "ABR capacity: the line rate less what higher-priority categories used",
            ),
            ColumnDecl::f64(
                "input_mbps",
                "Mb/s",
                "ABR cells offered to the port over the interval (before admission)",
            ),
            ColumnDecl::f64(
                "target_mbps",
                "Mb/s",
                "Target rate: ABR capacity x target utilization (ERICA+: x f(queue delay))",
            ),
            ColumnDecl::f64(
                "er_max_mbps",
                "Mb/s",
                "The largest ER the port gave in the interval (MaxAllocCurrent)",
            ),
            ColumnDecl::u32(
                "abr_queue_cells",
                "cells",
                "ABR cells waiting at the port when the interval ended",
            ),
        ],
        always: false,
        active: "input_mbps",
    };

    /// Fill this interval's row of the `abr_ports` series.
    pub fn probe(&self, mut row: Row<'_>) {
        row.f64("z", self.z)
            .f64("fairshare_mbps", self.fair)
            .f64("abr_capacity_mbps", self.abr_capacity)
            .f64("input_mbps", self.input)
            .f64("target_mbps", self.target)
            .f64("er_max_mbps", self.er_max)
            .u32("abr_queue_cells", self.abr_queue);
    }
}
