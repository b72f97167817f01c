//! CBR: cells evenly spaced at a fixed rate (also persistent sources, always backlogged, sending
//! at their peak rate). Exact departure times from [`crate::time::Pacer`]. Moved from
//! `traffic.rs`.

use super::{Application, Ctx};
use crate::time::{source_bps, Pacer, SimTime};

/// Cells evenly spaced at a fixed rate from `start` until `stop` (CBR, and persistent sources
/// sending at their peak rate).
#[derive(Clone, Debug)]
pub struct Cbr {
    pacer: Pacer,
    start: SimTime,
    stop: SimTime,
}

impl Cbr {
    pub fn new(rate_mbps: f64, start: SimTime, stop: SimTime) -> Self {
        Cbr {
            pacer: Pacer::new(source_bps(rate_mbps)),
            start,
            stop,
        }
    }
}

impl Cbr {
    /// The rate in bit/s: sources of one rate re-arm their timers one interval (within the
    /// pacer's 1 ps rounding) after each firing, which puts them in one lane of the event queue
    /// (`engine.rs`, "Lanes").
    pub fn rate_bps(&self) -> u64 {
        self.pacer.rate_bps()
    }

    /// One emission, due now: advances the pacer and returns the next emission time (`None`
    /// once it would be at or past `stop`). [`Application::on_timer`] is one cell plus this;
    /// the engine's fast path for CBR endpoints (`Simulation::endpoint_timer`) calls it directly.
    #[inline]
    pub fn fire(&mut self) -> Option<SimTime> {
        let next = self.pacer.advance();
        (next < self.stop).then_some(next)
    }
}

impl Application for Cbr {
    /// Sends only: what reaches it is counted by the network (`sim/sink.rs`).
    fn passive_rx(&self) -> bool {
        true
    }
    fn start(&mut self, ctx: &mut Ctx) {
        self.pacer.start(self.start);
        if self.start < self.stop {
            ctx.set_timer(self.start);
        }
    }
    fn on_timer(&mut self, ctx: &mut Ctx) {
        ctx.send_cells(1);
        if let Some(next) = self.fire() {
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
    fn cbr_sends_rate_times_duration() {
        let mut rng = stream(1, "x");
        // 42.4 Mb/s = 100,000 cells/s: exactly 10 us apart
        let mut s = Cbr::new(42.4, 0, PS_PER_S / 10);
        let e = emissions(&mut s, u64::MAX, &mut rng);
        assert_eq!(e.len(), 10_000);
        assert!(e.windows(2).all(|w| w[1] - w[0] == 10_000_000));
    }
}
