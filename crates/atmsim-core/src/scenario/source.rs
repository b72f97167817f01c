//! Traffic sources of a scenario (`connections[].source`, `reverse_source`): CBR, persistent,
//! ON-OFF, none, the MPEG-2 model of seed 000 section 4 and BSD-style TCP, with the conversions
//! of their keys into the models' parameters ([`TcpSpec::params`], [`SourceSpec::video_params`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Kind of traffic source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// Constant bit rate: cells evenly spaced at `rate_mbps`.
    Cbr,
    /// Always has data; sends at its peak rate `peak_mbps` (default: its first link's rate).
    Persistent,
    /// ON for duty_cycle x period at `peak_mbps`, then OFF; optionally exponential periods.
    Onoff,
    /// Sends nothing (a sink-only direction).
    None,
    /// The MPEG-2 transport-stream model of seed 000 section 4: `sources` independent video
    /// sources (FGN rates per inter-MPCR interval) multiplexed onto the connection.
    Mpeg2,
    /// A TCP connection (BSD Reno family, `source.tcp`): segments as AAL5 frames, ACKs on the
    /// reverse direction; over ABR the segments wait in the ABR source's queue.
    Tcp,
    /// A video stream over UDP (seed 004, `source.video`): frames of a trace at a frame rate,
    /// each frame in UDP datagrams up to the MTU; the receiver keeps frame metrics.
    Video,
    /// An XTPX connection (`source.xtpx`, seed 001 section 5.2): rate, window and error
    /// control, each switchable off; packets as AAL5 frames, status reports on the reverse
    /// direction; over ABR the packets wait in the ABR source's queue.
    Xtpx,
    /// A workload script (`source.workload`, seed 001 section 13, SPIMS): bulk transfers and
    /// request-response over K transport connections bundled on the VC, an initiator at the
    /// source and a responder at the destination (docs/workloads.md); over ABR the
    /// initiator's frames wait in the ABR source's queue.
    Workload,
    /// Request-response echo (`source.echo`, `app/echo.rs`) over TCP, XTPX or UDP: the client
    /// at the source, the server at the destination.
    Echo,
}

/// TCP recovery from loss.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TcpRecoverySpec {
    /// Timeouts only (seeds 000 and 002).
    None,
    /// Fast retransmit, then slow start (4.3BSD Tahoe).
    Tahoe,
    /// Fast retransmit and fast recovery (4.3BSD Reno).
    #[default]
    Reno,
    /// Reno with partial-ACK handling (RFC 6582).
    Newreno,
}

/// TCP parameters (`source.tcp`); defaults are BSD's where the seeds say nothing. Every key is
/// optional: an empty table takes the defaults.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TcpSpec {
    /// Maximum segment size, payload bytes (default 512, seeds 000/002; at most mtu_bytes - 40).
    #[schemars(range(min = 1, max = 65487))]
    pub mss_bytes: i64,
    /// IP MTU over AAL5 (88..=65,527, default 9180, RFC 1626; at most 65,527 so that a frame
    /// fits AAL5).
    #[schemars(range(min = 88, max = 65527))]
    pub mtu_bytes: i64,
    /// Receive buffer = advertised window, bytes (at least one MSS; default 65,535; above that
    /// needs window_scale; at most 65,535 x 2^14).
    #[schemars(range(min = 1, max = 1073725440))]
    pub window_bytes: i64,
    /// RFC 1323 window scaling (default false).
    pub window_scale: bool,
    /// "none", "tahoe", "reno" (default) or "newreno".
    pub recovery: TcpRecoverySpec,
    /// Delayed ACKs: every second segment or at the fast timer (default false).
    pub delayed_ack: bool,
    /// With delayed ACKs on a host with a model (docs/hosts.md): the ACK of in-order data
    /// leaves after the application's read, with the window the read freed, when the read
    /// opened the window by two segments or half the buffer (default true, 4.3BSD: tcp_input
    /// only flags the delayed ACK, the read's tcp_output sends it). False: every second segment
    /// is acknowledged on arrival, before the read.
    pub ack_at_read: bool,
    /// BSD's mbuf cluster size MCLBYTES (a power of two 256..=65536): 4.3BSD `tcp_mss` rounds
    /// an MSS above it down to a multiple of it (9,148 to 8,192), and the socket layer's
    /// `sosend` hands each write to TCP one cluster at a time, TCP's output running after
    /// each (docs/tcp.md). Absent: the MSS is `mss_bytes` as given and a write reaches TCP
    /// whole.
    #[schemars(range(min = 256, max = 65536))]
    pub mcl_bytes: Option<i64>,
    /// Fast-timer period of delayed ACKs, ms (> 0, default 200).
    #[schemars(range(min = 1e-3, max = 1e6))]
    pub delack_ms: f64,
    /// Nagle's algorithm (default true).
    pub nagle: bool,
    /// Coarse timer tick, ms (> 0, default 100; BSD's slow timer is 500).
    #[schemars(range(min = 1e-3, max = 1e6))]
    pub timer_granularity_ms: f64,
    /// Smallest RTO, ms (> 0). Absent: two ticks (2 x timer_granularity_ms, BSD's TCPTV_MIN).
    #[schemars(range(min = 1e-3, max = 1e9))]
    pub rto_min_ms: Option<f64>,
    /// RTO before the first RTT sample, s (> 0, default 3, RFC 1122 section 4.2.3.1).
    #[schemars(range(min = 1e-6, max = 1e6))]
    pub rto_initial_s: f64,
    /// Largest RTO, s (>= the smallest RTO; default 64, BSD's TCPTV_REXMTMAX).
    #[schemars(range(min = 1e-6, max = 1e6))]
    pub rto_max_s: f64,
    /// Initial congestion window, segments (1..=1000, default 1).
    #[schemars(range(min = 1, max = 1000))]
    pub initial_cwnd_segments: i64,
    /// A finite transfer of this many bytes (1..=2^50). Absent: an infinite file (bulk
    /// transfer for the whole run).
    #[schemars(range(min = 1i64, max = 1125899906842624i64))]
    pub bytes: Option<i64>,
    /// The sending application writes TSDUs of this many bytes through a socket, as fast as
    /// the socket send buffer takes them (1..=1073741824; seed 001's bulk transfers with a
    /// constant TSDU size; `app/writer.rs`, docs/hosts.md). Absent: TCP always has data (an
    /// infinite file, no system calls). Not with `bytes`, a bundle, reverse TCP data or ABR.
    #[schemars(range(min = 1i64, max = 1073741824i64))]
    pub tsdu_bytes: Option<i64>,
}

impl Default for TcpSpec {
    /// BSD's defaults, with the seeds' MSS of 512 bytes.
    fn default() -> Self {
        TcpSpec {
            mss_bytes: 512,
            mtu_bytes: 9180,
            window_bytes: 65_535,
            window_scale: false,
            recovery: TcpRecoverySpec::Reno,
            delayed_ack: false,
            ack_at_read: true,
            mcl_bytes: None,
            delack_ms: 200.0,
            nagle: true,
            timer_granularity_ms: 100.0,
            rto_min_ms: None,
            rto_initial_s: 3.0,
            rto_max_s: 64.0,
            initial_cwnd_segments: 1,
            bytes: None,
            tsdu_bytes: None,
        }
    }
}

impl TcpSpec {
    /// The smallest RTO, ms: `rto_min_ms`, or two ticks.
    pub fn rto_min_ms(&self) -> f64 {
        self.rto_min_ms.unwrap_or(2.0 * self.timer_granularity_ms)
    }

    /// The MSS the connection uses: `mss_bytes`, rounded down to a multiple of `mcl_bytes`
    /// when above it (4.3BSD `tcp_mss`).
    pub fn mss(&self) -> u32 {
        let mss = self.mss_bytes as u32;
        match self.mcl_bytes {
            Some(c) if mss > c as u32 => mss / c as u32 * c as u32,
            _ => mss,
        }
    }

    /// The model's parameters.
    pub fn params(&self, start_s: f64) -> crate::transport::tcp::TcpParams {
        use crate::time::secs_to_ps;
        use crate::transport::tcp::{Recovery, TcpParams, Workload};
        let mut p = TcpParams::new(self.mss(), self.window_bytes as u64);
        p.recovery = match self.recovery {
            TcpRecoverySpec::None => Recovery::None,
            TcpRecoverySpec::Tahoe => Recovery::Tahoe,
            TcpRecoverySpec::Reno => Recovery::Reno,
            TcpRecoverySpec::Newreno => Recovery::NewReno,
        };
        p.delayed_ack = self.delayed_ack;
        p.ack_at_read = self.ack_at_read;
        p.send_chunk = self.mcl_bytes.map(|c| c as u64);
        p.delack = secs_to_ps(self.delack_ms / 1e3);
        p.nagle = self.nagle;
        p.tick = secs_to_ps(self.timer_granularity_ms / 1e3);
        p.rto_min = secs_to_ps(self.rto_min_ms() / 1e3);
        p.rto_initial = secs_to_ps(self.rto_initial_s);
        p.rto_max = secs_to_ps(self.rto_max_s);
        p.initial_cwnd = self.initial_cwnd_segments as u32;
        p.workload = match (self.bytes, self.tsdu_bytes) {
            (Some(n), _) => Workload::Bytes(n as u64),
            (None, Some(_)) => Workload::App,
            (None, None) => Workload::Bulk,
        };
        p.start = secs_to_ps(start_s);
        p
    }
}

/// FGN generator of the MPEG-2 model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FgnMethodSpec {
    /// Paxson's FFT method (LBL-36750), the seed's.
    #[default]
    Paxson,
    /// The Davies-Harte exact method.
    DaviesHarte,
}

/// A traffic source. Which keys apply depends on `kind`: a key of another kind is an error
/// unless it has its default value.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// `cbr`, `persistent`, `onoff`, `mpeg2`, `tcp`, `xtpx`, `video` or `none` (see
    /// [`SourceKind`]).
    pub kind: SourceKind,
    /// cbr: rate in Mb/s of 53-byte cells (> 0, at most 1e6); required.
    #[serde(default)]
    #[schemars(range(min = 1e-3, max = 1e6))]
    pub rate_mbps: Option<f64>,
    /// persistent: the rate it sends at (> 0); absent: the rate of the connection's first link
    /// (not allowed over ABR, which sends at its ACR). onoff: rate while ON (> 0); required.
    /// mpeg2: each video source's leaky-bucket peak rate; absent: 15 (seed 000 section 4).
    #[serde(default)]
    #[schemars(range(min = 1e-3, max = 1e6))]
    pub peak_mbps: Option<f64>,
    /// onoff: share of each period spent ON, in (0, 1]; required.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub duty_cycle: Option<f64>,
    /// onoff: ON + OFF period, seconds (> 0); required.
    #[serde(default)]
    #[schemars(range(min = 1e-6, max = 1e6))]
    pub period_s: Option<f64>,
    /// onoff: draw ON and OFF lengths from exponential distributions with the same means
    /// (default false: fixed lengths).
    #[serde(default)]
    pub exponential: bool,
    /// First cell at this time, seconds (>= 0, default 0).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e6))]
    pub start_s: f64,
    /// No cells from this time on, seconds (> start_s). Absent: the source runs to the end.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e6))]
    pub stop_s: Option<f64>,
    /// Send AAL5 frames of this many user bytes (1..=65535). Absent: unframed cells.
    #[serde(default)]
    #[schemars(range(min = 1, max = 65535))]
    pub frame_bytes: Option<i64>,
    /// Shape the cells to the connection's contract before they enter the network: a cell
    /// waits at the source until it conforms to the PCR/CDVT (and SCR/BT) GCRA (default false;
    /// needs a contract, not for ABR).
    #[serde(default)]
    pub shape: bool,
    /// mpeg2: mean m of the FGN rate sequence per video source, Mb/s (> 0); required.
    #[serde(default)]
    #[schemars(range(min = 1e-3, max = 1e6))]
    pub mean_mbps: Option<f64>,
    /// mpeg2: standard deviation s of the rate sequence, Mb/s (> 0); required.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e6))]
    pub std_mbps: Option<f64>,
    /// mpeg2: Hurst parameter in (0.5, 1) (default 0.8).
    #[serde(default = "default_hurst")]
    #[schemars(range(min = 0.5, max = 1.0))]
    pub hurst: f64,
    /// mpeg2: FGN generator, "paxson" (default) or "davies_harte".
    #[serde(default)]
    pub fgn: FgnMethodSpec,
    /// mpeg2: number of video sources multiplexed onto the connection (1..=1000, default 1;
    /// seed 000: 9).
    #[serde(default = "default_video_sources")]
    #[schemars(range(min = 1, max = 1000))]
    pub sources: i64,
    /// mpeg2: rates below this are skipped (not clipped), Mb/s (default 0).
    #[serde(default = "default_min_rate_mbps")]
    #[schemars(range(min = 0.0, max = 1e6))]
    pub min_rate_mbps: f64,
    /// mpeg2: rates above this are skipped (not clipped), Mb/s (default 15).
    #[serde(default = "default_max_rate_mbps")]
    #[schemars(range(min = 0.0, max = 1e6))]
    pub max_rate_mbps: f64,
    /// mpeg2: shortest inter-MPCR interval, s (default 0.02).
    #[serde(default = "default_interval_min_s")]
    #[schemars(range(min = 1e-6, max = 1e6))]
    pub interval_min_s: f64,
    /// mpeg2: longest inter-MPCR interval, s (default 0.1).
    #[serde(default = "default_interval_max_s")]
    #[schemars(range(min = 1e-6, max = 1e6))]
    pub interval_max_s: f64,
    /// tcp: the TCP parameters (absent or an empty table: the defaults).
    #[serde(default)]
    pub tcp: Option<Box<TcpSpec>>,
    /// xtpx: the XTPX parameters (absent or an empty table: the defaults).
    #[serde(default)]
    pub xtpx: Option<Box<super::XtpxSpec>>,
    /// tcp, xtpx: the number of transport connections multiplexed on this VC (1..=1024,
    /// default 1; seed 001 section 6.4, connection bundling). Each has its own sender and receiver and its own
    /// connection number in the frames' transport header, by which the receiving host hands
    /// each frame to its connection; their frames share the VC in the order they are sent.
    #[serde(default = "default_bundle")]
    #[schemars(range(min = 1, max = 1024))]
    pub bundle: i64,
    /// video: the stream's trace, frame rate, MTU and playout buffer; required.
    #[serde(default)]
    pub video: Option<Box<super::VideoSpec>>,
    /// workload: the script, its transport and connections; required.
    #[serde(default)]
    pub workload: Option<Box<super::WorkloadSpec>>,
    /// echo: its transport, request size, count and pacing; required.
    #[serde(default)]
    pub echo: Option<Box<super::EchoSpec>>,
}

// The MPEG-2 defaults are seed 000 section 4's, kept with the model (`VideoParams::default`).
pub(crate) fn default_hurst() -> f64 {
    crate::app::mpeg2::VideoParams::default().hurst
}
pub(crate) fn default_bundle() -> i64 {
    1
}
pub(crate) fn default_video_sources() -> i64 {
    1
}
pub(crate) fn default_min_rate_mbps() -> f64 {
    crate::app::mpeg2::VideoParams::default().min_rate_mbps
}
pub(crate) fn default_max_rate_mbps() -> f64 {
    crate::app::mpeg2::VideoParams::default().max_rate_mbps
}
pub(crate) fn default_interval_min_s() -> f64 {
    crate::app::mpeg2::VideoParams::default().interval_min_s
}
pub(crate) fn default_interval_max_s() -> f64 {
    crate::app::mpeg2::VideoParams::default().interval_max_s
}

impl SourceSpec {
    /// The MPEG-2 model's parameters (seed 000 section 4 defaults for what is absent).
    pub fn video_params(&self) -> crate::app::mpeg2::VideoParams {
        use crate::app::mpeg2::VideoParams;
        let d = VideoParams::default();
        VideoParams {
            mean_mbps: self.mean_mbps.unwrap_or(d.mean_mbps),
            std_mbps: self.std_mbps.unwrap_or(d.std_mbps),
            hurst: self.hurst,
            method: match self.fgn {
                FgnMethodSpec::Paxson => crate::stats::fgn::FgnMethod::Paxson,
                FgnMethodSpec::DaviesHarte => crate::stats::fgn::FgnMethod::DaviesHarte,
            },
            min_rate_mbps: self.min_rate_mbps,
            max_rate_mbps: self.max_rate_mbps,
            peak_mbps: self.peak_mbps.unwrap_or(d.peak_mbps),
            interval_min_s: self.interval_min_s,
            interval_max_s: self.interval_max_s,
            start: crate::time::secs_to_ps(self.start_s),
            stop: self.stop_s.map(crate::time::secs_to_ps).unwrap_or(u64::MAX),
            ..d
        }
    }
}
