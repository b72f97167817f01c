//! ERICA and ERICA+ (explicit rate indication for congestion avoidance) at one output port.
//!
//! Sources: ERICA steps 1-13 and the ERICA+ target fraction f(Tq) from Jain, Kalyanaraman et
//! al. (ATM Forum 96-1172; Vandalore et al. cs/9809041), parameters of seed 000 section 6 and
//! seed 003 section 4; rule text in `../shared/SPEC-ABR.md`.
//!
//! Choices where the sources leave room (see docs/abr.md):
//! - The averaging interval ends after `interval_cells` ABR input cells or `interval_s`,
//!   whichever first; higher-priority (CBR/VBR) usage is measured over the same interval.
//! - Before its first interval ends a port assumes z = 1 and FairShare = target capacity.
//! - A VC is active in an interval if it sent a forward cell (data or FRM) into the port.
//! - ERICA+ uses the ABR queue length at the end of the interval for Tq.

use super::{load_factor, IntervalRecord, MeansSum, SwitchScheme};
use crate::abr::RM_DIR;
use crate::time::SimTime;
use crate::wire::{Cell, RmFields};

/// ERICA+ target fraction f(Tq) (SPEC-ABR.md): a-curve a T0 / ((a - 1) Tq + T0) for Tq <= T0,
/// b-curve max(QDLF, b T0 / ((b - 1) Tq + T0)) above; both are 1 at Tq = T0.
pub fn erica_plus_fraction(tq: f64, t0: f64, a: f64, b: f64, qdlf: f64) -> f64 {
    if tq <= t0 {
        a * t0 / ((a - 1.0) * tq + t0)
    } else {
        (b * t0 / ((b - 1.0) * tq + t0)).max(qdlf)
    }
}

/// Per-VC state of an ERICA port.
#[derive(Clone, Debug, Default)]
pub struct VcState {
    pub ccr: f64,
    cells: u32,
    seen: u32,
    fb_interval: u32,
    last_er: f64,
}

/// ERICA / ERICA+ at one output port.
#[derive(Clone, Debug, Default)]
pub struct Erica {
    pub plus: bool,
    pub target_utilization: f64,
    pub interval: SimTime,
    pub interval_cells: u32,
    pub basic: bool,
    pub measured_ccr: bool,
    pub delta: f64,
    pub one_feedback: bool,
    pub t0_s: f64,
    pub a: f64,
    pub b: f64,
    pub qdlf: f64,
    // measurement of the current interval
    pub start: SimTime,
    pub deadline: SimTime,
    pub(crate) abr_in: u32,
    pub(crate) interval_id: u32,
    pub(crate) n_active: u32,
    pub vcs: Vec<VcState>,
    // results of the last closed interval
    pub z: f64,
    pub fair: f64,
    pub target: f64,
    pub abr_capacity: f64,
    pub input: f64,
    pub(crate) maxalloc_prev: f64,
    pub(crate) maxalloc_cur: f64,
    // means over intervals closed after warm-up
    pub sums: MeansSum,
}

impl Erica {
    /// Step 0 state for a port of `line_mbps` (see the module notes for the initial values).
    /// `n_vcs`: the VCs crossing the port (per-VC state for those only).
    pub fn init(&mut self, line_mbps: f64, n_vcs: usize) {
        self.vcs = vec![VcState::default(); n_vcs];
        let frac = if self.plus {
            1.0
        } else {
            self.target_utilization
        };
        self.abr_capacity = line_mbps;
        self.target = frac * line_mbps;
        self.fair = self.target;
        self.z = 1.0;
        self.maxalloc_prev = self.fair;
        self.maxalloc_cur = self.fair;
        self.interval_id = 1;
        self.deadline = self.interval;
    }

    /// A forward-direction ABR cell of VC `vc` (at this port) enters the port. Returns true
    /// when the cell count closes the averaging interval.
    #[inline]
    pub fn on_input(&mut self, vc: u32, cell: &Cell) -> bool {
        self.abr_in += 1;
        if !(cell.is_rm() && cell.rm.bits & RM_DIR != 0) {
            let vc = &mut self.vcs[vc as usize];
            if vc.seen != self.interval_id {
                vc.seen = self.interval_id;
                vc.cells = 0;
                self.n_active += 1;
            }
            vc.cells += 1;
            if cell.is_rm() && !self.measured_ccr {
                vc.ccr = cell.rm.ccr as f64;
            }
        }
        self.abr_in >= self.interval_cells
    }

    /// Steps 1-5 at the end of an averaging interval.
    pub fn end_interval(
        &mut self,
        now: SimTime,
        line_mbps: f64,
        hp_cells: u64,
        abr_queue: u32,
        in_window: bool,
    ) -> Option<IntervalRecord> {
        if now <= self.start {
            return None;
        }
        let dt = (now - self.start) as f64 / 1e12;
        let mbps = |cells: f64| cells * 424.0 / dt / 1e6;
        self.abr_capacity = (line_mbps - mbps(hp_cells as f64)).max(0.0);
        self.input = mbps(self.abr_in as f64);
        let fraction = if self.plus {
            let tq = if self.abr_capacity > 0.0 {
                abr_queue as f64 * 424.0 / (self.abr_capacity * 1e6)
            } else {
                f64::INFINITY
            };
            erica_plus_fraction(tq, self.t0_s, self.a, self.b, self.qdlf)
        } else {
            self.target_utilization
        };
        self.target = fraction * self.abr_capacity;
        self.z = load_factor(self.input, self.target);
        self.fair = self.target / self.n_active.max(1) as f64;
        let er_max = self.maxalloc_cur;
        self.maxalloc_prev = self.maxalloc_cur;
        self.maxalloc_cur = self.fair;
        if self.measured_ccr {
            let id = self.interval_id;
            for vc in self.vcs.iter_mut().filter(|v| v.seen == id) {
                vc.ccr = vc.cells as f64 * 424.0 / dt / 1e6;
            }
        }
        self.start = now;
        self.deadline = now + self.interval;
        self.abr_in = 0;
        self.n_active = 0;
        self.interval_id += 1;
        self.sums
            .add(in_window, self.z, self.fair, self.abr_capacity);
        Some(IntervalRecord {
            z: self.z,
            fair: self.fair,
            abr_capacity: self.abr_capacity,
            input: self.input,
            target: self.target,
            er_max,
            abr_queue,
        })
    }

    /// Steps 8-13 for a backward RM cell of VC `vc` (at this port): the ER to write.
    pub fn feedback(&mut self, vc: u32) -> f64 {
        let vc = &mut self.vcs[vc as usize];
        if self.one_feedback && vc.fb_interval == self.interval_id {
            return vc.last_er;
        }
        let vc_share = if self.z > 0.0 {
            vc.ccr / self.z
        } else {
            f64::INFINITY
        }; // step 8
        let mut er = if self.basic || self.z > 1.0 + self.delta {
            self.fair.max(vc_share) // step 9
        } else {
            self.maxalloc_prev.max(vc_share) // step 10
        };
        self.maxalloc_cur = self.maxalloc_cur.max(er); // step 11 (only steps 10-12 read it)
        if !self.basic {
            // step 12; compared at the RM field's precision (f32), since a source that was
            // given exactly FairShare reports it back rounded to f32
            if er > self.fair && (vc.ccr as f32) < (self.fair as f32) {
                er = self.fair;
            }
        }
        er = er.min(self.target); // step 13 (with the cell's own ER, by the caller)
        vc.last_er = er;
        vc.fb_interval = self.interval_id;
        er
    }
}

/// ERICA's hooks: input cells count towards the averaging interval, whose deadline is a timer;
/// backward RM cells get the explicit rate of steps 8-13 (never above the ER they carry).
impl SwitchScheme for Erica {
    fn start(&mut self, line_mbps: f64, n_vcs: usize) -> Option<SimTime> {
        self.init(line_mbps, n_vcs);
        Some(self.deadline)
    }

    #[inline]
    fn on_forward(&mut self, _abr_queue: u32, vc: u32, cell: &mut Cell) -> bool {
        self.on_input(vc, cell)
    }

    fn next_deadline(&self) -> Option<SimTime> {
        Some(self.deadline)
    }

    fn close_interval(
        &mut self,
        now: SimTime,
        line_mbps: f64,
        hp_cells: u64,
        abr_queue: u32,
        in_window: bool,
    ) -> Option<IntervalRecord> {
        self.end_interval(now, line_mbps, hp_cells, abr_queue, in_window)
    }

    #[inline]
    fn on_backward(&mut self, vc: u32, _abr_queue: u32, rm: &mut RmFields) {
        let er = self.feedback(vc);
        rm.er = rm.er.min(er as f32);
    }

    fn means_sum(&self) -> Option<&MeansSum> {
        Some(&self.sums)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::switch::testing;

    /// A forward RM cell of `flow` carrying `ccr`.
    fn frm(flow: u32, ccr: f32) -> Cell {
        Cell {
            flow,
            ..testing::frm(ccr, 0.0)
        }
    }

    #[test]
    fn f_of_tq() {
        let (t0, a, b, q) = (500e-6, 1.15, 1.05, 0.5);
        assert_eq!(erica_plus_fraction(0.0, t0, a, b, q), a);
        assert!((erica_plus_fraction(t0, t0, a, b, q) - 1.0).abs() < 1e-12);
        assert!((erica_plus_fraction(t0 + 1e-12, t0, a, b, q) - 1.0).abs() < 1e-6);
        assert_eq!(erica_plus_fraction(1.0, t0, a, b, q), q);
        // b-curve between: 2 T0 -> b T0 / ((b - 1) 2 T0 + T0) = b / (2b - 1)
        assert!((erica_plus_fraction(2.0 * t0, t0, a, b, q) - b / (2.0 * b - 1.0)).abs() < 1e-12);
        // a-curve between: T0 / 2 -> a / ((a - 1) / 2 + 1)
        assert!(
            (erica_plus_fraction(t0 / 2.0, t0, a, b, q) - a / ((a - 1.0) / 2.0 + 1.0)).abs()
                < 1e-12
        );
    }

    fn erica(basic: bool) -> Erica {
        let mut e = Erica {
            plus: false,
            target_utilization: 0.9,
            interval: 5_000_000_000,
            interval_cells: u32::MAX,
            basic,
            measured_ccr: false,
            delta: 0.1,
            one_feedback: false,
            t0_s: 0.0,
            a: 0.0,
            b: 0.0,
            qdlf: 0.0,
            ..Default::default()
        };
        e.init(100.0, 3);
        e
    }

    #[test]
    fn erica_interval_and_steps_8_to_13_by_hand() {
        // 100 Mb/s line, 10 Mb/s of CBR; 5 ms interval; VC0 and VC1 send; input 108 Mb/s
        let mut e = erica(false);
        let cell_ms = |mbps: f64| (mbps * 1e6 * 0.005 / 424.0).round() as u32;
        e.on_input(0, &frm(0, 72.0));
        e.on_input(1, &frm(1, 36.0));
        for _ in 0..cell_ms(108.0) - 2 {
            e.on_input(0, &Cell::default()); // data cells of VC 0
        }
        let hp = cell_ms(10.0) as u64;
        let r = e.end_interval(5_000_000_000, 100.0, hp, 0, true).unwrap();
        let cap = 100.0 - hp as f64 * 424.0 / 0.005 / 1e6; // step 1 (about 90)
        assert!((r.abr_capacity - cap).abs() < 1e-9);
        assert!((r.target - 0.9 * cap).abs() < 1e-9); // step 2
        let input = cell_ms(108.0) as f64 * 424.0 / 0.005 / 1e6;
        assert!((r.z - input / (0.9 * cap)).abs() < 1e-9); // step 3 (about 1.33)
        assert!((r.fair - 0.9 * cap / 2.0).abs() < 1e-9); // step 4: two active VCs
        let (z, fs) = (r.z, r.fair);
        // z > 1 + delta: ER = max(FS, CCR / z); VC0: 72 / z ~ 54 > FS ~ 40.5
        let er0 = e.feedback(0);
        assert!((er0 - (72.0 / z).max(fs).min(0.9 * cap)).abs() < 1e-9);
        // VC1: 36 / z ~ 27 < FS -> FS; step 12 does not lower it further (ER = FS)
        assert!((e.feedback(1) - fs).abs() < 1e-9);
        // underload: z <= 1 + delta -> ER = max(MaxAllocPrevious, CCR / z), then step 12
        e.on_input(0, &frm(0, 72.0));
        e.on_input(1, &frm(1, 20.0));
        for _ in 0..cell_ms(50.0) - 2 {
            e.on_input(0, &Cell::default()); // data cells of VC 0
        }
        let r2 = e.end_interval(10_000_000_000, 100.0, hp, 0, true).unwrap();
        assert!(r2.z < 1.0);
        // MaxAllocPrevious = the largest ER given in the previous interval (er0)
        let er = e.feedback(0);
        assert!((er - (72.0 / r2.z).max(er0).min(r2.target)).abs() < 1e-9);
        // VC1 with CCR 20 < FS: step 12 caps an ER above FS at FS
        let er1 = e.feedback(1);
        assert!((er1 - r2.fair).abs() < 1e-9, "{er1} vs {}", r2.fair);
    }

    #[test]
    fn erica_basic_ignores_maxalloc() {
        let mut e = erica(true);
        e.on_input(0, &frm(0, 10.0));
        e.on_input(1, &frm(1, 10.0));
        let r = e.end_interval(5_000_000_000, 100.0, 0, 0, true).unwrap();
        // tiny load: z ~ 0; ER = max(FS, CCR / z) capped by the target
        assert!((e.feedback(1) - r.target).abs() < 1e-9);
    }
}
