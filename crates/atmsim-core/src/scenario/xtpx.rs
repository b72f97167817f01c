//! XTPX connections (`connections[].source.xtpx` with `source.kind = "xtpx"`): rate control,
//! window flow control and error control, each switchable off (seed 001 section 5.2), and the
//! conversion of the keys into the model's parameters ([`XtpxSpec::params`]). The model is
//! `transport/xtpx/`; `docs/xtpx.md` documents every key with the seed's text.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// XTPX error control.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum XtpxErrorControlSpec {
    /// No retransmission: gaps are skipped.
    None,
    /// The receiver drops out-of-order packets; a gap sends the sender back to it.
    GoBackN,
    /// The receiver keeps out-of-order packets and reports its gaps; only they are resent.
    #[default]
    SelectiveRepeat,
}

/// XTPX parameters (`source.xtpx`). Rate control (`rate_control`, `burst_bytes`,
/// `interval_ms`) or window flow control (`window_bytes`) is required; every other key is
/// optional (a bulk transfer with selective repeat by default).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct XtpxSpec {
    /// Rate control on: at most burst_bytes payload bytes per interval_ms (R = B / I; seed 001
    /// section 5.2; default false).
    pub rate_control: bool,
    /// rate_control: B, payload bytes per interval (headers not counted; 1..=2^30); required.
    #[schemars(range(min = 1, max = 1073741824))]
    pub burst_bytes: Option<i64>,
    /// rate_control: I, the interval, ms (> 0); required.
    #[schemars(range(min = 1e-6, max = 1e9))]
    pub interval_ms: Option<f64>,
    /// Window flow control: the receiver's allocation beyond rseq, bytes (at least one
    /// packet's payload, at most 2^30). Absent: window flow control off. Rate control or the
    /// window (or both) must be on: with neither nothing limits the sender.
    #[schemars(range(min = 1, max = 1073741824))]
    pub window_bytes: Option<i64>,
    /// "selective_repeat" (default), "go_back_n" or "none".
    pub error_control: XtpxErrorControlSpec,
    /// The AAL5 MTU: the largest packet, header included (64..=65,535, default 9,180: RFC
    /// 1626; seed 001's WAN used 9,188).
    #[schemars(range(min = 64, max = 65535))]
    pub mtu_bytes: i64,
    /// Largest payload of a data packet (1..=mtu_bytes - header_bytes). Absent: mtu_bytes -
    /// header_bytes.
    #[schemars(range(min = 1, max = 65535))]
    pub packet_bytes: Option<i64>,
    /// Header bytes of every packet (default 32, the XTP 4.0 common header; 1..=1,024).
    #[schemars(range(min = 1, max = 1024))]
    pub header_bytes: i64,
    /// The sender asks for a status report (SREQ) on every n-th data packet and on the last
    /// one before it stops (1..=1,000,000, default 1).
    #[schemars(range(min = 1, max = 1000000))]
    pub status_every_packets: i64,
    /// The receiver reports at once when a packet arrives beyond a gap (XTP's FASTNAK;
    /// default true).
    pub fastnak: bool,
    /// Retransmission (status request) timer, ms (> 0, default 1,000), doubled on each expiry
    /// up to timer_max_s.
    #[schemars(range(min = 1e-6, max = 1e9))]
    pub timer_ms: f64,
    /// Largest timer after backoff, s (default 64; >= timer_ms).
    #[schemars(range(min = 1e-9, max = 1e6))]
    pub timer_max_s: f64,
    /// A finite transfer of this many bytes (1..=2^50). Absent: an infinite file.
    #[schemars(range(min = 1i64, max = 1125899906842624i64))]
    pub bytes: Option<i64>,
}

impl Default for XtpxSpec {
    fn default() -> Self {
        XtpxSpec {
            rate_control: false,
            burst_bytes: None,
            interval_ms: None,
            window_bytes: None,
            error_control: XtpxErrorControlSpec::SelectiveRepeat,
            mtu_bytes: 9180,
            packet_bytes: None,
            header_bytes: crate::transport::xtpx::XTP_HEADER_BYTES as i64,
            status_every_packets: 1,
            fastnak: true,
            timer_ms: 1000.0,
            timer_max_s: 64.0,
            bytes: None,
        }
    }
}

impl XtpxSpec {
    /// Largest payload of a data packet.
    pub fn payload(&self) -> i64 {
        self.packet_bytes
            .unwrap_or(self.mtu_bytes - self.header_bytes)
    }

    /// The model's parameters (a validated spec).
    pub fn params(&self, start_s: f64) -> crate::transport::xtpx::XtpxParams {
        use crate::time::secs_to_ps;
        use crate::transport::xtpx::{ErrorControl, Rate, Workload, XtpxParams};
        let mut p = XtpxParams::new(self.mtu_bytes as u32);
        p.header_bytes = self.header_bytes as u32;
        p.max_payload = self.payload() as u32;
        p.rate = if self.rate_control {
            Some(Rate {
                burst: self
                    .burst_bytes
                    .expect("validated: rate control needs burst_bytes")
                    as u64,
                interval: secs_to_ps(
                    self.interval_ms
                        .expect("validated: rate control needs interval_ms")
                        / 1e3,
                )
                .max(1),
            })
        } else {
            None
        };
        p.window = self.window_bytes.map(|w| w as u64);
        p.error_control = match self.error_control {
            XtpxErrorControlSpec::None => ErrorControl::None,
            XtpxErrorControlSpec::GoBackN => ErrorControl::GoBackN,
            XtpxErrorControlSpec::SelectiveRepeat => ErrorControl::SelectiveRepeat,
        };
        p.status_every = self.status_every_packets as u32;
        p.fastnak = self.fastnak;
        p.timer = secs_to_ps(self.timer_ms / 1e3).max(1);
        p.timer_max = secs_to_ps(self.timer_max_s).max(p.timer);
        p.workload = match self.bytes {
            Some(n) => Workload::Bytes(n as u64),
            None => Workload::Bulk,
        };
        p.start = secs_to_ps(start_s);
        p
    }
}
