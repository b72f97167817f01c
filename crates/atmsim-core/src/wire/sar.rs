//! Segmentation and reassembly of one VC direction at its two ends (AAL5, ITU-T I.363.5); the
//! VC's flow (`crate::net::Flow`) holds it, so the network needs nothing of the hosts.
//!
//! The sending host numbers every cell of the flow (the receiver detects lost cells from the
//! gaps: SECBR) and cuts an application's stream into fixed-size AAL5 frames (`source.
//! frame_bytes`) or a transport's frames into cells ([`Sar::frame`]); the receiving host
//! reassembles frames and checks them as the AAL5 CRC would ([`Reassembler`]). The engine hands
//! a completed frame to the transport connection named in its header ([`crate::net::Flow`]
//! demultiplexes by `SegHdr::conn`).
//!
//! A frame's cells are emitted one after the other, so frames of several transport connections
//! sharing the VC never interleave (AAL5 has no multiplexing identifier). An ABR source paces a
//! transport's frames cell by cell at ACR from its own queue ([`crate::abr::FrameQueue`]).

use super::{aal5_cells, FrameEvent, Reassembler};

/// Segmentation and reassembly state of one flow.
#[derive(Clone, Debug, Default)]
pub struct Sar {
    /// Cells per fixed-size frame of an application's stream (0: unframed cells).
    frame_cells: u32,
    /// SDU bytes of those frames (the AAL5 Length field of their end-of-frame cell).
    frame_len: u16,
    /// Cells travel in AAL5 frames (fixed-size ones, or a transport's frames of any size).
    pub framed: bool,
    /// Sequence number of the flow's next cell.
    tx_seq: u32,
    /// Cells of the current fixed-size frame already sent.
    tx_in_frame: u32,
    /// Frames being reassembled at the receiving host.
    reasm: Reassembler,
}

impl Sar {
    /// A flow whose application stream is cut into frames of `frame` SDU bytes, or unframed.
    pub fn new(frame: Option<u32>) -> Self {
        Sar {
            frame_cells: frame.map_or(0, aal5_cells),
            frame_len: frame.map_or(0, |f| f as u16),
            framed: frame.is_some(),
            ..Default::default()
        }
    }

    /// The next cell of the application's stream: (its index within the frame, or the SDU
    /// length on the end-of-frame cell; end of frame). Unframed: (0, false).
    #[inline]
    pub fn next_stream_cell(&mut self) -> (u16, bool) {
        if self.frame_cells == 0 {
            return (0, false);
        }
        let idx = self.tx_in_frame;
        self.tx_in_frame += 1;
        if self.tx_in_frame == self.frame_cells {
            self.tx_in_frame = 0;
            (self.frame_len, true)
        } else {
            (idx as u16, false)
        }
    }

    /// The cells of one frame of `sdu` bytes, in order: (index, or the SDU length on the
    /// end-of-frame cell; end of frame).
    pub fn frame(sdu: u32) -> impl Iterator<Item = (u16, bool)> {
        let n = aal5_cells(sdu);
        (0..n).map(move |i| {
            if i + 1 == n {
                (sdu as u16, true)
            } else {
                (i as u16, false)
            }
        })
    }

    /// Take the sequence number of the next cell.
    #[inline]
    pub fn take_seq(&mut self) -> u32 {
        let s = self.tx_seq;
        self.tx_seq = s.wrapping_add(1);
        s
    }

    /// The sequence number the next cell will take (RM cells carry it without consuming it).
    #[inline]
    pub fn next_seq(&self) -> u32 {
        self.tx_seq
    }

    /// A cell of a framed flow reached the receiving host.
    #[inline]
    pub fn receive(&mut self, seq: u32, eof: bool, len: u16, errored: bool) -> FrameEvent {
        self.reasm.on_cell_checked(seq, eof, len, errored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_frames_are_cut_and_numbered_in_order() {
        // 100 SDU bytes + 8 B trailer = 3 cells: indexes 0, 1, then the length on the EOF cell
        let mut s = Sar::new(Some(100));
        let cells: Vec<_> = (0..6).map(|_| s.next_stream_cell()).collect();
        assert_eq!(
            cells,
            [
                (0, false),
                (1, false),
                (100, true),
                (0, false),
                (1, false),
                (100, true)
            ]
        );
        assert_eq!((s.take_seq(), s.take_seq(), s.next_seq()), (0, 1, 2));
        let mut u = Sar::new(None);
        assert!(!u.framed && u.next_stream_cell() == (0, false));
    }

    #[test]
    fn a_frame_is_aal5_cells_with_the_length_on_the_last() {
        let f: Vec<_> = Sar::frame(568).collect(); // a 512 B TCP segment: 12 cells
        assert_eq!(f.len(), 12);
        assert_eq!(f[11], (568, true));
        assert!(f[..11]
            .iter()
            .enumerate()
            .all(|(i, &c)| c == (i as u16, false)));
        // reassembly of those cells delivers the frame once
        let mut s = Sar::new(None);
        let ev: Vec<_> = f
            .iter()
            .enumerate()
            .map(|(i, &(l, e))| s.receive(i as u32, e, l, false))
            .collect();
        assert!(matches!(ev[11], FrameEvent::Delivered { len: 568 }));
        assert!(ev[..11].iter().all(|e| matches!(e, FrameEvent::None)));
    }
}
