//! Hosts: what sits at one end of a connection. [`endpoint`] holds [`endpoint::AnySource`], the
//! closed enum over the kinds of endpoint (a cell-level application, a host, or either of them
//! above an ABR end system: [`abr_end`]) and the hooks through which the engine calls them.
//! [`stack`] is a host: one application ([`crate::app`]) over its sockets ([`socket::Socket`],
//! each over one transport end, [`crate::transport`]). [`cpu`] is the host model (processing
//! costs, buffers, system calls). A VC's segmentation and reassembly (`crate::wire::Sar`) and
//! its source shaper (`crate::net::Shaper`, I.371) belong to its flow, so the network knows
//! nothing of hosts. `host` depends on the application, transport and ABR layers; none of
//! them depends on `host`.

pub mod abr_end;
pub mod cpu;
pub mod endpoint;
pub mod socket;
pub mod stack;

pub use endpoint::{AnySource, Endpoint};
pub use socket::Socket;
pub use stack::Host;
