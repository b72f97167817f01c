//! Building an echo connection (`source.kind = "echo"`, `app/echo.rs`): the client at the
//! source, the server at the destination, one duplex socket each of the chosen transport.

use crate::app::echo::{Echo, EchoParams, Role};
use crate::app::AnyApp;
use crate::build::*;
use crate::net::*;
use crate::scenario::{ConnectionSpec, EchoTransport};
use crate::sim::*;
use crate::time::*;
use crate::transport::tcp::TcpEnd;
use crate::transport::udp::UdpEnd;
use crate::transport::xtpx::XtpxEnd;
use crate::transport::AnyTransport;
use crate::transport::Workload;

impl Builder<'_> {
    /// An echo connection on flow `fwd` and its reverse flow.
    pub(crate) fn echo(
        &self,
        c: &ConnectionSpec,
        fwd: usize,
        flows: &mut Vec<Flow>,
        endpoints: &mut Vec<Endpoint>,
    ) {
        let e = c
            .source
            .echo
            .as_ref()
            .expect("validated: echo needs source.echo");
        let p = EchoParams {
            request_bytes: e.request_bytes as u64,
            count: e.count as u64,
            interval: secs_to_ps(e.interval_s),
            timeout: secs_to_ps(e.timeout_s),
            start: secs_to_ps(c.source.start_s),
        };
        // one duplex end of the chosen transport, written to by the application
        let end = || match e.transport {
            EchoTransport::Tcp => {
                let mut t = tcp_params(&c.source);
                t.workload = Workload::App;
                AnyTransport::Tcp(Box::new(TcpEnd::duplex(t.clone(), t)))
            }
            EchoTransport::Xtpx => {
                let mut x = xtpx_params(&c.source);
                x.workload = Workload::App;
                AnyTransport::Xtpx(Box::new(XtpxEnd::duplex(x)))
            }
            EchoTransport::Udp => AnyTransport::Udp(Box::new(UdpEnd::duplex(e.mtu_bytes as u32))),
        };
        let app = |role| AnyApp::Echo(Box::new(Echo::new(role, p)));
        let ends = (
            host(app(Role::Client), crate::host::Socket::new(end())),
            host(app(Role::Server), crate::host::Socket::new(end())),
        );
        self.two_ends(c, fwd, ends, "echo_server", None, flows, endpoints);
    }
}
