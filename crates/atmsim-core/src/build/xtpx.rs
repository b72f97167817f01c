//! Building XTPX connections (`source.kind = "xtpx"`, seed 001 section 5.2): the raw ends and
//! bundles (`source.bundle`).

use crate::build::*;
use crate::host::AnySource;
use crate::net::*;
use crate::scenario::{ConnectionSpec, SourceSpec};
use crate::sim::*;
use crate::transport::xtpx::XtpxEnd;
use crate::transport::AnyTransport;

pub(crate) fn xtpx_params(s: &SourceSpec) -> crate::transport::xtpx::XtpxParams {
    s.xtpx.clone().unwrap_or_default().params(s.start_s)
}

/// The sending end of an XTPX source: a raw sender.
pub(crate) fn xtpx_source(s: &SourceSpec) -> AnySource {
    raw_end(AnyTransport::Xtpx(Box::new(XtpxEnd::sender(xtpx_params(
        s,
    )))))
}

impl Builder<'_> {
    /// An XTPX connection on flow `fwd`: its source, the reverse flow for the status reports,
    /// the receiving end, and the other connections' ends.
    pub(crate) fn xtpx(
        &self,
        c: &ConnectionSpec,
        fwd: usize,
        flows: &mut Vec<Flow>,
        endpoints: &mut Vec<Endpoint>,
    ) {
        let (rev, _) = self.host_pair(c, fwd, "xtpx_receiver", flows, endpoints);
        self.xtpx_bundle(c, fwd, rev, flows, endpoints);
    }

    /// With `source.bundle = k`, XTPX connections 1..k-1 on the same two flows as connection
    /// 0, each with its own connection number.
    fn xtpx_bundle(
        &self,
        c: &ConnectionSpec,
        fwd: usize,
        rev: usize,
        flows: &mut [Flow],
        endpoints: &mut Vec<Endpoint>,
    ) {
        let p = xtpx_params(&c.source);
        for k in 1..c.source.bundle as u16 {
            let end = |e: XtpxEnd| raw_end(AnyTransport::Xtpx(Box::new(e)));
            let pair = (
                end(XtpxEnd::sender(p.clone())),
                end(XtpxEnd::receiver(p.clone())),
            );
            self.bundle_member(c, k, (fwd, rev), pair, "xtpx_receiver", flows, endpoints);
        }
    }
}
