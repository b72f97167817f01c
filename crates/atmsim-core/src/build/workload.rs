//! Building a workload (seed 001 section 13, `source.kind = "workload"`): the initiator and the
//! responder, each with K duplex sockets of the chosen transport.

use crate::app::AnyApp;
use crate::build::*;
use crate::host::{AnySource, Host, Socket};
use crate::net::*;
use crate::rng::stream;
use crate::scenario::ConnectionSpec;
use crate::sim::*;
use crate::time::*;
use crate::transport::tcp::TcpEnd;
use crate::transport::xtpx::XtpxEnd;
use crate::transport::AnyTransport;
use std::sync::Arc;

impl Builder<'_> {
    /// A workload (`source.kind = "workload"`): the flows both ways, the initiator at the
    /// source and the responder at the destination, each with K duplex TCP sockets (connection k
    /// of the bundle is socket k at both ends; every connection's frames reach the one endpoint
    /// at the far end, which hands them to socket `SegHdr::conn`).
    pub(crate) fn workload(
        &self,
        c: &ConnectionSpec,
        fwd: usize,
        flows: &mut Vec<Flow>,
        endpoints: &mut Vec<Endpoint>,
    ) {
        let (initiator, responder, k) = self.workload_ends(c);
        let rev = self.reverse_flow(c, fwd, None, flows);
        flows[fwd].sar.framed = true;
        flows[rev].sar.framed = true;
        let (a, b) = (endpoints.len(), endpoints.len() + 1);
        endpoints.push(self.endpoint(
            fwd,
            initiator,
            format!("connections.{}.source", c.name),
        ));
        endpoints.push(self.endpoint(
            rev,
            responder,
            format!("connections.{}.responder", c.name),
        ));
        for i in 0..k {
            flows[fwd].set_rx(i, b as u32);
            flows[rev].set_rx(i, a as u32);
        }
    }

    /// A workload's two hosts, the initiator and the responder, each with K duplex sockets of
    /// the chosen transport; and K.
    pub(crate) fn workload_ends(&self, c: &ConnectionSpec) -> (AnySource, AnySource, u16) {
        use crate::app::workload::{Restart, Role, WorkloadApp, WorkloadParams};
        use crate::scenario::{IdleRestartSpec, RestartSpec, WorkloadTransport};
        use crate::transport::tcp::IdleRestart;
        use crate::transport::xtpx::{XtpxReceiver, XtpxSender};
        let w = c.source.workload.as_ref().expect("validated: workload");
        let script = Arc::new(w.parsed());
        let k = w.connections(&script);
        let mut p = tcp_params(&c.source);
        p.workload = crate::transport::tcp::Workload::App;
        let xp = (w.transport == WorkloadTransport::Xtpx).then(|| {
            let mut x = xtpx_params(&c.source);
            x.workload = crate::transport::xtpx::Workload::App;
            x
        });
        let idle = match w.idle_restart {
            IdleRestartSpec::Rto => IdleRestart::Rto,
            IdleRestartSpec::Always => IdleRestart::Always,
            IdleRestartSpec::Never => IdleRestart::Never,
        };
        // one duplex end of the chosen transport
        let end = || match w.transport {
            WorkloadTransport::Tcp => {
                let mut t = TcpEnd::duplex(p.clone(), p.clone());
                t.idle_restart = idle;
                AnyTransport::Tcp(Box::new(t))
            }
            WorkloadTransport::Xtpx => {
                let x = xp.clone().expect("xtpx parameters");
                AnyTransport::Xtpx(Box::new(XtpxEnd {
                    sender: Some(XtpxSender::new(x.clone())),
                    receiver: Some(XtpxReceiver::new(x)),
                }))
            }
        };
        let params = WorkloadParams {
            restart: match w.restart {
                RestartSpec::Run => Restart::Run,
                RestartSpec::Never => Restart::Never,
            },
            control_bytes: w.control_bytes as u64,
            start: secs_to_ps(c.source.start_s),
            transport: match w.transport {
                WorkloadTransport::Tcp => "tcp",
                WorkloadTransport::Xtpx => "xtpx",
            },
        };
        let seed = self.sc.run.seed;
        let host = |role| {
            let socks = (0..k).map(|_| Socket::new(end())).collect();
            // both ends draw sizes from the same stream per connection
            let shared = (0..k)
                .map(|i| stream(seed, &format!("connections.{}.workload#{i}", c.name)))
                .collect();
            let app = WorkloadApp::new(role, script.clone(), params, shared);
            AnySource::Host(Box::new(Host::new(AnyApp::Workload(Box::new(app)), socks)))
        };
        (host(Role::Initiator), host(Role::Responder), k as u16)
    }
}
