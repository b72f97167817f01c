//! Hosts: what sits at one end of a connection. [`shaper`] is the source shaper (I.371).
//! [`socket`] is what an application above a transport talks to ([`socket::Socket`]). [`endpoint`] holds [`endpoint::AnySource`], the
//! closed enum over every endpoint model (applications, ABR end systems, TCP ends), which joins
//! the application layer ([`crate::app`]), the transports ([`crate::transport`]) and ABR
//! ([`crate::abr`]). `host` may depend on all three; none of them depends on `host`.

pub mod cpu;
pub mod endpoint;
pub mod sar;
pub mod shaper;
pub mod socket;
pub mod stream;
pub mod video;
pub mod video_tcp_rx;
pub mod video_tcp_tx;
pub mod workload;

pub use endpoint::{
    tcp_receiver, tcp_sender, video_ends, xtpx_receiver, xtpx_sender, AnySource, Endpoint,
};
pub use sar::Sar;
pub use shaper::Shaper;
pub use socket::Socket;
