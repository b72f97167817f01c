//! Cells reaching the last node of their flow: QoS accounting (CTD, CDV, CLR, CER, CMR, SECBR
//! blocks), AAL5 reassembly, and hand-over to the receiving endpoint.
//!
//! Cost (cachegrind, bench (a)): about 80 instructions per delivered cell for the statistics
//! (SECBR blocks, counters, CTD sum/min/max, the delay histogram), a few each (issue 13: a
//! rewrite with each warm-up and RM check made once and branch-free counters measured no better
//! then, 692.5 -> 693.1 per cell-hop). Issue 27 item 3: each check made once with the hand-over
//! out of line ([`Simulation::deliver_on`]) saved 476.1 -> 469.9 per cell-hop, kept.

use crate::app::{Application, Asks, Ctx};
use crate::metrics::CellOutcome;
use crate::net::*;
use crate::sim::*;
use crate::wire::{Cell, FrameEvent, SegHdr, CELL_PAYLOAD, H_CLP, H_ERR, H_MIS};

impl Simulation {
    /// A cell reaches the last node of its flow at `now`: the time of the event that carries
    /// it, or its arrival time on a passive sink's link, delivered later (`sim/sink.rs`).
    ///
    /// The statistics inline, each condition tested once (the warm-up, RM), and the rest out of
    /// line ([`Simulation::deliver_on`]: a VS/VD switch's feedback, the trace, the receiving
    /// endpoint), taken only when there is something to do there, so the common path keeps
    /// fewer registers (issue 27 item 3).
    pub(crate) fn deliver(&mut self, cell: Cell, now: SimTime) {
        let warmup = self.warmup;
        let in_window = now >= warmup;
        let counted = cell.created >= warmup;
        let rm = cell.is_rm();
        let f = &mut self.flows[cell.flow as usize];
        if cell.hdr & H_MIS != 0 {
            // a stranger: counted, not delivered to the application
            if in_window {
                f.stats.misinserted += 1;
                f.blocks.record(CellOutcome::Misinserted);
            }
            return;
        }
        let errored = cell.hdr & H_ERR != 0;
        if !rm {
            if counted {
                // SECBR blocks in sending order: a gap in the sequence numbers is lost cells
                if let Some(next) = f.rx_next {
                    for _ in 0..cell.seq.wrapping_sub(next).min(1 << 20) {
                        f.blocks.record(CellOutcome::Lost);
                    }
                }
                f.blocks.record(if errored {
                    CellOutcome::Errored
                } else {
                    CellOutcome::Delivered
                });
            }
            f.rx_next = Some(cell.seq.wrapping_add(1));
        }
        if counted {
            let st = &mut f.stats;
            if cell.hdr & H_CLP == 0 {
                st.delivered_clp0 += 1;
            }
            if errored {
                st.errored += 1;
            }
            st.delivered += 1;
            let d = now - cell.created;
            st.ctd_sum += d as u128;
            st.ctd_max = st.ctd_max.max(d);
            st.ctd_min = st.ctd_min.min(d);
            st.ctd_hist.record(d.saturating_sub(f.base_ps));
        }
        let mut frame_done = None;
        if rm {
            // RM cells take capacity but carry no user data
        } else {
            if f.sar.framed {
                match f.sar.receive(cell.seq, cell.is_eof(), cell.len, errored) {
                    FrameEvent::None => {}
                    FrameEvent::Delivered { len } => {
                        frame_done = Some((len as u32, cell.seg));
                        if counted {
                            f.stats.frames_delivered += 1;
                            f.stats.frame_bytes_delivered += len as u64;
                        }
                        if in_window {
                            f.stats.user_bytes_window += len as u64;
                        }
                    }
                    FrameEvent::Lost => {}
                }
            } else if in_window {
                f.stats.user_bytes_window += CELL_PAYLOAD as u64;
            }
            if in_window {
                f.stats.rx_cells_window += 1;
            }
        }
        // at a VS/VD switch data cells go on to the virtual source, RM cells to the virtual
        // destination; elsewhere everything goes to the application at the far end (the
        // coupling's other fields are read out of line, by `deliver_on`: issue 27 item 3)
        let e = if f.has_vs && f.vs_endpoint != NONE && !rm {
            f.vs_endpoint
        } else {
            f.rx_endpoint(cell.seg.conn)
        };
        let brm_at_vs = rm && f.has_vs && f.vs_fwd != NONE;
        if !rm {
            self.flow_rx[cell.flow as usize].total += 1;
        }
        if e != NONE || brm_at_vs || self.tracer.on {
            self.deliver_on(cell, now, e, frame_done);
        }
    }

    /// [`Simulation::deliver`] after the statistics, at `now`: a BRM's feedback at a VS/VD switch, the
    /// trace's row, and the hand-over to endpoint `e` (NONE: none), in that order.
    #[inline(never)]
    fn deliver_on(
        &mut self,
        mut cell: Cell,
        now: SimTime,
        e: u32,
        frame_done: Option<(u32, SegHdr)>,
    ) {
        // the flow's virtual source, its next flow, drain time and forward segment (NONE, NONE,
        // 0, NONE without a VS/VD switch)
        let f = &self.flows[cell.flow as usize];
        let (vs, next, drain_s, vs_fwd) = if f.has_vs {
            (f.vs_endpoint, f.vs_next, f.vs_drain_s, f.vs_fwd)
        } else {
            (NONE, NONE, 0.0, NONE)
        };
        if vs_fwd != NONE && cell.is_rm() {
            // a BRM of a segment that starts at a VS/VD switch: the switch's own output port
            // for the segment gives its feedback before the virtual source takes the cell
            let fp = self.flows[vs_fwd as usize].ports[0];
            self.abr_feedback(fp, vs_fwd, &mut cell);
        }
        if self.tracer.on {
            self.trace_deliver(&cell, frame_done.is_some());
        }
        if e != NONE {
            // on a host with a model the frame goes through receive processing first
            let host = if e != vs { self.cpu_of(e) } else { None };
            let mut host_rx = None;
            let ep = &mut self.endpoints[e as usize];
            let mut asks = Asks::default();
            let mut ctx = Ctx::new(now, &mut ep.rng, &mut asks);
            ep.app.on_cell(&mut ctx, &cell);
            if let Some((sdu, seg)) = frame_done {
                if let Some(c) = host {
                    host_rx = Some((c, sdu, seg));
                } else if e != vs {
                    ep.app.on_frame(&mut ctx, sdu, seg);
                }
            }
            if vs != NONE && e != vs {
                if let Some(b) = &mut asks.cell {
                    self.couple_vd(vs, next, drain_s, b);
                }
            }
            if !asks.is_empty() {
                self.apply(e, &asks);
            }
            if let Some((c, sdu, seg)) = host_rx {
                self.host_rx(c, e, sdu, seg);
            }
        }
    }
}
