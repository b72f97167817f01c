//! The host model of a node (`nodes[].host` on `kind = "host"` nodes; docs/hosts.md): the CPU
//! costs of the system calls and of the protocol processing per packet and per byte, the socket
//! buffers, and the presets of the seeds' machines. Absent: the ideal host (no costs, unlimited
//! buffers), as before the host model existed.
//!
//! Every value of a preset is our reading, named as such in docs/hosts.md: the seeds name the
//! machines (seed 001: Sparc-10 under SunOS 4.1.3/4.1.4; seed 004: RS/6000 with a 66 MHz
//! POWER2, AIX 3.2.5, IBM Turboways 100 adapters) but give no processing costs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The machines of the seeds (docs/hosts.md gives each value's reading).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum HostPreset {
    /// Seed 001's trans-Atlantic hosts: Sparc-10, SunOS 4.1.3 / 4.1.4, FORE adapter (fa0).
    #[serde(rename = "seed001-wan")]
    Seed001Wan,
    /// Seed 001's BALI LAN hosts: Sparc-10, SunOS 4.1.3, qaa0 adapter.
    #[serde(rename = "seed001-lan")]
    Seed001Lan,
    /// Seed 004's hosts: IBM RS/6000, 66 MHz POWER2, AIX 3.2.5, Turboways 100 (100 Mb/s TAXI).
    #[serde(rename = "seed004")]
    Seed004,
}

/// The host model of one host node. Each key given overrides the preset's value.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// "seed001-wan", "seed001-lan" or "seed004". Absent: every key absent is 0 (no cost) or
    /// unlimited (buffers).
    #[serde(default)]
    pub preset: Option<HostPreset>,
    /// CPU time of one write or read system call (one TSDU), microseconds (>= 0). Absent: the
    /// preset's, or 0.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e9))]
    pub per_tsdu_us: Option<f64>,
    /// Protocol processing per packet sent (TCP/UDP, IP, driver), microseconds (>= 0). Absent:
    /// the preset's, or 0.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e9))]
    pub per_packet_send_us: Option<f64>,
    /// Protocol processing per packet received, microseconds (>= 0). Absent: the preset's, or 0.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e9))]
    pub per_packet_recv_us: Option<f64>,
    /// Per payload byte sent (copy, checksum), nanoseconds (>= 0). Absent: the preset's, or 0.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e9))]
    pub per_byte_send_ns: Option<f64>,
    /// Per payload byte received (copy, checksum), nanoseconds (>= 0). Absent: the preset's, or
    /// 0.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e9))]
    pub per_byte_recv_ns: Option<f64>,
    /// Socket send buffer, bytes (>= 1): a stream application blocks while written and
    /// unacknowledged bytes fill it. Absent: the preset's, or the TCP window.
    #[serde(default)]
    #[schemars(range(min = 1i64, max = 4294967295i64))]
    pub send_buffer_bytes: Option<i64>,
    /// Socket receive buffer of a datagram (UDP) socket, bytes (>= 1): a datagram arriving when
    /// it is full is dropped by the host (drop reason `host_receive_buffer`). Absent: the
    /// preset's, or unlimited. (A TCP socket's receive buffer is `source.tcp.window_bytes`.)
    #[serde(default)]
    #[schemars(range(min = 1i64, max = 4294967295i64))]
    pub receive_buffer_bytes: Option<i64>,
    /// A video sender is flagged as not keeping up when its mean send time per frame exceeds
    /// the frame interval by more than this, ms (>= 0; default 0.01, the resolution of seed
    /// 004's "41.67 milliseconds").
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e6))]
    pub keep_up_tolerance_ms: Option<f64>,
    /// Datagram (UDP) sockets of the connections that end at this host: "per_connection" (one
    /// socket, with its own `receive_buffer_bytes`, per connection; the default) or "shared"
    /// (one socket for every datagram connection into the host, read by one process that
    /// demultiplexes by sender and port, as seed 004's receiver: docs/hosts.md).
    #[serde(default)]
    pub receive_socket: Option<ReceiveSocket>,
    /// The adapter's receive buffers, bytes (>= 1): reassembled frames (CPCS-SDU bytes) waiting
    /// on the adapter for the host's receive processing; a frame that does not fit is dropped
    /// by the adapter (drop reason `adapter_receive_buffer`). Absent: the preset's, or
    /// unlimited.
    #[serde(default)]
    #[schemars(range(min = 1i64, max = 4294967295i64))]
    pub adapter_receive_buffer_bytes: Option<i64>,
}

/// Which datagram socket a connection ending at a host delivers into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub enum ReceiveSocket {
    /// One socket per connection, each with its own receive buffer.
    #[default]
    #[serde(rename = "per_connection")]
    PerConnection,
    /// One socket (one receive buffer) for every datagram connection into the host.
    #[serde(rename = "shared")]
    Shared,
}

/// One preset's values (docs/hosts.md: our readings), or a host's resolved values (buffers:
/// u64::MAX = unlimited).
#[derive(Debug, Clone, PartialEq)]
pub struct HostValues {
    pub per_tsdu_us: f64,
    pub per_packet_send_us: f64,
    pub per_packet_recv_us: f64,
    pub per_byte_send_ns: f64,
    pub per_byte_recv_ns: f64,
    pub send_buffer_bytes: u64,
    pub receive_buffer_bytes: u64,
    pub keep_up_tolerance_ms: f64,
    pub adapter_receive_buffer_bytes: u64,
}
type Preset = HostValues;

/// Sparc-10 under SunOS 4.1.x (seed 001): our readings, docs/hosts.md.
const SPARC10: Preset = Preset {
    per_tsdu_us: 50.0,
    per_packet_send_us: 150.0,
    per_packet_recv_us: 150.0,
    per_byte_send_ns: 100.0,
    per_byte_recv_ns: 100.0,
    send_buffer_bytes: 65_535,
    receive_buffer_bytes: 65_535,
    keep_up_tolerance_ms: 0.01,
    adapter_receive_buffer_bytes: u64::MAX,
};

/// RS/6000, 66 MHz POWER2, AIX 3.2.5 (seed 004): our readings, docs/hosts.md.
const RS6000: Preset = Preset {
    per_tsdu_us: 20.0,
    per_packet_send_us: 60.0,
    per_packet_recv_us: 60.0,
    per_byte_send_ns: 15.0,
    per_byte_recv_ns: 15.0,
    send_buffer_bytes: 16_384,
    receive_buffer_bytes: 41_600,
    keep_up_tolerance_ms: 0.01,
    // the Turboways 100's on-board buffer sizes were not found in any source we could read
    // (docs/hosts.md): unlimited
    adapter_receive_buffer_bytes: u64::MAX,
};

impl HostPreset {
    pub fn name(self) -> &'static str {
        match self {
            HostPreset::Seed001Wan => "seed001-wan",
            HostPreset::Seed001Lan => "seed001-lan",
            HostPreset::Seed004 => "seed004",
        }
    }
    fn values(self) -> &'static Preset {
        match self {
            HostPreset::Seed001Wan | HostPreset::Seed001Lan => &SPARC10,
            HostPreset::Seed004 => &RS6000,
        }
    }
}

impl HostSpec {
    /// The preset's values with the keys given over them.
    pub fn values(&self) -> HostValues {
        let pr = self.preset.map(HostPreset::values);
        let v = |k: Option<f64>, f: fn(&Preset) -> f64| k.or(pr.map(f)).unwrap_or(0.0);
        let b = |k: Option<i64>, f: fn(&Preset) -> u64| {
            k.map(|x| x as u64).or(pr.map(f)).unwrap_or(u64::MAX)
        };
        HostValues {
            per_tsdu_us: v(self.per_tsdu_us, |p| p.per_tsdu_us),
            per_packet_send_us: v(self.per_packet_send_us, |p| p.per_packet_send_us),
            per_packet_recv_us: v(self.per_packet_recv_us, |p| p.per_packet_recv_us),
            per_byte_send_ns: v(self.per_byte_send_ns, |p| p.per_byte_send_ns),
            per_byte_recv_ns: v(self.per_byte_recv_ns, |p| p.per_byte_recv_ns),
            send_buffer_bytes: b(self.send_buffer_bytes, |p| p.send_buffer_bytes),
            receive_buffer_bytes: b(self.receive_buffer_bytes, |p| p.receive_buffer_bytes),
            keep_up_tolerance_ms: self.keep_up_tolerance_ms.unwrap_or(0.01),
            adapter_receive_buffer_bytes: b(self.adapter_receive_buffer_bytes, |p| {
                p.adapter_receive_buffer_bytes
            }),
        }
    }
}
