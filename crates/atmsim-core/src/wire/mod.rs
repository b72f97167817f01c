//! What is on the wire: the simulated cell, the 5-byte ATM cell header, AAL5 framing and
//! LLC/SNAP encapsulation.
//!
//! Sources: ITU-T I.361 (ATM cell header: GFC/VPI/VCI/PTI/CLP/HEC, HEC = CRC-8 x^8+x^2+x+1
//! with coset 0x55), ITU-T I.363.5 (AAL5 CPCS-PDU: payload, padding to a multiple of 48 bytes,
//! 8-byte trailer CPCS-UU, CPI, Length, CRC-32; end of frame signalled by the PTI user bit),
//! RFC 1483/2684 (LLC/SNAP header, 8 bytes), seed 000 section 6 (TCP/IP over AAL5 overhead).
//!
//! The simulator does not move bytes: a [`Cell`] is a small `Copy` value with the header fields
//! that matter to the models ([`cell`]). The byte-level I.361 header codec ([`header`]) is not on
//! the simulation path: it pins down what the `H_*` bits stand for in a real header and is
//! round-trip tested against the standard (I.432's HEC example). AAL5 framing and reassembly are
//! in [`aal5`], one VC direction's segmentation and reassembly state in [`sar`]. LLC/SNAP is only
//! its header length ([`LLC_SNAP`]), kept with AAL5.

pub mod aal5;
pub mod cell;
pub mod header;
pub mod sar;

pub use aal5::*;
pub use cell::*;
pub use header::*;
pub use sar::Sar;
