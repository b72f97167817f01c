//! The part every explicit-rate scheme timed by a clock interval shares (APRC, CAPC, the OSU
//! scheme, Phantom, Charny's consistent marking, UCSC): [`Metered`] counts the ABR cells that
//! enter the port ([`IntervalMeter`]), closes the interval at its deadline with the ABR input
//! rate, the ABR capacity, the target rate U x capacity and the load factor z = input / target,
//! keeps the sums of the port summary's means ([`MeansSum`]) and writes the interval's
//! [`IntervalRecord`]. It implements [`SwitchScheme`] once for all of them; each scheme is a
//! [`MeteredRule`]: its own state and rule only (what it does at the start, with a forward cell,
//! at the end of an interval and with a backward RM cell), in its own file with its sources.
//!
//! Schemes that share all of the ABR capacity (APRC, Phantom) have U = 1: the target rate is then
//! the capacity itself and z = input / capacity.

use super::{IntervalMeans, IntervalRecord, SwitchScheme};
use crate::time::SimTime;
use crate::wire::{Cell, RmFields};

/// An averaging interval timed by the clock (`interval` ps) and the ABR cells that entered the
/// port in it: the measurement of every [`Metered`] scheme.
#[derive(Clone, Debug, Default)]
pub struct IntervalMeter {
    pub interval: SimTime,
    pub start: SimTime,
    pub deadline: SimTime,
    pub abr_in: u32,
}

impl IntervalMeter {
    pub fn new(interval: SimTime) -> Self {
        IntervalMeter {
            interval,
            deadline: interval,
            ..Default::default()
        }
    }

    /// Close the interval at `now`: its length in seconds (None if empty), the ABR input rate
    /// and the ABR capacity (line rate less `hp_cells` of CBR/VBR), Mb/s; the next one starts.
    pub fn close(&mut self, now: SimTime, line_mbps: f64, hp_cells: u64) -> Option<(f64, f64)> {
        if now <= self.start {
            return None;
        }
        let dt = (now - self.start) as f64 / 1e12;
        let mbps = |cells: f64| cells * 424.0 / dt / 1e6;
        let input = mbps(self.abr_in as f64);
        let capacity = (line_mbps - mbps(hp_cells as f64)).max(0.0);
        self.start = now;
        self.deadline = now + self.interval;
        self.abr_in = 0;
        Some((input, capacity))
    }
}

/// Running sums of the interval means of a port's summary ([`IntervalMeans`]).
#[derive(Clone, Debug, Default)]
pub struct MeansSum {
    pub n: u64,
    pub z: f64,
    pub fair: f64,
    pub cap: f64,
}

impl MeansSum {
    pub fn add(&mut self, in_window: bool, z: f64, fair: f64, cap: f64) {
        if in_window {
            self.n += 1;
            self.z += z;
            self.fair += fair;
            self.cap += cap;
        }
    }

    pub fn means(&self) -> Option<IntervalMeans> {
        (self.n > 0).then(|| {
            let n = self.n as f64;
            IntervalMeans {
                z: self.z / n,
                fair_mbps: self.fair / n,
                abr_capacity_mbps: self.cap / n,
            }
        })
    }
}

/// The load factor z = `input` / `target` (infinite with no target), Mb/s over Mb/s.
#[inline]
pub fn load_factor(input: f64, target: f64) -> f64 {
    if target > 0.0 {
        input / target
    } else {
        f64::INFINITY
    }
}

/// What a closed interval measured, handed to [`MeteredRule::close`]; rates in Mb/s.
#[derive(Clone, Copy, Debug)]
pub struct Measurement {
    /// ABR cells offered to the port over the interval.
    pub input: f64,
    /// ABR capacity: the line rate less what CBR/VBR used.
    pub capacity: f64,
    /// Target rate: U x ABR capacity.
    pub target: f64,
    /// Load factor: input / target (infinite with no target).
    pub z: f64,
    /// ABR cells waiting at the port when the interval ended.
    pub abr_queue: u32,
}

/// What a scheme reports for a closed interval (its row of `abr_ports` and the port summary's
/// means), Mb/s.
#[derive(Clone, Copy, Debug)]
pub struct Allocation {
    /// The scheme's FairShare-like rate (summed into the mean FairShare).
    pub fair: f64,
    /// The largest ER the port gives for the interval.
    pub er_max: f64,
}

/// The rule of a [`Metered`] scheme: the hooks of [`SwitchScheme`] less what the meter does.
pub trait MeteredRule {
    /// The simulation starts: the port's line rate, the target rate U x line rate and the
    /// number of VCs crossing the port (see [`SwitchScheme::start`]).
    fn start(&mut self, line_mbps: f64, target_mbps: f64, n_vcs: usize);

    /// A forward ABR cell of `vc` (already counted by the meter); the scheme may mark it.
    #[inline]
    fn forward(&mut self, _abr_queue: u32, _vc: u32, _cell: &mut Cell) {}

    /// The interval closed with `m`: the scheme's update; what it reports for the interval.
    fn close(&mut self, m: &Measurement) -> Allocation;

    /// A backward RM cell of `vc`: the scheme writes its feedback (see
    /// [`SwitchScheme::on_backward`]).
    fn backward(&mut self, vc: u32, abr_queue: u32, rm: &mut RmFields);
}

/// A scheme `R` timed by a clock interval: the shared meter, target utilization and means.
#[derive(Clone, Debug, Default)]
pub struct Metered<R> {
    /// Target utilization U: the share of the ABR capacity the scheme gives out (1: all).
    pub target_utilization: f64,
    pub meter: IntervalMeter,
    pub sums: MeansSum,
    /// The scheme's own state and rule.
    pub rule: R,
}

impl<R> Metered<R> {
    /// Scheme `rule` with intervals of `interval` ps and target utilization `target_utilization`.
    pub fn new(interval: SimTime, target_utilization: f64, rule: R) -> Self {
        Metered {
            target_utilization,
            meter: IntervalMeter::new(interval),
            sums: MeansSum::default(),
            rule,
        }
    }
}

impl<R: MeteredRule> SwitchScheme for Metered<R> {
    fn start(&mut self, line_mbps: f64, n_vcs: usize) -> Option<SimTime> {
        self.meter = IntervalMeter::new(self.meter.interval);
        self.rule
            .start(line_mbps, self.target_utilization * line_mbps, n_vcs);
        Some(self.meter.deadline)
    }

    #[inline]
    fn on_forward(&mut self, abr_queue: u32, vc: u32, cell: &mut Cell) -> bool {
        self.meter.abr_in += 1;
        self.rule.forward(abr_queue, vc, cell);
        false
    }

    fn next_deadline(&self) -> Option<SimTime> {
        Some(self.meter.deadline)
    }

    fn close_interval(
        &mut self,
        now: SimTime,
        line_mbps: f64,
        hp_cells: u64,
        abr_queue: u32,
        in_window: bool,
    ) -> Option<IntervalRecord> {
        let (input, capacity) = self.meter.close(now, line_mbps, hp_cells)?;
        let target = self.target_utilization * capacity;
        let z = load_factor(input, target);
        let m = Measurement {
            input,
            capacity,
            target,
            z,
            abr_queue,
        };
        let a = self.rule.close(&m);
        self.sums.add(in_window, z, a.fair, capacity);
        Some(IntervalRecord {
            z,
            fair: a.fair,
            abr_capacity: capacity,
            input,
            target,
            er_max: a.er_max,
            abr_queue,
        })
    }

    #[inline]
    fn on_backward(&mut self, vc: u32, abr_queue: u32, rm: &mut RmFields) {
        self.rule.backward(vc, abr_queue, rm);
    }

    fn means_sum(&self) -> Option<&MeansSum> {
        Some(&self.sums)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::switch::testing::INTERVAL;

    /// A rule that reports fixed rates and keeps what it was given.
    #[derive(Default)]
    struct Fixed {
        target_mbps: f64,
        forwarded: u32,
        closed: Option<Measurement>,
    }

    impl MeteredRule for Fixed {
        fn start(&mut self, _line_mbps: f64, target_mbps: f64, _n_vcs: usize) {
            self.target_mbps = target_mbps;
        }

        fn forward(&mut self, _abr_queue: u32, _vc: u32, _cell: &mut Cell) {
            self.forwarded += 1;
        }

        fn close(&mut self, m: &Measurement) -> Allocation {
            self.closed = Some(*m);
            Allocation {
                fair: 10.0,
                er_max: 20.0,
            }
        }

        fn backward(&mut self, _vc: u32, _abr_queue: u32, rm: &mut RmFields) {
            rm.er = 1.0;
        }
    }

    #[test]
    fn the_meter_closes_intervals_against_the_target_and_sums_the_means() {
        let mut p = Metered::new(INTERVAL, 0.5, Fixed::default());
        assert_eq!(p.start(100.0, 1), Some(INTERVAL));
        assert_eq!(p.rule.target_mbps, 50.0, "U x the line rate");
        // 5 ms: 590 ABR cells in (about 50 Mb/s), 118 CBR cells (about 10 Mb/s)
        for _ in 0..590 {
            assert!(!p.on_forward(0, 0, &mut Cell::default()));
        }
        assert_eq!(p.rule.forwarded, 590);
        let mbps = |cells: f64| cells * 424.0 / 0.005 / 1e6;
        let r = p.close_interval(INTERVAL, 100.0, 118, 7, true).unwrap();
        let m = p.rule.closed.unwrap();
        assert_eq!((m.input, r.input), (mbps(590.0), mbps(590.0)));
        assert_eq!(m.capacity, 100.0 - mbps(118.0));
        assert_eq!((r.abr_capacity, r.target), (m.capacity, 0.5 * m.capacity));
        assert_eq!((m.target, m.z, r.z), (r.target, r.input / r.target, m.z));
        assert_eq!(
            (r.fair, r.er_max, r.abr_queue, m.abr_queue),
            (10.0, 20.0, 7, 7)
        );
        assert_eq!(p.next_deadline(), Some(2 * INTERVAL));
        assert!(
            p.close_interval(INTERVAL, 100.0, 0, 0, true).is_none(),
            "empty"
        );
        // no input, no capacity left: z is infinite; out of the window: not in the means
        let r = p
            .close_interval(2 * INTERVAL, 100.0, 1180, 0, false)
            .unwrap();
        assert_eq!((r.abr_capacity, r.z), (0.0, f64::INFINITY));
        assert_eq!(p.intervals_closed(), Some(1));
        let means = p.interval_means().unwrap();
        assert_eq!((means.z, means.fair_mbps), (m.z, 10.0));
        assert_eq!(means.abr_capacity_mbps, m.capacity);
        let mut rm = RmFields::default();
        p.on_backward(0, 0, &mut rm);
        assert_eq!(rm.er, 1.0);
    }
}
