//! `source.echo`: the echo application's keys (`source.kind = "echo"`, `app/echo.rs`), their
//! defaults and their check. The transport's own keys are `source.tcp` or `source.xtpx`.

use super::{Res, ScenarioError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The transport the echo runs over.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EchoTransport {
    /// TCP with the connection's `source.tcp` parameters (both directions).
    #[default]
    Tcp,
    /// XTPX with the connection's `source.xtpx` parameters (both directions).
    Xtpx,
    /// UDP/IP over AAL5 (requests and responses are datagrams; `mtu_bytes`).
    Udp,
}

/// `source.echo`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EchoSpec {
    /// "tcp" (default), "xtpx" or "udp".
    #[serde(default)]
    pub transport: EchoTransport,
    /// Bytes of each request and of its echoed response (1..=1e9, default 64).
    #[serde(default = "default_request_bytes")]
    #[schemars(range(min = 1, max = 1_000_000_000))]
    pub request_bytes: i64,
    /// Requests to send, one outstanding at a time (1..=1e9, default 1000).
    #[serde(default = "default_count")]
    #[schemars(range(min = 1, max = 1_000_000_000))]
    pub count: i64,
    /// From a response to the next request, s (0..=1e6, default 0: at once).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e6))]
    pub interval_s: f64,
    /// udp: a response not in after this long is lost and the next request goes, s
    /// (1e-6..=1e6, default 1).
    #[serde(default = "default_timeout_s")]
    #[schemars(range(min = 1e-6, max = 1e6))]
    pub timeout_s: f64,
    /// udp: the IP MTU, bytes (29..=65535, default 9180, RFC 1626).
    #[serde(default = "default_mtu_bytes")]
    #[schemars(range(min = 29, max = 65535))]
    pub mtu_bytes: i64,
}

fn default_request_bytes() -> i64 {
    64
}
fn default_count() -> i64 {
    1000
}
fn default_timeout_s() -> f64 {
    1.0
}
fn default_mtu_bytes() -> i64 {
    crate::transport::udp::DEFAULT_MTU as i64
}

/// Check `source.echo` at key path `p`, with whether `source.tcp` and `source.xtpx` are given.
pub(crate) fn validate_echo(p: &str, e: &EchoSpec, tcp: bool, xtpx: bool) -> Res<()> {
    let src = p.trim_end_matches(".echo");
    let unused = match e.transport {
        EchoTransport::Tcp => xtpx.then_some("xtpx"),
        EchoTransport::Xtpx => tcp.then_some("tcp"),
        EchoTransport::Udp => [(tcp, "tcp"), (xtpx, "xtpx")]
            .into_iter()
            .find_map(|(given, k)| given.then_some(k)),
    };
    if let Some(k) = unused {
        return Err(ScenarioError::new(
            format!("{src}.{k}"),
            "not used: the echo's transport is another (echo.transport)",
        ));
    }
    if e.transport != EchoTransport::Udp {
        for (k, changed) in [
            ("timeout_s", e.timeout_s != default_timeout_s()),
            ("mtu_bytes", e.mtu_bytes != default_mtu_bytes()),
        ] {
            if changed {
                return Err(ScenarioError::new(
                    format!("{p}.{k}"),
                    "used over udp only (echo.transport)",
                ));
            }
        }
    }
    Ok(())
}
