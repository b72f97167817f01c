//! Building the hosts of a connection whose ends are applications over sockets: the video
//! streams (seed 004) and the workload scripts (seed 001). The raw transport ends and the TSDU
//! writer are built with the connection (`build/connection.rs`, `source_app`).

use crate::app::video_rx::VideoReceiver;
use crate::app::video_tx::VideoSender;
use crate::app::AnyApp;
use crate::build::*;
use crate::host::{AnySource, Host, Socket};
use crate::rng::stream;
use crate::scenario::ConnectionSpec;
use crate::sim::*;
use crate::time::*;
use crate::transport::tcp::TcpEnd;
use crate::transport::udp::UdpEnd;
use crate::transport::xtpx::XtpxEnd;
use crate::transport::AnyTransport;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A host endpoint: application `app` over the one socket `sock`.
pub(crate) fn host(app: AnyApp, sock: Socket) -> AnySource {
    AnySource::Host(Box::new(Host::new(app, vec![sock])))
}

/// The scenario's traces as shared slices, one per name.
pub(crate) fn traces(sc: &crate::scenario::Scenario) -> BTreeMap<String, Arc<[u32]>> {
    sc.traces
        .iter()
        .map(|(k, t)| (k.clone(), t.frames.iter().map(|&b| b as u32).collect()))
        .collect()
}

impl Builder<'_> {
    /// A video stream (seed 004) on flow `fwd`: its sender (trace player over UDP) and its
    /// receiver (UDP reassembly, frame metrics) on the same flow. The offset into the trace and
    /// the phase of the first frame come from the stream `connections.NAME.video`.
    pub(crate) fn video(
        &self,
        c: &ConnectionSpec,
        fwd: usize,
        flows: &mut Vec<Flow>,
        endpoints: &mut Vec<Endpoint>,
    ) {
        use crate::app::video::FramePlayer;
        use crate::metrics::FrameMetrics;
        use rand::RngExt;
        let s = &c.source;
        let v = s
            .video
            .as_ref()
            .expect("validated: video needs source.video");
        let sizes = self.traces[&v.trace].clone();
        let interval = 1e12 / v.frame_rate;
        let (offset, phase) = if v.random_offset {
            let mut r = stream(self.sc.run.seed, &format!("connections.{}.video", c.name));
            let k = r.random_range(0..sizes.len());
            let ph = (r.random::<f64>() * interval) as SimTime;
            (k, ph)
        } else {
            (0, 0)
        };
        let t0 = secs_to_ps(s.start_s) + phase;
        let stop = s.stop_s.map(secs_to_ps).unwrap_or(SimTime::MAX);
        let player = FramePlayer::new(sizes, v.frame_rate, offset, t0, stop);
        let first_frame = player.first_at_or_after(secs_to_ps(self.sc.run.warmup_s));
        flows[fwd].sar.framed = true;
        let metrics = FrameMetrics::new(interval, v.playout_intervals, first_frame);
        if v.transport == crate::scenario::VideoTransportSpec::Tcp {
            return self.video_tcp(c, fwd, flows, endpoints, player, first_frame, metrics);
        }
        // over UDP: the player's messages as datagrams, the receiver on the same flow
        let tx = VideoSender::new(player.clone(), first_frame);
        let rx = VideoReceiver::new(metrics, player, false);
        let udp = |e: UdpEnd| Socket::new(AnyTransport::Udp(Box::new(e)));
        let key = format!("connections.{}.source", c.name);
        let tx = host(AnyApp::VideoTx(Box::new(tx)), udp(UdpEnd::sender(v.mtu_bytes as u32)));
        endpoints.push(self.endpoint(fwd, tx, key));
        flows[fwd].set_rx(0, endpoints.len() as u32);
        let key = format!("connections.{}.video_receiver", c.name);
        let rx = host(AnyApp::VideoRx(Box::new(rx)), udp(UdpEnd::receiver()));
        endpoints.push(self.endpoint(fwd, rx, key));
    }

    /// A video stream over TCP (seed 004 Experiment 4): the sender writes each frame into its
    /// socket on flow `fwd`, the receiver reads the byte stream and sends its ACKs on the
    /// reverse flow, as for `source.kind = "tcp"` (parameters `source.tcp`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn video_tcp(
        &self,
        c: &ConnectionSpec,
        fwd: usize,
        flows: &mut Vec<Flow>,
        endpoints: &mut Vec<Endpoint>,
        player: crate::app::video::FramePlayer,
        first_frame: u64,
        metrics: crate::metrics::FrameMetrics,
    ) {
        let mut p = tcp_params(&c.source);
        p.workload = crate::transport::tcp::Workload::App;
        let route: Vec<String> = c.route.iter().rev().cloned().collect();
        let rev = flows.len();
        flows.push(self.flow(
            format!("{}.reverse", c.name),
            &route,
            c.category,
            None,
            false,
        ));
        flows[fwd].pair = rev as u32;
        flows[rev].pair = fwd as u32;
        flows[fwd].sar.framed = true;
        flows[rev].sar.framed = true;
        let tx_sock = Socket::new(AnyTransport::Tcp(Box::new(TcpEnd::sender(p.clone()))));
        let rx_sock = Socket::new(AnyTransport::Tcp(Box::new(TcpEnd::receiver(p))));
        let tx = VideoSender::new(player.clone(), first_frame);
        let rx = VideoReceiver::new(metrics, player, true);
        let src = endpoints.len();
        let key = format!("connections.{}.source", c.name);
        let tx = host(AnyApp::VideoTx(Box::new(tx)), tx_sock);
        endpoints.push(self.endpoint(fwd, tx, key));
        flows[fwd].set_rx(0, endpoints.len() as u32);
        flows[rev].set_rx(0, src as u32);
        let key = format!("connections.{}.video_receiver", c.name);
        let rx = host(AnyApp::VideoRx(Box::new(rx)), rx_sock);
        endpoints.push(self.endpoint(rev, rx, key));
    }
}

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
        let route: Vec<String> = c.route.iter().rev().cloned().collect();
        let rev = flows.len();
        flows.push(self.flow(
            format!("{}.reverse", c.name),
            &route,
            c.category,
            None,
            false,
        ));
        flows[fwd].pair = rev as u32;
        flows[rev].pair = fwd as u32;
        flows[fwd].sar.framed = true;
        flows[rev].sar.framed = true;
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
        let (a, b) = (endpoints.len(), endpoints.len() + 1);
        endpoints.push(self.endpoint(
            fwd,
            host(Role::Initiator),
            format!("connections.{}.source", c.name),
        ));
        endpoints.push(self.endpoint(
            rev,
            host(Role::Responder),
            format!("connections.{}.responder", c.name),
        ));
        for i in 0..k as u16 {
            flows[fwd].set_rx(i, b as u32);
            flows[rev].set_rx(i, a as u32);
        }
    }
}
