//! What is between the two ends of each flow at one instant, for the summary's accounting
//! (docs/model.md, "Accounting: sent = received + lost + in the network"): every section of the
//! summary counts what was sent, what was received and what is still on its way, and reports
//! as lost only the rest, so nothing still travelling counts as lost and nothing lost hides as
//! undecided.
//!
//! Two looks at the buffers, each independent of the counters they are compared with:
//! - [`Simulation::in_network`]: per flow, the cells created after warm-up that are in the
//!   network (the source shaper, the ports' queues, the links, the fabrics), the end-of-frame
//!   cells among them and the CPCS-SDU bytes those carry;
//! - [`Simulation::frames_in_transit`]: per flow with a host at an end, every frame between
//!   its sending transport and its receiving one (waiting for send processing in the sending
//!   host's CPU, in the network by its end-of-frame cell, waiting for receive processing or a
//!   read in the receiving host), with its transport header, for the endpoints' own sections
//!   (a video stream's messages on their way, XTPX's bytes without error control).
//!
//! A frame whose end-of-frame cell was lost is not on its way, whatever other cells of it are:
//! it can no longer arrive whole (I.363.5).

use crate::host::cpu::Job;
use crate::net::NONE;
use crate::sim::*;
use crate::wire::{Cell, SegHdr, H_MIS};

/// One flow's cells created after warm-up that are in the network now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InNetwork {
    pub cells: u64,
    /// End-of-frame cells among them (AAL5 frames on their way).
    pub frames: u64,
    /// The CPCS-SDU bytes of those frames.
    pub frame_bytes: u64,
}

/// A frame between two transports: (CPCS-SDU bytes, transport header).
pub type FrameInTransit = (u32, SegHdr);

impl Simulation {
    /// Every cell in the network now with the flow it counts for, misinserted copies apart
    /// (they belong to no flow's count): the source shapers, the ports' queues and links, the
    /// fabrics.
    fn for_each_cell_in_network(&self, mut f: impl FnMut(&Cell)) {
        for fl in &self.flows {
            if let Some(sh) = &fl.shaper {
                sh.queue.iter().for_each(&mut f);
            }
        }
        let mut ours = |c: &Cell| {
            if c.hdr & H_MIS == 0 {
                f(c)
            }
        };
        for p in &self.ports {
            p.link.pipe.iter().for_each(|(_, c)| ours(c));
            p.queue.iter().for_each(&mut ours);
        }
        for nd in &self.nodes {
            nd.fabric.for_each_held(&mut ours);
        }
    }

    /// Per flow, its cells, frames and frame bytes created after warm-up that are in the
    /// network now, from one look at every buffer.
    pub fn in_network(&self) -> Vec<InNetwork> {
        let mut out = vec![InNetwork::default(); self.flows.len()];
        self.for_each_cell_in_network(|c| {
            if c.created < self.warmup {
                return;
            }
            let n = &mut out[c.flow as usize];
            n.cells += 1;
            if c.is_eof() {
                n.frames += 1;
                n.frame_bytes += c.len as u64;
            }
        });
        out
    }

    /// Per flow, the frames between its sending transports and its receiving ones now (every
    /// frame, warm-up or not: each section counts its own), for the flows with a host at an
    /// end; empty for the others.
    pub(crate) fn frames_in_transit(&self) -> Vec<Vec<FrameInTransit>> {
        let mut out: Vec<Vec<FrameInTransit>> = vec![Vec::new(); self.flows.len()];
        let hosted: Vec<bool> = self.flows_with_hosts();
        self.for_each_cell_in_network(|c| {
            if c.is_eof() && hosted[c.flow as usize] {
                out[c.flow as usize].push((c.len as u32, c.seg));
            }
        });
        // the flow each endpoint receives from (a host's receive processing and reads)
        let mut rx_flow = vec![NONE; self.endpoints.len()];
        for (i, f) in self.flows.iter().enumerate() {
            for &e in f.rx.iter().filter(|&&e| e != NONE) {
                rx_flow[e as usize] = i as u32;
            }
        }
        for cpu in &self.hosts.cpus {
            for job in cpu.jobs() {
                let (flow, sdu, seg) = match *job {
                    Job::Tx { ep, sdu, seg } => (self.endpoints[ep as usize].flow, sdu, seg),
                    Job::Rx { ep, sdu, seg } | Job::Read { ep, sdu, seg } => {
                        (rx_flow[ep as usize], sdu, seg)
                    }
                    Job::Call { .. } | Job::Charge => continue,
                };
                if flow != NONE {
                    out[flow as usize].push((sdu, seg));
                }
            }
        }
        out
    }

    /// Per flow: a host sends on it or receives from it.
    fn flows_with_hosts(&self) -> Vec<bool> {
        let mut hosted = vec![false; self.flows.len()];
        for e in &self.endpoints {
            if e.app.host().is_some() {
                hosted[e.flow as usize] = true;
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            if f.rx
                .iter()
                .any(|&e| e != NONE && self.endpoints[e as usize].app.host().is_some())
            {
                hosted[i] = true;
            }
        }
        hosted
    }
}
