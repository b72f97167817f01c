//! The output-buffered fabric: a cell crosses the fabric in a fixed time and waits only in the
//! output port's queue (per-category FIFOs, optionally buffers shared by groups of ports).
//! Seed 003's and seed 000's switches, and seed 004's Fore ASX-200 ("output buffers only, 13,312
//! cells shared by each pair of output ports").

use super::Fabric;
use crate::time::SimDuration;

#[derive(Clone, Debug, Default)]
pub struct OutputBuffered {
    /// Fabric transit time (scenario `nodes[].fabric_delay_us`).
    pub transit_ps: SimDuration,
}

impl Fabric for OutputBuffered {
    fn transit_ps(&self) -> SimDuration {
        self.transit_ps
    }

    /// `on_arrival` is the default: every cell passes.
    fn passes_all(&self) -> bool {
        true
    }
}
