//! ABR feedback schemes of a switch output port: the extension point.
//!
//! Each scheme is one file and implements [`SwitchScheme`], whose hooks default to doing
//! nothing; [`PortScheme`] lists the schemes, and the `port_schemes!` macro below writes the
//! enum and its methods, each forwarding a hook to the scheme of its variant with one `match`
//! (static dispatch, the pattern of smoltcp `src/socket/tcp/congestion.rs`: no `dyn` in the hot
//! path). Adding a scheme is a new file and one line in the macro's list (then its
//! `SchemeKind`, keys and checks in `scenario/`, and its arm in `build/abr.rs`'s `port_scheme`).
//! A scheme timed by a clock interval writes only its rule, a [`MeteredRule`], and its variant
//! holds a [`Metered`] of it: [`metered`] has the meter, the load factor, the interval record and
//! the means they all share, and implements [`SwitchScheme`] for them.
//!
//! - [`efci`]: EFCI marking of forward data cells with queue thresholds ([`Thresholds`]).
//! - [`rr`]: relative-rate marking (CI / NI) of backward RM cells, same thresholds.
//! - [`erica`]: ERICA and ERICA+ explicit rate (Jain, Kalyanaraman et al.; seeds 000 and 003).
//! - [`eprca`]: EPRCA (Roberts, ATM Forum/94-0735R1): MACR, DPF, ERF, MRF, queue thresholds.
//! - [`aprc`]: APRC (Siu and Tzeng, ATM Forum/94-0888): EPRCA with congestion = queue growth.
//! - [`capc`]: CAPC (Barnhart, ATM Forum/94-0983R1): one explicit rate per port, proportional
//!   to the load.
//! - [`osu`]: the OSU scheme (Jain, Kalyanaraman, Viswanathan, ATM Forum/94-0883): CCR / load
//!   factor with the target utilization band.
//! - [`phantom`]: Phantom (Afek, Mansour, Ostfeld): the unused capacity as one more session.
//! - [`charny`]: Charny's consistent marking (Charny, Clark, Jain): the advertised rate of the
//!   VCs not bottlenecked elsewhere.
//! - [`ucsc`]: the UCSC scheme (Kalampoukas, Varma, Ramakrishnan): restricted and unrestricted
//!   VCs, the equal share of what the restricted ones leave, O(1) per RM cell.
//!
//! Source: ATM Forum TM 4.0 (af-tm-0056.000) section 5.10 and `../shared/SPEC-ABR.md` ("Switch
//! feedback schemes"); each scheme's file cites its own. Feedback is written into backward RM
//! cells with the measurements of the VC's forward port. No hook allocates: per-VC state is
//! sized in [`SwitchScheme::start`].

pub mod aprc;
pub mod capc;
pub mod charny;
pub mod efci;
pub mod eprca;
pub mod erica;
pub mod metered;
pub mod osu;
pub mod phantom;
pub mod rr;
pub mod ucsc;

#[cfg(test)]
#[path = "fixtures_tests.rs"]
mod testing;

pub use aprc::Aprc;
pub use capc::Capc;
pub use charny::Charny;
pub use efci::{Efci, Thresholds};
pub use eprca::Eprca;
pub use erica::{erica_plus_fraction, Erica, VcState};
pub use metered::{
    load_factor, Allocation, IntervalMeter, MeansSum, Measurement, Metered, MeteredRule,
};
pub use osu::Osu;
pub use phantom::Phantom;
pub use rr::RelativeRate;
pub use ucsc::Ucsc;

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

    /// The sums of the means over the intervals closed after warm-up (None: the scheme has no
    /// intervals); [`SwitchScheme::intervals_closed`] and [`SwitchScheme::interval_means`]
    /// default to them.
    fn means_sum(&self) -> Option<&MeansSum> {
        None
    }

    /// Averaging intervals closed after warm-up (None: the scheme has no intervals).
    fn intervals_closed(&self) -> Option<u64> {
        self.means_sum().map(|s| s.n)
    }

    /// Means over the intervals closed after warm-up (None: no intervals, or none closed).
    fn interval_means(&self) -> Option<IntervalMeans> {
        self.means_sum().and_then(MeansSum::means)
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

/// Writes [`PortScheme`] (a unit `None` and one variant per scheme) and its methods, each a
/// `match` that forwards to the variant's [`SwitchScheme`] hook.
macro_rules! port_schemes {
    ($($(#[$doc:meta])* $variant:ident($ty:ty),)*) => {
        /// The ABR scheme of one output port.
        #[derive(Clone, Debug)]
        pub enum PortScheme {
            /// No feedback: the port treats ABR cells like any other.
            None,
            $($(#[$doc])* $variant($ty),)*
        }

        impl PortScheme {
            /// See [`SwitchScheme::start`].
            pub fn start(&mut self, line_mbps: f64, n_vcs: usize) -> Option<SimTime> {
                match self {
                    PortScheme::None => NoScheme.start(line_mbps, n_vcs),
                    $(PortScheme::$variant(s) => s.start(line_mbps, n_vcs),)*
                }
            }

            /// See [`SwitchScheme::on_forward`].
            #[inline]
            pub fn on_forward(&mut self, abr_queue: u32, vc: u32, cell: &mut Cell) -> bool {
                match self {
                    PortScheme::None => NoScheme.on_forward(abr_queue, vc, cell),
                    $(PortScheme::$variant(s) => s.on_forward(abr_queue, vc, cell),)*
                }
            }

            /// See [`SwitchScheme::next_deadline`].
            pub fn next_deadline(&self) -> Option<SimTime> {
                match self {
                    PortScheme::None => NoScheme.next_deadline(),
                    $(PortScheme::$variant(s) => s.next_deadline(),)*
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
                    $(PortScheme::$variant(s) => {
                        s.close_interval(now, line_mbps, hp_cells, abr_queue, in_window)
                    })*
                }
            }

            /// See [`SwitchScheme::on_backward`].
            #[inline]
            pub fn on_backward(&mut self, vc: u32, abr_queue: u32, rm: &mut RmFields) {
                match self {
                    PortScheme::None => NoScheme.on_backward(vc, abr_queue, rm),
                    $(PortScheme::$variant(s) => s.on_backward(vc, abr_queue, rm),)*
                }
            }

            /// See [`SwitchScheme::intervals_closed`].
            pub fn intervals_closed(&self) -> Option<u64> {
                match self {
                    PortScheme::None => NoScheme.intervals_closed(),
                    $(PortScheme::$variant(s) => s.intervals_closed(),)*
                }
            }

            /// See [`SwitchScheme::interval_means`].
            pub fn interval_means(&self) -> Option<IntervalMeans> {
                match self {
                    PortScheme::None => NoScheme.interval_means(),
                    $(PortScheme::$variant(s) => s.interval_means(),)*
                }
            }
        }
    };
}

port_schemes! {
    /// EFCI marking of forward data cells (`efci.rs`).
    Efci(Efci),
    /// Relative-rate marking of backward RM cells (`rr.rs`).
    RelativeRate(RelativeRate),
    /// ERICA / ERICA+ (`erica.rs`).
    Erica(Box<Erica>),
    /// EPRCA (`eprca.rs`).
    Eprca(Box<Eprca>),
    /// APRC (`aprc.rs`).
    Aprc(Box<Metered<Aprc>>),
    /// CAPC (`capc.rs`).
    Capc(Box<Metered<Capc>>),
    /// The OSU scheme (`osu.rs`).
    Osu(Box<Metered<Osu>>),
    /// Phantom (`phantom.rs`).
    Phantom(Box<Metered<Phantom>>),
    /// Charny's consistent marking (`charny.rs`).
    Charny(Box<Metered<Charny>>),
    /// The UCSC scheme (`ucsc.rs`).
    Ucsc(Box<Metered<Ucsc>>),
}

impl PortScheme {
    /// No feedback scheme at this port (ABR cells need not be shown to it).
    #[inline]
    pub fn is_none(&self) -> bool {
        matches!(self, PortScheme::None)
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

    #[allow(non_snake_case)]
    fn Efci_(t: Thresholds) -> PortScheme {
        PortScheme::Efci(Efci(t))
    }

    fn rr(t: Thresholds) -> PortScheme {
        PortScheme::RelativeRate(RelativeRate(t))
    }

    /// The dispatch does what the schemes' own functions do, and nothing for the others.
    #[test]
    fn threshold_schemes_dispatch_to_their_marking() {
        let data = Cell::default();
        for q in [0u32, 6, 11, 7, 3] {
            let mut s = Efci_(th());
            let mut reference = th();
            let (mut a, mut b) = (data, data);
            assert!(!s.on_forward(q, 0, &mut a));
            reference.mark_efci(q, &mut b);
            assert_eq!(a.hdr, b.hdr);
            let mut rm = RmFields::default();
            s.on_backward(0, q, &mut rm);
            assert_eq!(rm.bits, 0, "EFCI leaves backward RM cells alone");
        }
        let mut s = Efci_(th());
        let mut c = data;
        s.on_forward(11, 0, &mut c);
        s.on_forward(7, 0, &mut c);
        assert_eq!(c.hdr & H_EFCI, H_EFCI, "hysteresis: still congested at 7");
        for (q, bits) in [(3u32, 0u8), (6, RM_NI), (11, RM_CI)] {
            let mut s = rr(th());
            let mut rm = RmFields::default();
            s.on_backward(0, q, &mut rm);
            assert_eq!(rm.bits, bits);
            let mut c = data;
            assert!(!s.on_forward(q, 0, &mut c));
            assert_eq!(c.hdr, data.hdr, "RR leaves forward cells alone");
        }
        for mut s in [PortScheme::None, Efci_(th()), rr(th())] {
            assert_eq!(s.start(100.0, 2), None);
            assert_eq!(s.next_deadline(), None);
            assert!(s.close_interval(1, 100.0, 0, 0, true).is_none());
            assert_eq!(s.intervals_closed(), None);
            assert!(s.interval_means().is_none());
        }
        assert!(PortScheme::None.is_none() && !Efci_(th()).is_none());
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
        assert_eq!(m.z, e.sums.z / e.sums.n as f64);
        assert_eq!(m.fair_mbps, e.sums.fair / e.sums.n as f64);
        assert_eq!(m.abr_capacity_mbps, e.sums.cap / e.sums.n as f64);
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
