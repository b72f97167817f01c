//! Buffers: the per-category cell queues of an output port, with their admission rule, and
//! buffers shared by several ports of one node (seed 004's Fore ASX-200 shares 13,312 cells
//! between each pair of output ports).
//!
//! Admission is drop-before-enqueue with a reason for every refusal (ns-3 `queue.h`): the port
//! limit, the selective-discard threshold for CLP = 1 cells (I.371 section 6.4), the category's
//! own limit, then the shared buffer. Queue length counts cells waiting, not the one on the line.

use crate::metrics::DropReason;
use crate::net::NONE;
use crate::wire::{Cell, H_CLP};
use std::collections::VecDeque;

/// The cells waiting at an output port, one FIFO per service category (index = `Category`).
#[derive(Default)]
pub struct Queue {
    pub(crate) cells: [VecDeque<Cell>; 5],
    /// Cells waiting, all categories.
    pub(crate) len: u32,
    pub(crate) class_len: [u32; 5],
    /// Most cells waiting at once (all categories), NONE for no limit.
    pub(crate) limit: u32,
    pub(crate) class_limit: [u32; 5],
    /// Selective discard: CLP = 1 cells are refused while the queue holds this many.
    pub(crate) clp1_threshold: u32,
}

impl Queue {
    /// A queue with these limits (NONE: unlimited).
    pub fn new(limit: u32, class_limit: [u32; 5], clp1_threshold: u32) -> Self {
        Queue {
            limit,
            class_limit,
            clp1_threshold,
            ..Default::default()
        }
    }

    /// May `cell` of category `cls` wait here? `shared_full` says whether the shared buffer
    /// this port belongs to (if any) is full.
    #[inline]
    pub fn admit(&self, cell: &Cell, cls: usize, shared_full: bool) -> Result<(), DropReason> {
        if self.len >= self.limit {
            Err(DropReason::PortBufferFull)
        } else if cell.hdr & H_CLP != 0 && self.len >= self.clp1_threshold {
            Err(DropReason::Clp1Threshold)
        } else if self.class_len[cls] >= self.class_limit[cls] {
            Err(DropReason::ClassBufferFull)
        } else if shared_full {
            Err(DropReason::SharedBufferFull)
        } else {
            Ok(())
        }
    }

    /// Add an admitted cell at the tail of its category's FIFO.
    #[inline]
    pub fn push(&mut self, cell: Cell, cls: usize) {
        self.count_in(cls);
        self.cells[cls].push_back(cell);
    }

    /// Take the head cell of category `cls`.
    #[inline]
    pub fn pop(&mut self, cls: usize) -> Option<Cell> {
        let q = &mut self.cells[cls];
        let c = q.pop_front()?;
        if q.capacity() > KEEP_CELLS && q.len() * 4 < q.capacity() {
            give_back(q);
        }
        self.count_out(cls);
        Some(c)
    }

    /// Count a cell of category `cls` as waiting (`push` holds it too; a computed departure
    /// does not: the cell is on the link already, `Port::starts`).
    #[inline]
    pub fn count_in(&mut self, cls: usize) {
        self.len += 1;
        self.class_len[cls] += 1;
    }

    /// A cell of category `cls` leaves the waiting count (taken by `pop`, or a counted-only
    /// cell starting its transmission).
    #[inline]
    pub fn count_out(&mut self, cls: usize) {
        self.class_len[cls] -= 1;
        self.len -= 1;
    }

    /// [`Queue::count_out`] `n` times.
    #[inline]
    pub fn count_out_n(&mut self, cls: usize, n: u32) {
        self.class_len[cls] -= n;
        self.len -= n;
    }

    /// Which categories have cells waiting.
    #[inline]
    pub fn nonempty(&self) -> [bool; 5] {
        [0, 1, 2, 3, 4].map(|c| !self.cells[c].is_empty())
    }

    /// Every waiting cell, category by category.
    pub fn iter(&self) -> impl Iterator<Item = &Cell> {
        self.cells.iter().flat_map(|q| q.iter())
    }
}

/// Room a category's FIFO keeps however short it gets (cells; 48 KiB).
pub(crate) const KEEP_CELLS: usize = 1024;

/// Queues give memory back (issue 13): after a burst, a FIFO down to a quarter of its room is
/// halved (never below [`KEEP_CELLS`]), so a port that once held 10,000 cells does not keep
/// their 480 KB for the rest of the run. Halving at a quarter leaves the FIFO half empty, so it
/// must double its length again before it regrows: the copies cost a bounded amount per cell.
/// Only memory changes, never which cells wait or their order.
#[cold]
#[inline(never)]
fn give_back(q: &mut VecDeque<Cell>) {
    let room = (q.capacity() / 2).max(KEEP_CELLS);
    q.shrink_to(room);
}

/// A buffer shared by several ports of one node.
#[derive(Clone, Debug)]
pub struct Group {
    pub limit: u32,
    pub used: u32,
}

impl Group {
    /// Whether port group `g` (NONE: no group) has no room left.
    #[inline]
    pub fn full(groups: &[Group], g: u32) -> bool {
        g != NONE && groups[g as usize].used >= groups[g as usize].limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::H_CLP;

    fn cell(clp: bool) -> Cell {
        Cell {
            hdr: if clp { H_CLP } else { 0 },
            ..Default::default()
        }
    }

    #[test]
    fn admission_checks_limits_in_order_and_counts() {
        let mut q = Queue::new(3, [NONE, NONE, NONE, NONE, 1], 2);
        assert_eq!(q.admit(&cell(false), 4, false), Ok(()));
        q.push(cell(false), 4);
        // the UBR class holds its one cell: refused by the class limit
        assert_eq!(
            q.admit(&cell(false), 4, false),
            Err(DropReason::ClassBufferFull)
        );
        assert_eq!(
            q.admit(&cell(false), 0, true),
            Err(DropReason::SharedBufferFull)
        );
        q.push(cell(false), 0);
        // two cells wait: CLP = 1 refused at the threshold, CLP = 0 still admitted
        assert_eq!(
            q.admit(&cell(true), 0, false),
            Err(DropReason::Clp1Threshold)
        );
        assert_eq!(q.admit(&cell(false), 0, false), Ok(()));
        q.push(cell(false), 0);
        // the port limit comes first, whatever else holds
        assert_eq!(
            q.admit(&cell(true), 4, true),
            Err(DropReason::PortBufferFull)
        );
        assert_eq!((q.len, q.class_len), (3, [2, 0, 0, 0, 1]));
        assert_eq!(q.nonempty(), [true, false, false, false, true]);
        assert!(q.pop(0).is_some() && q.pop(4).is_some() && q.pop(4).is_none());
        assert_eq!((q.len, q.iter().count()), (1, 1));
    }

    #[test]
    fn a_queue_gives_its_room_back_after_a_burst() {
        let mut q = Queue::new(NONE, [NONE; 5], NONE);
        for i in 0..100_000u32 {
            let mut c = cell(false);
            c.seq = i;
            q.push(c, 4);
        }
        let burst = q.cells[4].capacity();
        assert!(burst >= 100_000);
        // the cells come out in order while the room shrinks under them
        for i in 0..99_990u32 {
            assert_eq!(q.pop(4).map(|c| c.seq), Some(i));
        }
        let room = q.cells[4].capacity();
        assert!(room < burst / 8 && room >= KEEP_CELLS, "{burst} -> {room}");
        for i in 99_990..100_000u32 {
            assert_eq!(q.pop(4).map(|c| c.seq), Some(i));
        }
        assert_eq!(q.pop(4).map(|c| c.seq), None);
        assert!(q.cells[4].capacity() <= 2 * KEEP_CELLS);
    }
}
