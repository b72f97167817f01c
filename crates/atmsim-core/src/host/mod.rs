//! Hosts: what sits at one end of a connection. [`endpoint`] holds [`endpoint::AnySource`], the
//! closed enum over every endpoint model (applications, ABR end systems, TCP ends), which joins
//! the application layer ([`crate::app`]), the transports ([`crate::transport`]) and ABR
//! ([`crate::abr`]). `host` may depend on all three; none of them depends on `host`.

pub mod endpoint;

pub use endpoint::AnySource;
