//! Building a video stream (seed 004, `source.kind = "video"`): the trace player and the
//! receiver over UDP (both on the forward flow) or over TCP (ACKs on the reverse flow).

use crate::app::video_rx::VideoReceiver;
use crate::app::video_tx::VideoSender;
use crate::app::AnyApp;
use crate::build::*;
use crate::host::Socket;
use crate::net::*;
use crate::rng::stream;
use crate::scenario::ConnectionSpec;
use crate::sim::*;
use crate::time::*;
use crate::transport::tcp::TcpEnd;
use crate::transport::udp::UdpEnd;
use crate::transport::AnyTransport;

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
        let tx = host(
            AnyApp::VideoTx(Box::new(tx)),
            udp(UdpEnd::sender(v.mtu_bytes as u32)),
        );
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
        let tx_sock = Socket::new(AnyTransport::Tcp(Box::new(TcpEnd::sender(p.clone()))));
        let rx_sock = Socket::new(AnyTransport::Tcp(Box::new(TcpEnd::receiver(p))));
        let tx = VideoSender::new(player.clone(), first_frame);
        let rx = VideoReceiver::new(metrics, player, true);
        let ends = (
            host(AnyApp::VideoTx(Box::new(tx)), tx_sock),
            host(AnyApp::VideoRx(Box::new(rx)), rx_sock),
        );
        self.two_ends(c, fwd, ends, "video_receiver", None, flows, endpoints);
    }
}
