//! Transports: the protocols an endpoint runs above AAL5 (TCP now; UDP, XTP and an
//! `AnyTransport` enum are the planned neighbours, DESIGN.md "Map of the core").
//!
//! A transport end writes whole AAL5 frames to a [`SegmentOut`]: the endpoint's per-call outbox
//! ([`crate::app::Ctx`], joined to this trait in [`crate::host::endpoint`]) or an ABR source's
//! frame queue (TCP over ABR). Transports know neither applications nor hosts.

pub mod tcp;

use crate::wire::SegHdr;

/// What a TCP end asks the engine for in one call.
pub trait SegmentOut {
    /// Room for more segments in this call (the engine's per-call outbox).
    fn room(&self) -> bool;
    /// Send one AAL5 frame of `sdu` bytes with transport header `seg` (the endpoint fills in
    /// `seg.conn`).
    fn frame(&mut self, sdu: u32, seg: SegHdr);
}
