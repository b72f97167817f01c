//! A class of switched calls (scenario `calls[]`): Poisson arrivals, exponential or fixed
//! holding times, the prepared slots (idle flows) calls take, and the blocking counts per batch
//! of the measurement window. The call events themselves (set-up hop by hop, CONNECT, release)
//! are in `sim/calls.rs`.

use crate::cac::Reservation;
use crate::host::AnySource;
use crate::policing::Contract;
use crate::rng::Rng;
use crate::scenario::SourceSpec;
use crate::time::*;

/// A class of switched calls (scenario `calls[]`).
pub struct CallClass {
    pub name: String,
    pub(crate) contract: Contract,
    pub(crate) source: SourceSpec,
    pub(crate) first_link_mbps: f64,
    /// Builds a call's source from `source` with its start and stop times and the first link's
    /// rate (the builder's conversion, kept here so the engine does not depend on the builder).
    pub(crate) make_source: fn(&SourceSpec, f64) -> AnySource,
    pub(crate) rate_per_s: f64,
    pub(crate) holding_mean_s: f64,
    pub(crate) exponential: bool,
    pub(crate) stop: SimTime,
    /// Switch ports on the route that run CAC.
    pub(crate) ports: Vec<u32>,
    /// Prepared (flow, endpoint) pairs, their reservations while a call holds them.
    pub(crate) slots: Vec<(u32, u32, Vec<Reservation>)>,
    /// Per slot, the call being set up or held: (arrival time, holding time s).
    pub(crate) calls: Vec<(SimTime, f64)>,
    /// Sum of the set-up delays (arrival to CONNECT) of the calls connected after warm-up.
    pub(crate) setup_sum_ps: u128,
    pub(crate) connected: u64,
    pub(crate) free: Vec<u32>,
    pub(crate) rng: Rng,
    pub(crate) offered: u64,
    pub(crate) admitted: u64,
    pub(crate) blocked: u64,
    pub(crate) no_slot: u64,
    /// Calls offered and blocked (CAC or no slot) per batch of the measurement window, by
    /// arrival time, for the batch-means confidence interval.
    pub(crate) batch_offered: [u64; CALL_BATCHES],
    pub(crate) batch_blocked: [u64; CALL_BATCHES],
    pub(crate) active: u32,
    pub(crate) max_active: u32,
}

/// Batches of the measurement window for the confidence interval of a call class's blocking.
pub const CALL_BATCHES: usize = 20;

/// The batch (of [`CALL_BATCHES`] equal parts of [warm-up, end)) of a call arriving at `t`.
pub(crate) fn call_batch(t: SimTime, warmup: SimTime, end: SimTime) -> usize {
    let span = end.saturating_sub(warmup).max(1) as u128;
    ((t.saturating_sub(warmup) as u128 * CALL_BATCHES as u128 / span) as usize)
        .min(CALL_BATCHES - 1)
}
