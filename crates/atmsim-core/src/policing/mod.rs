//! Traffic contracts at the ATM layer: conformance (GCRA), usage parameter control (UPC), the
//! mapping of application traffic to PCR/SCR/MBS and contracts proposed from a recorded stream.
//! Connection admission control lives in [`crate::cac`], the block-based QoS measures (SECBR,
//! CER, CLR, CMR) in [`crate::metrics::qos`].
//!
//! - [`gcra`]: GCRA(T, tau) in both I.371 forms, single and dual, and the rate helpers
//!   ([`increment_ps`], the one rounding point of a rate into picoseconds).
//! - [`contract`]: the policing-level traffic descriptor ([`Contract`]).
//! - [`upc`]: usage parameter control ([`Upc`]: discard or tag).
//! - [`mapping`]: application traffic to PCR/SCR/MBS ([`AppTraffic`]).
//! - [`propose`]: CDVT and MBS fitted to a recorded cell stream ([`fit_bursts`]).
//!
//! Sources:
//! - ITU-T Rec. I.371, *Traffic control and congestion control in B-ISDN*: the Generic Cell Rate
//!   Algorithm GCRA(T, tau) in its two equivalent forms, the virtual scheduling algorithm (theoretical
//!   arrival time TAT) and the continuous-state leaky bucket (bucket content X, last conformance
//!   time LCT); the dual GCRA for the sustainable cell rate with burst tolerance
//!   BT = (MBS - 1) x (1/SCR - 1/PCR) and MBS = 1 + floor(BT / (Ts - T)); UPC actions (discard,
//!   tag CLP=0 cells as CLP=1). ATM Forum TM 4.0 section 4.5 names the same conformance
//!   definitions (CBR.1, VBR.1, VBR.2, VBR.3).
//! - Seed 001 (`/work/shared/seeds/001_08abd1994ada50f6.txt`): section 2.3 (traffic parameters PCR,
//!   SCR, MBS, MCR and the CDV tolerance, Table 2), section 2.4 (service categories and the
//!   descriptors each one specifies, Table 3), section 4.2 (QoS measurement: CER, SECBR with
//!   blocks of N cells and more than M errored/lost/misinserted cells, CMR), section 6.1 (Table 7:
//!   application max/mean rate and burst to PCR/SCR/MBS, PCR = max_R / cell_size), section 6.2
//!   (admission policies, contracts obtained by monitoring).

pub mod contract;
pub mod gcra;
pub mod mapping;
pub mod propose;
pub mod upc;

pub use contract::*;
pub use gcra::*;
pub use mapping::*;
pub use propose::*;
pub use upc::*;
