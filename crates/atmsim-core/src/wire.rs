//! What is on the wire: the simulated cell, the 5-byte ATM cell header, AAL5 framing and
//! LLC/SNAP encapsulation.
//!
//! Sources: ITU-T I.361 (ATM cell header: GFC/VPI/VCI/PTI/CLP/HEC, HEC = CRC-8 x^8+x^2+x+1
//! with coset 0x55), ITU-T I.363.5 (AAL5 CPCS-PDU: payload, padding to a multiple of 48 bytes,
//! 8-byte trailer CPCS-UU, CPI, Length, CRC-32; end of frame signalled by the PTI user bit),
//! RFC 1483/2684 (LLC/SNAP header, 8 bytes), seed 000 section 6 (TCP/IP over AAL5 overhead).
//!
//! The simulator does not move bytes: a [`Cell`] is a small `Copy` value with the header fields
//! that matter to the models. The byte-level header codec below is used for tracing and is
//! round-trip tested against the standard.

/// Payload bytes per cell.
pub const CELL_PAYLOAD: u32 = 48;
/// Bytes per cell on the wire.
pub const CELL_BYTES: u32 = 53;
/// AAL5 CPCS-PDU trailer bytes (I.363.5).
pub const AAL5_TRAILER: u32 = 8;
/// Largest AAL5 CPCS-SDU (the trailer's 16-bit Length field).
pub const AAL5_MAX_SDU: u32 = 65_535;
/// LLC/SNAP header bytes for routed PDUs (RFC 2684).
pub const LLC_SNAP: u32 = 8;

/// Header bit: last cell of an AAL5 frame (PTI user-to-user indication, ATM-user-to-ATM-user = 1).
pub const H_EOF: u8 = 1 << 0;
/// Header bit: explicit forward congestion indication (PTI middle bit).
pub const H_EFCI: u8 = 1 << 1;
/// Header bit: resource management cell (PTI = 110).
pub const H_RM: u8 = 1 << 2;
/// Header bit: cell loss priority.
pub const H_CLP: u8 = 1 << 3;
/// Simulation mark: the cell's payload was corrupted on a link (counts for CER; its AAL5 frame
/// fails the CRC).
pub const H_ERR: u8 = 1 << 4;
/// Simulation mark: the cell reached this connection through a corrupted header (misinsertion).
pub const H_MIS: u8 = 1 << 5;

/// RM-cell fields (TM 4.0 section 5.10.3), carried only by cells with `H_RM`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RmFields {
    /// Explicit rate, Mb/s.
    pub er: f32,
    /// Current cell rate, Mb/s.
    pub ccr: f32,
    /// Minimum cell rate, Mb/s.
    pub mcr: f32,
    /// Bits: DIR (backward = 1), BN, CI, NI.
    pub bits: u8,
}

/// One cell in the simulator: what the models read and write, nothing else.
/// 40 bytes; a cell in flight on a link costs 48 bytes (its delivery time beside it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cell {
    /// Creation time at the source (ps), for cell transfer delay.
    pub created: u64,
    /// Connection handle: index of the simplex flow (one direction of a VC); stands for the
    /// VPI/VCI label, which a real switch would translate at each hop.
    pub flow: u32,
    /// Cell sequence number within the flow (wrapping); lets the receiver detect loss.
    pub seq: u32,
    /// On the end-of-frame cell: the AAL5 Length field (CPCS-SDU bytes). On other cells of an
    /// AAL5 frame: the cell's index within its frame (what a real receiver knows from its
    /// reassembly buffer's fill).
    pub len: u16,
    /// Index of the next output port on the flow's route.
    pub hop: u8,
    /// Header bits `H_*`.
    pub hdr: u8,
    /// On the end-of-frame cell of a transport's frame: the header field the transport needs
    /// (TCP: the sequence number of a data segment, the acknowledgement number of an ACK). It
    /// stands for the TCP header inside the frame, which a receiver reads only once the whole
    /// frame passed the AAL5 CRC.
    pub tag: u32,
    /// RM fields, meaningful when `hdr & H_RM != 0`.
    pub rm: RmFields,
}

impl Cell {
    #[inline]
    pub fn is_eof(&self) -> bool {
        self.hdr & H_EOF != 0
    }
    #[inline]
    pub fn is_rm(&self) -> bool {
        self.hdr & H_RM != 0
    }
}

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

/// An ATM cell header (I.361) as numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderRepr {
    /// Generic flow control (UNI only; 0 at the NNI).
    pub gfc: u8,
    /// Virtual path identifier (8 bits at the UNI, 12 at the NNI).
    pub vpi: u16,
    /// Virtual channel identifier.
    pub vci: u16,
    /// Payload type indicator (3 bits).
    pub pti: u8,
    /// Cell loss priority.
    pub clp: bool,
}

/// HEC: CRC-8 with generator x^8 + x^2 + x + 1 over the first four header bytes, XOR 0x55 (I.432).
pub fn hec(bytes: &[u8; 4]) -> u8 {
    let mut crc: u8 = 0;
    for &b in bytes {
        crc ^= b;
        for _ in 0..8 {
            crc = if crc & 0x80 != 0 {
                (crc << 1) ^ 0x07
            } else {
                crc << 1
            };
        }
    }
    crc ^ 0x55
}

/// Why a header could not be parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    #[error("HEC mismatch")]
    Hec,
    #[error("field out of range")]
    Range,
}

impl HeaderRepr {
    /// Emit the 5-byte header; `nni` selects the NNI format (12-bit VPI, no GFC).
    pub fn emit(&self, nni: bool) -> Result<[u8; 5], HeaderError> {
        if self.pti > 7 || (!nni && (self.vpi > 0xff || self.gfc > 0xf)) || self.vpi > 0xfff {
            return Err(HeaderError::Range);
        }
        let first = if nni {
            (self.vpi >> 4) as u8
        } else {
            (self.gfc << 4) | (self.vpi >> 4) as u8
        };
        let b = [
            first,
            (((self.vpi & 0xf) as u8) << 4) | (self.vci >> 12) as u8,
            (self.vci >> 4) as u8,
            (((self.vci & 0xf) as u8) << 4) | (self.pti << 1) | self.clp as u8,
        ];
        Ok([b[0], b[1], b[2], b[3], hec(&b)])
    }

    /// Parse a 5-byte header, checking the HEC.
    pub fn parse(bytes: &[u8; 5], nni: bool) -> Result<Self, HeaderError> {
        let b = [bytes[0], bytes[1], bytes[2], bytes[3]];
        if hec(&b) != bytes[4] {
            return Err(HeaderError::Hec);
        }
        let (gfc, vpi_hi) = if nni {
            (0, (b[0] as u16) << 4)
        } else {
            (b[0] >> 4, ((b[0] & 0xf) as u16) << 4)
        };
        Ok(HeaderRepr {
            gfc,
            vpi: vpi_hi | (b[1] >> 4) as u16,
            vci: (((b[1] & 0xf) as u16) << 12) | ((b[2] as u16) << 4) | (b[3] >> 4) as u16,
            pti: (b[3] >> 1) & 0x7,
            clp: b[3] & 1 != 0,
        })
    }

    /// The PTI and CLP this header gets for a simulated cell's bits (I.361 Table 2:
    /// 0x0 user data, EFCI in the middle bit, AAL5 end-of-frame in the low bit, 110 = RM).
    pub fn pti_of(hdr: u8) -> u8 {
        if hdr & H_RM != 0 {
            0b110
        } else {
            ((hdr & H_EFCI != 0) as u8) << 1 | (hdr & H_EOF != 0) as u8
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_is_small() {
        assert_eq!(std::mem::size_of::<Cell>(), 40);
        assert_eq!(std::mem::size_of::<(u64, Cell)>(), 48);
    }

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

    #[test]
    fn header_round_trip_and_hec() {
        // I.432 example: idle cell header 00 00 00 01 has HEC 0x52
        assert_eq!(hec(&[0, 0, 0, 1]), 0x52);
        for &(nni, vpi) in &[(false, 0xabu16), (true, 0xabc)] {
            for pti in 0..8u8 {
                let h = HeaderRepr {
                    gfc: if nni { 0 } else { 5 },
                    vpi,
                    vci: 0xbeef,
                    pti,
                    clp: pti % 2 == 0,
                };
                let b = h.emit(nni).unwrap();
                assert_eq!(HeaderRepr::parse(&b, nni).unwrap(), h);
                let mut bad = b;
                bad[2] ^= 0x10;
                assert_eq!(HeaderRepr::parse(&bad, nni), Err(HeaderError::Hec));
            }
        }
        assert_eq!(
            HeaderRepr {
                gfc: 0,
                vpi: 0x100,
                vci: 1,
                pti: 0,
                clp: false
            }
            .emit(false),
            Err(HeaderError::Range)
        );
        assert_eq!(HeaderRepr::pti_of(H_EOF | H_EFCI), 0b011);
        assert_eq!(HeaderRepr::pti_of(H_RM), 0b110);
    }
}
