//! Per-cell link impairments (scenario `links[].impairment`): loss, payload errors, misinsertion,
//! extra delay and delay variation (ITU-T I.356 cell transfer outcomes: CLR, CER, CMR).

use crate::rng::Rng;
use crate::time::*;

/// Per-cell link impairments (scenario `links[].impairment`), with the port's own random stream.
pub struct Impairment {
    pub(crate) loss: f64,
    pub(crate) error: f64,
    pub(crate) misinsertion: f64,
    pub(crate) extra_ps: SimDuration,
    pub(crate) variation_ps: f64,
    /// Delivery time of the last cell: later cells never overtake it.
    pub(crate) last_at: SimTime,
    /// Flows crossing this port, as (flow, index of this port on the flow's route).
    pub(crate) crossing: Vec<(u32, u8)>,
    pub(crate) rng: Rng,
    /// Scripted losses: cell numbers (from 1, increasing) and the cells counted so far.
    pub(crate) scripted: Vec<u64>,
    pub(crate) counted: u64,
}
