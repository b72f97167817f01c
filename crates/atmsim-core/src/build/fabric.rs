//! Each switch fabric from its node's scenario section (`nodes[].fabric`, `scenario/fabric.rs`):
//! one function per fabric, and [`build`], the one dispatch over them. The only file of the
//! builder that names a fabric.

use crate::net::switch::credit::{CreditFabric, CreditParams};
use crate::net::switch::output_buffered::OutputBuffered;
use crate::net::{AnyFabric, Port};
use crate::scenario::{CreditFabricSpec, FabricSpec, InputQueueing, NodeSpec};
use crate::time::*;

/// The fabric of node `node` (spec `n`), wired to its ports (`ports`: every port of the
/// network, built).
pub(crate) fn build(n: &NodeSpec, node: u32, ports: &mut [Port]) -> AnyFabric {
    match &n.fabric {
        Some(FabricSpec::Credit(c)) => AnyFabric::Credit(Box::new(credit(c, node, ports))),
        Some(FabricSpec::OutputBuffered(_)) | None => AnyFabric::OutputBuffered(OutputBuffered {
            transit_ps: us_to_ps(n.fabric_delay_us),
        }),
    }
}

/// Node `node`'s credit fabric (`nodes[].fabric`, kind "credit"), wired to its ports: its
/// inputs are the ports of the links coming in, its outputs its own ports, whose buffers become
/// `output_buffer_cells` and whose departures it hears of (`Port::fabric_node`: a credit goes
/// back when a cell leaves).
fn credit(c: &CreditFabricSpec, node: u32, ports: &mut [Port]) -> CreditFabric {
    let mut high = [false; 5];
    for k in &c.high_priority {
        high[*k as usize] = true;
    }
    let out_buffer = c.output_buffer_cells as u32;
    let p = CreditParams {
        input_buffer_cells: c.input_buffer_cells as u32,
        output_buffer_cells: out_buffer,
        credits: c.credits.map(|k| k as u32).unwrap_or(out_buffer),
        credit_delay_ps: us_to_ps(c.credit_delay_us),
        bus_bps: source_bps(c.bus_mbps),
        latency_ps: us_to_ps(c.latency_us),
        voq: c.queueing == InputQueueing::Voq,
        high,
    };
    let in_port = (0..ports.len() as u32)
        .filter(|&q| ports[q as usize].to == node)
        .collect();
    let out_port: Vec<u32> = (0..ports.len() as u32)
        .filter(|&q| ports[q as usize].node == node)
        .collect();
    for &q in &out_port {
        let port = &mut ports[q as usize];
        port.queue.limit = out_buffer;
        port.fabric_node = node;
    }
    CreditFabric::new(p, in_port, out_port, ports.len())
}
