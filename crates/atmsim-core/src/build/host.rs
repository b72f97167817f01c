//! What the builders of hosts share: a host endpoint over one socket, a raw transport end, a
//! member of a bundle, the traces, and the host models (`nodes[].host`).

use crate::app::AnyApp;
use crate::build::*;
use crate::host::{AnySource, Host, Socket};
use crate::net::*;
use crate::scenario::{ConnectionSpec, Scenario};
use crate::sim::*;
use crate::time::*;
use crate::transport::AnyTransport;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A host endpoint: application `app` over the one socket `sock`.
pub(crate) fn host(app: AnyApp, sock: Socket) -> AnySource {
    AnySource::Host(Box::new(Host::new(app, vec![sock])))
}

/// The scenario's traces as shared slices, one per name.
pub(crate) fn traces(sc: &Scenario) -> BTreeMap<String, Arc<[u32]>> {
    sc.traces
        .iter()
        .map(|(k, t)| (k.clone(), t.frames.iter().map(|&b| b as u32).collect()))
        .collect()
}

/// A raw transport end (`source.kind = "tcp"` or `"xtpx"` without TSDUs): the transport sends
/// its own workload (an infinite file or a number of bytes), and the application above reads
/// whatever arrives.
pub(crate) fn raw_end(t: AnyTransport) -> AnySource {
    host(AnyApp::Reader(crate::app::reader::Reader), Socket::new(t))
}

impl Builder<'_> {
    /// The two ends of a plain connection whose AAL5 frames go both ways: `src` sending on flow
    /// `fwd`, the reverse flow (frames of `rframe` bytes, paired with `fwd`), and `rx` (its
    /// random stream `connections.NAME.RX_KEY`) sending on it; each direction's frames reach
    /// the other end as connection 0. The reverse flow's index and `src`'s.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn two_ends(
        &self,
        c: &ConnectionSpec,
        fwd: usize,
        (src, rx): (AnySource, AnySource),
        rx_key: &str,
        rframe: Option<u32>,
        flows: &mut Vec<Flow>,
        endpoints: &mut Vec<Endpoint>,
    ) -> (usize, usize) {
        let a = endpoints.len();
        endpoints.push(self.endpoint(fwd, src, format!("connections.{}.source", c.name)));
        let rev = self.reverse_flow(c, fwd, rframe, flows);
        flows[fwd].sar.framed = true;
        flows[rev].sar.framed = true;
        flows[fwd].set_rx(0, endpoints.len() as u32);
        flows[rev].set_rx(0, a as u32);
        let key = format!("connections.{}.{rx_key}", c.name);
        endpoints.push(self.endpoint(rev, rx, key));
        (rev, a)
    }

    /// Connection 0 of a raw transport source on a plain VC: the two hosts of
    /// [`Builder::host_ends`] joined by [`Builder::two_ends`] (the reverse flow's frames of
    /// `reverse_source.frame_bytes`); the reverse flow's index and the source's.
    pub(crate) fn host_pair(
        &self,
        c: &ConnectionSpec,
        fwd: usize,
        rx_key: &str,
        flows: &mut Vec<Flow>,
        endpoints: &mut Vec<Endpoint>,
    ) -> (usize, usize) {
        let (a, b, _) = self
            .host_ends(c)
            .expect("a raw transport has hosts at both ends");
        let rframe = c.reverse_source.as_ref().and_then(|s| s.frame_bytes);
        let rframe = rframe.map(|f| f as u32);
        self.two_ends(c, fwd, (a, b), rx_key, rframe, flows, endpoints)
    }

    /// Connection `k` of a bundle on flows `fwd`/`rev`: its sending end (`apps.0`, on `fwd`)
    /// and receiving end (`apps.1`, named `connections.NAME.RX#k`), each flow handing frames
    /// numbered `k` to the far end.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn bundle_member(
        &self,
        c: &ConnectionSpec,
        k: u16,
        (fwd, rev): (usize, usize),
        apps: (AnySource, AnySource),
        rx: &str,
        flows: &mut [Flow],
        endpoints: &mut Vec<Endpoint>,
    ) {
        let (a, b) = (endpoints.len(), endpoints.len() + 1);
        let mut ea = self.endpoint(fwd, apps.0, format!("connections.{}.source#{k}", c.name));
        let mut eb = self.endpoint(rev, apps.1, format!("connections.{}.{rx}#{k}", c.name));
        (ea.conn, eb.conn) = (k, k);
        endpoints.push(ea);
        endpoints.push(eb);
        flows[fwd].set_rx(k, b as u32);
        flows[rev].set_rx(k, a as u32);
    }
}

/// The host models (`nodes[].host`): a CPU per host node with a model, and for each endpoint
/// of such a host that uses its protocol stack, that CPU. An endpoint sits at the first node of
/// the flow it sends on, or, receiving only, at the last node of the flow it receives.
pub(crate) fn host_models(sim: &mut Simulation, sc: &Scenario) {
    use crate::host::cpu::{HostCpu, HostParams};
    let mut node_cpu = vec![NONE; sim.nodes.len()];
    for (i, n) in sc.nodes.iter().enumerate() {
        let Some(h) = &n.host else { continue };
        let v = h.values();
        let us = |x: f64| secs_to_ps(x / 1e6);
        let p = HostParams {
            preset: h.preset.map(|p| p.name()),
            per_tsdu: us(v.per_tsdu_us),
            per_packet_send: us(v.per_packet_send_us),
            per_packet_recv: us(v.per_packet_recv_us),
            per_byte_send_ps: v.per_byte_send_ns * 1e3,
            per_byte_recv_ps: v.per_byte_recv_ns * 1e3,
            send_buffer: v.send_buffer_bytes,
            receive_buffer: v.receive_buffer_bytes,
            shared_socket: h.receive_socket == Some(crate::scenario::host::ReceiveSocket::Shared),
            adapter_buffer: v.adapter_receive_buffer_bytes,
            keep_up_tolerance: secs_to_ps(v.keep_up_tolerance_ms / 1e3),
        };
        node_cpu[i] = sim.hosts.cpus.len() as u32;
        sim.hosts.cpus.push(HostCpu::new(i as u32, p, sim.warmup));
    }
    if sim.hosts.cpus.is_empty() {
        return;
    }
    let mut ep_node: Vec<u32> = sim
        .endpoints
        .iter()
        .map(|e| sim.ports[sim.flows[e.flow as usize].ports[0] as usize].node)
        .collect();
    for f in &sim.flows {
        let last = sim.ports[*f.ports.last().expect("a flow has ports") as usize].to;
        for &e in f.rx.iter() {
            if e != NONE {
                ep_node[e as usize] = last;
            }
        }
    }
    sim.hosts.ep_cpu = vec![NONE; sim.endpoints.len()];
    for (e, ep) in sim.endpoints.iter_mut().enumerate() {
        let c = node_cpu[ep_node[e] as usize];
        // cell-level applications and ABR end systems do not use the host's protocol stack
        let (true, Some(h)) = (c != NONE, ep.app.host_mut()) else {
            continue;
        };
        sim.hosts.ep_cpu[e] = c;
        // every socket's writes and reads are system calls on the host's CPU, and sockets get
        // the host's send buffer (docs/hosts.md, docs/workloads.md)
        h.gate(sim.hosts.cpus[c as usize].p.send_buffer);
    }
}
