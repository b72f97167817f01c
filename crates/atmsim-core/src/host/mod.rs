//! Hosts: what sits at one end of a connection. [`endpoint`] holds [`endpoint::AnySource`], the
//! closed enum over the kinds of endpoint (a cell-level application, a host, or either of them
//! above an ABR end system: [`abr_end`]) and the hooks through which the engine calls them. [`stack`] is a host: one
//! application ([`crate::app`]) over its sockets ([`socket::Socket`], each over one transport
//! end, [`crate::transport`]). [`cpu`] is the host model (processing costs, buffers, system
//! calls); [`sar`] segmentation and reassembly; [`shaper`] the source shaper (I.371). `host`
//! depends on the application, transport and ABR layers; none of them depends on `host`.

pub mod abr_end;
pub mod cpu;
pub mod endpoint;
pub mod sar;
pub mod shaper;
pub mod socket;
pub mod stack;

pub use endpoint::{AnySource, Endpoint};
pub use sar::Sar;
pub use shaper::Shaper;
pub use socket::Socket;
pub use stack::Host;
