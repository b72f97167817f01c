//! Connection admission control (CAC): a port admits a connection if the bandwidth its contract
//! is valued at fits in what remains of the port's capacity.
//!
//! - [`erlang`]: the Erlang-B formula and the equivalent capacity of an ON-OFF source.
//! - [`admission`]: the valuation policy ([`CacPolicy`]: peak, sustainable, effective
//!   bandwidth) and the per-port bookkeeping ([`PortCac`], [`Reservation`]).
//!
//! Sources:
//! - Seed 001 (`/work/shared/seeds/001_08abd1994ada50f6.txt`) section 6.2 (admission policies).
//! - R. Guérin, H. Ahmadi, M. Naghshineh, *Equivalent capacity and its application to bandwidth
//!   allocation in high-speed networks*, IEEE JSAC 9(7), Sept. 1991: the fluid-flow equivalent
//!   capacity of an ON-OFF source with a finite buffer and a loss target ([`gan_equivalent_capacity`]).
//! - The Erlang-B formula, computed with the recursion B(A, n) = A B(A, n-1) / (n + A B(A, n-1)).

pub mod admission;
pub mod erlang;

pub use admission::*;
pub use erlang::*;
