//! Building TCP connections (`source.kind = "tcp"`): the raw ends (the transport sends its own
//! workload, the application above reads what arrives), the TSDU writer (`tcp.tsdu_bytes`),
//! both directions (`reverse_source.kind = "tcp"`) and bundles (`source.bundle`).

use crate::app::AnyApp;
use crate::build::*;
use crate::host::{AnySource, Socket};
use crate::net::*;
use crate::scenario::{ConnectionSpec, SourceKind, SourceSpec};
use crate::sim::*;
use crate::transport::tcp::{TcpEnd, TcpParams, TcpReceiver, TcpSender};
use crate::transport::AnyTransport;

pub(crate) fn tcp_params(s: &SourceSpec) -> crate::transport::tcp::TcpParams {
    s.tcp.clone().unwrap_or_default().params(s.start_s)
}

/// The sending end of a TCP source: a raw sender, or a TSDU writer over a socket.
pub(crate) fn tcp_source(s: &SourceSpec) -> AnySource {
    let p = tcp_params(s);
    let tsdu = s.tcp.as_ref().and_then(|t| t.tsdu_bytes);
    let end = AnyTransport::Tcp(Box::new(TcpEnd::sender(p.clone())));
    let Some(tsdu) = tsdu else {
        return raw_end(end);
    };
    // a TSDU writer through a socket; its send buffer is the window unless the host
    // model sets one (host_models)
    let mut sock = Socket::new(end);
    sock.send_buffer = p.window.max(tsdu as u64);
    let w = crate::app::writer::Writer::new(tsdu as u64, p.start);
    host(AnyApp::Writer(Box::new(w)), sock)
}

impl Builder<'_> {
    /// A TCP connection on flow `fwd`: its source, the reverse flow for the ACKs, the receiving
    /// end, and the other connections' ends.
    pub(crate) fn tcp(
        &self,
        c: &ConnectionSpec,
        fwd: usize,
        flows: &mut Vec<Flow>,
        endpoints: &mut Vec<Endpoint>,
    ) {
        let (rev, src) = self.host_pair(c, fwd, "tcp_receiver", flows, endpoints);
        self.tcp_ends(c, fwd, rev, src, flows, endpoints);
    }

    /// The TCP ends of a plain connection beyond the one-way pair made by [`Builder::tcp`]: with
    /// `reverse_source.kind = "tcp"` both ends send and receive (the reverse direction's
    /// parameters are `reverse_source.tcp`), and with `source.bundle = k` connections 1..k-1
    /// are added on the same two flows, each with its own connection number.
    fn tcp_ends(
        &self,
        c: &ConnectionSpec,
        fwd: usize,
        rev: usize,
        src: usize,
        flows: &mut [Flow],
        endpoints: &mut Vec<Endpoint>,
    ) {
        let (there, back) = (
            tcp_params(&c.source),
            c.reverse_source
                .as_deref()
                .filter(|r| r.kind == SourceKind::Tcp)
                .map(tcp_params),
        );
        let end = |send: Option<&TcpParams>, recv: Option<&TcpParams>| {
            raw_end(AnyTransport::Tcp(Box::new(TcpEnd {
                sender: send.map(|p| TcpSender::new(p.clone())),
                receiver: recv.map(|p| TcpReceiver::new(p.clone())),
                idle_restart: crate::transport::tcp::IdleRestart::Never,
            })))
        };
        let dst = flows[fwd].rx_endpoint(0) as usize; // connection 0's receiving end
        if back.is_some() {
            endpoints[src].app = end(Some(&there), back.as_ref());
            endpoints[dst].app = end(back.as_ref(), Some(&there));
        }
        for k in 1..c.source.bundle as u16 {
            let pair = (
                end(Some(&there), back.as_ref()),
                end(back.as_ref(), Some(&there)),
            );
            self.bundle_member(c, k, (fwd, rev), pair, "tcp_receiver", flows, endpoints);
        }
    }
}
