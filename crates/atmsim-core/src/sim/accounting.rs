//! What is between the two ends of each flow at one instant, for the summary's accounting
//! (docs/model.md, "Accounting: sent = received + lost + in the network"): every section of the
//! summary counts what was sent, what was received and what is still on its way, and reports
//! as lost only the rest, so nothing still travelling counts as lost and nothing lost hides as
//! undecided.
//!
//! [`Simulation::in_network`]: per flow, the cells created after warm-up that are in the
//! network (the source shaper, the ports' queues, the links, the fabrics), the end-of-frame
//! cells among them and the CPCS-SDU bytes those carry, from one look at every buffer,
//! independent of the counters they are compared with.
//!
//! A frame whose end-of-frame cell was lost is not on its way, whatever other cells of it are:
//! it can no longer arrive whole (I.363.5).

use crate::sim::*;
use crate::wire::{Cell, H_MIS};

/// One flow's cells created after warm-up that are in the network now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InNetwork {
    pub cells: u64,
    /// End-of-frame cells among them (AAL5 frames on their way).
    pub frames: u64,
    /// The CPCS-SDU bytes of those frames.
    pub frame_bytes: u64,
}

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
}
