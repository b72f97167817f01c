//! AAL5 (ITU-T I.363.5): cells per CPCS-PDU (payload, padding to a multiple of 48 bytes, 8-byte
//! trailer with CPCS-UU, CPI, Length and CRC-32), efficiency over the line, and the receiver's
//! reassembly, which decides which frames are lost. Also the LLC/SNAP header length of RFC
//! 1483/2684 carried inside the frame (seed 000 section 6: TCP/IP over AAL5 overhead). Moved
//! from `wire.rs`.

use super::cell::{CELL_BYTES, CELL_PAYLOAD};

/// AAL5 CPCS-PDU trailer bytes (I.363.5).
pub const AAL5_TRAILER: u32 = 8;
/// Largest AAL5 CPCS-SDU (the trailer's 16-bit Length field).
pub const AAL5_MAX_SDU: u32 = 65_535;
/// LLC/SNAP header bytes for routed PDUs (RFC 2684).
pub const LLC_SNAP: u32 = 8;

/// Cells needed for an AAL5 frame carrying `sdu_bytes` of user data: ceil((L + 8) / 48).
pub fn aal5_cells(sdu_bytes: u32) -> u32 {
    (sdu_bytes + AAL5_TRAILER).div_ceil(CELL_PAYLOAD)
}

/// Padding bytes in the AAL5 CPCS-PDU for `sdu_bytes` (0..=47).
pub fn aal5_pad(sdu_bytes: u32) -> u32 {
    aal5_cells(sdu_bytes) * CELL_PAYLOAD - sdu_bytes - AAL5_TRAILER
}

/// Share of the line rate that carries user bytes when `sdu_bytes` of user data travel in one
/// AAL5 frame after `header_bytes` of encapsulation (LLC/SNAP, IP, TCP ...).
pub fn aal5_efficiency(user_bytes: u32, header_bytes: u32) -> f64 {
    user_bytes as f64 / (aal5_cells(user_bytes + header_bytes) * CELL_BYTES) as f64
}

/// Receiver side of AAL5: rebuilds frames from a flow's cells and decides which are lost.
///
/// A frame is delivered only if every one of its cells arrived. Cells lost inside the frame
/// being reassembled corrupt it; a lost end-of-frame cell merges two frames into one bad
/// CPCS-PDU, so both are lost, as on a real AAL5 receiver (the CRC-32 fails). Whole frames lost
/// between two received frames harm neither (EPD relies on this).
#[derive(Clone, Copy, Debug, Default)]
pub struct Reassembler {
    expected: u32,
    started: bool,
    corrupt: bool,
    /// Cells of a frame are in the reassembly buffer.
    in_frame: bool,
}

/// What one arriving cell completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameEvent {
    /// Not the end of a frame.
    None,
    /// A whole frame arrived, carrying `len` user bytes.
    Delivered { len: u16 },
    /// An end-of-frame cell closed a frame that had lost cells.
    Lost,
}

impl Reassembler {
    /// Feed one data cell (sequence number, end-of-frame bit, AAL5 length).
    #[inline]
    pub fn on_cell(&mut self, seq: u32, eof: bool, len: u16) -> FrameEvent {
        self.on_cell_checked(seq, eof, len, false)
    }

    /// Feed one data cell whose payload may be errored (an errored cell fails the frame's CRC).
    /// `len` is the Length field on an end-of-frame cell and the index within the frame on others.
    #[inline]
    pub fn on_cell_checked(&mut self, seq: u32, eof: bool, len: u16, errored: bool) -> FrameEvent {
        let gap = self.started && seq != self.expected;
        if !self.in_frame {
            // a new frame starts here: it is whole so far only if this is its first cell
            let first = if eof {
                aal5_cells(len as u32) == 1
            } else {
                len == 0
            };
            self.corrupt = !first;
        } else if gap {
            self.corrupt = true;
        }
        if errored {
            self.corrupt = true;
        }
        self.in_frame = !eof;
        self.started = true;
        self.expected = seq.wrapping_add(1);
        if !eof {
            return FrameEvent::None;
        }
        let ev = if self.corrupt {
            FrameEvent::Lost
        } else {
            FrameEvent::Delivered { len }
        };
        self.corrupt = false;
        ev
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aal5_cell_counts() {
        // ceil((L + 8) / 48)
        assert_eq!(aal5_cells(0), 1);
        assert_eq!(aal5_cells(40), 1);
        assert_eq!(aal5_cells(41), 2);
        assert_eq!(aal5_cells(88), 2);
        assert_eq!(aal5_cells(89), 3);
        assert_eq!(aal5_cells(9180), 192);
        for l in 0..2000 {
            assert_eq!(aal5_cells(l), (l + 8 + 47) / 48);
            assert_eq!((l + 8 + aal5_pad(l)) % 48, 0);
            assert!(aal5_pad(l) < 48);
        }
    }

    #[test]
    fn tcp_over_aal5_efficiency_seed000() {
        // seed 000 section 6: 20 TCP + 20 IP + 8 LLC/SNAP + 8 AAL5 = 56 bytes per segment
        let hdr = 20 + 20 + LLC_SNAP;
        assert_eq!(aal5_cells(512 + hdr), 12);
        let e512 = aal5_efficiency(512, hdr);
        assert!((e512 - 512.0 / 636.0).abs() < 1e-12);
        assert!((e512 - 0.805).abs() < 0.001);
        // with one in-rate FRM cell in every Nrm = 32 cells: 78% and 87% (EXPERIMENTS.md)
        assert!((e512 * 31.0 / 32.0 - 0.78).abs() < 0.001);
        let e9140 = aal5_efficiency(9140, hdr);
        assert_eq!(aal5_cells(9140 + hdr), 192);
        assert!((e9140 * 31.0 / 32.0 - 0.87).abs() < 0.001, "{e9140}");
    }

    #[test]
    fn reassembly_loses_exactly_the_frame_with_a_missing_cell() {
        // frames of 3 cells: seq 0..2, 3..5, 6..8; drop seq 4
        let mut r = Reassembler::default();
        let mut out = vec![];
        let len = |seq: u32| if seq % 3 == 2 { 100 } else { (seq % 3) as u16 };
        for seq in 0..9u32 {
            if seq == 4 {
                continue;
            }
            let ev = r.on_cell(seq, seq % 3 == 2, len(seq));
            if ev != FrameEvent::None {
                out.push(ev);
            }
        }
        assert_eq!(
            out,
            vec![
                FrameEvent::Delivered { len: 100 },
                FrameEvent::Lost,
                FrameEvent::Delivered { len: 100 }
            ]
        );
    }

    #[test]
    fn lost_eof_cell_merges_two_frames_into_one_loss() {
        let mut r = Reassembler::default();
        let mut out = vec![];
        let len = |seq: u32| if seq % 3 == 2 { 100 } else { (seq % 3) as u16 };
        for seq in 0..9u32 {
            if seq == 5 {
                continue;
            }
            let ev = r.on_cell(seq, seq % 3 == 2, len(seq));
            if ev != FrameEvent::None {
                out.push(ev);
            }
        }
        assert_eq!(
            out,
            vec![FrameEvent::Delivered { len: 100 }, FrameEvent::Lost]
        );
    }

    #[test]
    fn whole_frames_lost_between_frames_do_not_harm_the_next() {
        // frames of 3 cells; frame 1 (seq 3..5) lost entirely; frame 2 starts at seq 6
        let mut r = Reassembler::default();
        let len = |seq: u32| if seq % 3 == 2 { 100 } else { (seq % 3) as u16 };
        let mut out = vec![];
        for seq in (0..3).chain(6..9) {
            let ev = r.on_cell(seq, seq % 3 == 2, len(seq));
            if ev != FrameEvent::None {
                out.push(ev);
            }
        }
        assert_eq!(out, vec![FrameEvent::Delivered { len: 100 }; 2]);
        // but a frame whose first cell is missing is lost
        let mut r = Reassembler::default();
        let mut out = vec![];
        for seq in (0..3).chain(7..9) {
            let ev = r.on_cell(seq, seq % 3 == 2, len(seq));
            if ev != FrameEvent::None {
                out.push(ev);
            }
        }
        assert_eq!(
            out,
            vec![FrameEvent::Delivered { len: 100 }, FrameEvent::Lost]
        );
    }
}
