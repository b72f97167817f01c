//! ON-OFF sources (seed 000 section 7.2, seed 002): ON for d x p at an amplitude, OFF for
//! (1 - d) x p; optionally exponential ON and OFF lengths with those means, drawn from the
//! endpoint's stream. Moved from `traffic.rs`.

use super::{Application, Ctx};
use crate::rng::Rng;
use crate::time::{source_bps, Pacer, SimTime};
use rand_distr::{Distribution, Exp};

/// ON-OFF: cells at `peak` while ON. Deterministic periods: ON `duty x period`, OFF the rest.
/// Exponential periods: ON and OFF lengths drawn with those means (from the endpoint's stream).
#[derive(Clone, Debug)]
pub struct OnOff {
    pacer: Pacer,
    on_mean: f64,
    off_mean: f64,
    exponential: bool,
    start: SimTime,
    stop: SimTime,
    on_end: SimTime,
    next_on: SimTime,
}

impl OnOff {
    pub fn new(
        peak_mbps: f64,
        duty: f64,
        period_s: f64,
        exponential: bool,
        start: SimTime,
        stop: SimTime,
    ) -> Self {
        let period = period_s * 1e12;
        OnOff {
            pacer: Pacer::new(source_bps(peak_mbps)),
            on_mean: duty * period,
            off_mean: (1.0 - duty) * period,
            exponential,
            start,
            stop,
            on_end: 0,
            next_on: 0,
        }
    }

    fn draw(&self, mean: f64, rng: &mut Rng) -> SimTime {
        if mean <= 0.0 {
            return 0;
        }
        if self.exponential {
            let e = Exp::new(1.0 / mean).expect("positive mean");
            e.sample(rng).round() as SimTime
        } else {
            mean.round() as SimTime
        }
    }

    /// Begin an ON period at `t`; returns the time of its first cell.
    fn begin_on(&mut self, t: SimTime, rng: &mut Rng) -> SimTime {
        let on = self.draw(self.on_mean, rng).max(1);
        let off = self.draw(self.off_mean, rng);
        self.on_end = t.saturating_add(on);
        self.next_on = self.on_end.saturating_add(off);
        self.pacer.start(t);
        t
    }
}

impl Application for OnOff {
    /// Sends only: what reaches it is counted by the network (`sim/sink.rs`).
    fn passive_rx(&self) -> bool {
        true
    }
    fn start(&mut self, ctx: &mut Ctx) {
        if self.start < self.stop {
            let first = self.begin_on(self.start, ctx.rng);
            ctx.set_timer(first);
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        if now >= self.on_end {
            // an OFF period just ended (the timer was set to the next ON start)
            self.begin_on(now, ctx.rng);
        }
        ctx.send_cells(1);
        let mut next = self.pacer.advance();
        while next >= self.on_end {
            // the rest of this ON period has no cell slot; skip to the next ON period
            let t = self.next_on;
            if t >= self.stop {
                return;
            }
            next = self.begin_on(t, ctx.rng);
            if next < self.on_end {
                break;
            }
        }
        if next < self.stop {
            ctx.set_timer(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::testing::emissions;
    use crate::rng::stream;
    use crate::time::PS_PER_S;

    #[test]
    fn onoff_deterministic_duty_cycle() {
        let mut rng = stream(1, "x");
        // 42.4 Mb/s while ON, d = 0.3, p = 10 ms, for 1 s: 100 periods x 3 ms x 100 cells/ms
        let mut s = OnOff::new(42.4, 0.3, 0.01, false, 0, PS_PER_S);
        let e = emissions(&mut s, u64::MAX, &mut rng);
        assert_eq!(e.len(), 100 * 300);
        // no cell during an OFF period
        assert!(e
            .iter()
            .all(|&t| t % (10 * 1_000_000_000) < 3 * 1_000_000_000));
    }

    #[test]
    fn onoff_exponential_mean_rate_and_seed_dependence() {
        let run = |seed| {
            let mut rng = stream(seed, "connections.c.source");
            let mut s = OnOff::new(42.4, 0.5, 0.002, true, 0, 20 * PS_PER_S);
            emissions(&mut s, u64::MAX, &mut rng).len()
        };
        let (a, b) = (run(1), run(2));
        assert_ne!(a, b);
        assert_eq!(a, run(1));
        // mean rate = d x peak = 50,000 cells/s; 10,000 cycles of mean 2 ms: sd of the ON share ~ 0.5%
        for n in [a, b] {
            let rate = n as f64 / 20.0;
            assert!((rate / 50_000.0 - 1.0).abs() < 0.03, "{rate}");
        }
    }
}
