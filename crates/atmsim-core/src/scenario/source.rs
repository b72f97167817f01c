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
}

/// TCP recovery from loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TcpRecoverySpec {
    /// Timeouts only (seeds 000 and 002).
    None,
    /// Fast retransmit, then slow start (4.3BSD Tahoe).
    Tahoe,
    /// Fast retransmit and fast recovery (4.3BSD Reno).
    Reno,
    /// Reno with partial-ACK handling (RFC 6582).
    Newreno,
}

/// TCP parameters (`source.tcp`); defaults are BSD's where the seeds say nothing.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Maximum segment size, payload bytes (default 512, seeds 000/002; at most mtu_bytes - 40).
    #[serde(default)]
    pub mss_bytes: Option<i64>,
    /// IP MTU over AAL5 (default 9180, RFC 1626; at most 65,527 so that a frame fits AAL5).
    #[serde(default)]
    pub mtu_bytes: Option<i64>,
    /// Receive buffer = advertised window, bytes (default 65,535; above that needs
    /// window_scale; at most 65,535 x 2^14).
    #[serde(default)]
    pub window_bytes: Option<i64>,
    /// RFC 1323 window scaling (default false).
    #[serde(default)]
    pub window_scale: Option<bool>,
    /// "none", "tahoe", "reno" (default) or "newreno".
    #[serde(default)]
    pub recovery: Option<TcpRecoverySpec>,
    /// Delayed ACKs: every second segment or at the fast timer (default false).
    #[serde(default)]
    pub delayed_ack: Option<bool>,
    /// Fast-timer period of delayed ACKs, ms (default 200).
    #[serde(default)]
    pub delack_ms: Option<f64>,
    /// Nagle's algorithm (default true).
    #[serde(default)]
    pub nagle: Option<bool>,
    /// Coarse timer tick, ms (default 100; BSD's slow timer is 500).
    #[serde(default)]
    pub timer_granularity_ms: Option<f64>,
    /// Smallest RTO, ms (default two ticks, BSD's TCPTV_MIN).
    #[serde(default)]
    pub rto_min_ms: Option<f64>,
    /// RTO before the first RTT sample, s (default 3, RFC 1122 section 4.2.3.1).
    #[serde(default)]
    pub rto_initial_s: Option<f64>,
    /// Largest RTO, s (default 64, BSD's TCPTV_REXMTMAX).
    #[serde(default)]
    pub rto_max_s: Option<f64>,
    /// Initial congestion window, segments (default 1).
    #[serde(default)]
    pub initial_cwnd_segments: Option<i64>,
    /// A finite transfer of this many bytes (default: an infinite file).
    #[serde(default)]
    pub bytes: Option<i64>,
}

impl TcpSpec {
    /// The model's parameters (defaults filled in).
    pub fn params(&self, start_s: f64) -> crate::transport::tcp::TcpParams {
        use crate::time::secs_to_ps;
        use crate::transport::tcp::{Recovery, TcpParams, Workload};
        let mut p = TcpParams::new(
            self.mss_bytes.unwrap_or(512) as u32,
            self.window_bytes.unwrap_or(65_535) as u64,
        );
        p.recovery = match self.recovery.unwrap_or(TcpRecoverySpec::Reno) {
            TcpRecoverySpec::None => Recovery::None,
            TcpRecoverySpec::Tahoe => Recovery::Tahoe,
            TcpRecoverySpec::Reno => Recovery::Reno,
            TcpRecoverySpec::Newreno => Recovery::NewReno,
        };
        p.delayed_ack = self.delayed_ack.unwrap_or(false);
        p.delack = secs_to_ps(self.delack_ms.unwrap_or(200.0) / 1e3);
        p.nagle = self.nagle.unwrap_or(true);
        let tick_ms = self.timer_granularity_ms.unwrap_or(100.0);
        p.tick = secs_to_ps(tick_ms / 1e3);
        p.rto_min = secs_to_ps(self.rto_min_ms.unwrap_or(2.0 * tick_ms) / 1e3);
        p.rto_initial = secs_to_ps(self.rto_initial_s.unwrap_or(3.0));
        p.rto_max = secs_to_ps(self.rto_max_s.unwrap_or(64.0));
        p.initial_cwnd = self.initial_cwnd_segments.unwrap_or(1) as u32;
        p.workload = match self.bytes {
            Some(n) => Workload::Bytes(n as u64),
            None => Workload::Bulk,
        };
        p.start = secs_to_ps(start_s);
        p
    }
}

/// FGN generator of the MPEG-2 model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FgnMethodSpec {
    /// Paxson's FFT method (LBL-36750), the seed's.
    Paxson,
    /// The Davies-Harte exact method.
    DaviesHarte,
}

/// A traffic source. Which keys apply depends on `kind`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// `cbr`, `persistent`, `onoff`, `mpeg2`, `tcp` or `none` (see [`SourceKind`]).
    pub kind: SourceKind,
    /// cbr: rate in Mb/s of 53-byte cells (> 0).
    #[serde(default)]
    pub rate_mbps: Option<f64>,
    /// persistent: peak rate (default the first link's rate); onoff: rate while ON (> 0).
    #[serde(default)]
    pub peak_mbps: Option<f64>,
    /// onoff: share of each period spent ON, in (0, 1].
    #[serde(default)]
    pub duty_cycle: Option<f64>,
    /// onoff: ON + OFF period, seconds (> 0).
    #[serde(default)]
    pub period_s: Option<f64>,
    /// onoff: draw ON and OFF lengths from exponential distributions with the same means.
    #[serde(default)]
    pub exponential: Option<bool>,
    /// First cell at this time, seconds (>= 0).
    #[serde(default)]
    pub start_s: f64,
    /// No cells from this time on, seconds (> start_s).
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Send AAL5 frames of this many user bytes (1..=65535); absent = unframed cells.
    #[serde(default)]
    pub frame_bytes: Option<i64>,
    /// Shape the cells to the connection's contract before they enter the network: a cell
    /// waits at the source until it conforms to the PCR/CDVT (and SCR/BT) GCRA.
    #[serde(default)]
    pub shape: Option<bool>,
    /// mpeg2: mean m of the FGN rate sequence per video source, Mb/s.
    #[serde(default)]
    pub mean_mbps: Option<f64>,
    /// mpeg2: standard deviation s of the rate sequence, Mb/s.
    #[serde(default)]
    pub std_mbps: Option<f64>,
    /// mpeg2: Hurst parameter in (0.5, 1) (default 0.8).
    #[serde(default)]
    pub hurst: Option<f64>,
    /// mpeg2: FGN generator, "paxson" (default) or "davies_harte".
    #[serde(default)]
    pub fgn: Option<FgnMethodSpec>,
    /// mpeg2: number of video sources multiplexed onto the connection (default 1; seed 000: 9).
    #[serde(default)]
    pub sources: Option<i64>,
    /// mpeg2: rates below this are skipped (not clipped), Mb/s (default 0).
    #[serde(default)]
    pub min_rate_mbps: Option<f64>,
    /// mpeg2: rates above this are skipped (not clipped), Mb/s (default 15).
    #[serde(default)]
    pub max_rate_mbps: Option<f64>,
    /// mpeg2: shortest inter-MPCR interval, s (default 0.02).
    #[serde(default)]
    pub interval_min_s: Option<f64>,
    /// mpeg2: longest inter-MPCR interval, s (default 0.1).
    #[serde(default)]
    pub interval_max_s: Option<f64>,
    /// tcp: the TCP parameters (an empty table takes the defaults).
    #[serde(default)]
    pub tcp: Option<TcpSpec>,
    /// tcp: the number of TCP connections multiplexed on this VC (1..=1024, default 1; seed 001
    /// section 6.4, connection bundling). Each has its own sender and receiver and its own
    /// connection number in the frames' transport header, by which the receiving host hands
    /// each frame to its connection; their frames share the VC in the order they are sent.
    #[serde(default)]
    pub bundle: Option<i64>,
}

impl SourceSpec {
    /// The MPEG-2 model's parameters (seed 000 section 4 defaults for what is absent).
    pub fn video_params(&self) -> crate::app::mpeg2::VideoParams {
        use crate::app::mpeg2::VideoParams;
        let d = VideoParams::default();
        VideoParams {
            mean_mbps: self.mean_mbps.unwrap_or(d.mean_mbps),
            std_mbps: self.std_mbps.unwrap_or(d.std_mbps),
            hurst: self.hurst.unwrap_or(d.hurst),
            method: match self.fgn {
                Some(FgnMethodSpec::DaviesHarte) => crate::stats::fgn::FgnMethod::DaviesHarte,
                _ => crate::stats::fgn::FgnMethod::Paxson,
            },
            min_rate_mbps: self.min_rate_mbps.unwrap_or(d.min_rate_mbps),
            max_rate_mbps: self.max_rate_mbps.unwrap_or(d.max_rate_mbps),
            peak_mbps: self.peak_mbps.unwrap_or(d.peak_mbps),
            interval_min_s: self.interval_min_s.unwrap_or(d.interval_min_s),
            interval_max_s: self.interval_max_s.unwrap_or(d.interval_max_s),
            start: crate::time::secs_to_ps(self.start_s),
            stop: self.stop_s.map(crate::time::secs_to_ps).unwrap_or(u64::MAX),
            ..d
        }
    }
}
