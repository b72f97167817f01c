//! The simulated cell: a 48-byte `Copy` value with the header fields the models read and write
//! (the `H_*` bits stand for the I.361 PTI and CLP fields, plus two simulation marks), and the
//! RM-cell fields of TM 4.0 section 5.10.3. Moved from `wire.rs`.

/// Payload bytes per cell.
pub const CELL_PAYLOAD: u32 = 48;
/// Bytes per cell on the wire.
pub const CELL_BYTES: u32 = 53;

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

/// The transport header of an AAL5 frame, carried on its cells and read by the receiver from
/// the end-of-frame cell once the whole frame passed the AAL5 CRC. It stands for the transport
/// header inside the frame (TCP: ports, sequence and acknowledgement numbers, flags): the models
/// read these fields instead of parsing bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SegHdr {
    /// The transport connection within the VC: several transport connections can share one VC
    /// (seed 001's connection bundling); the receiving host hands each frame to the transport
    /// endpoint of this number (standing for the port pair of the TCP/UDP header). 0 when the
    /// VC carries one connection.
    pub conn: u16,
    /// `SEG_DATA` (the frame carries payload starting at `seq`) and / or `SEG_ACK` (`ack` is
    /// valid).
    pub flags: u8,
    /// Sequence number of the first payload byte (TCP; wrapping).
    pub seq: u32,
    /// Acknowledgement number: the next byte expected from the other end (TCP; wrapping).
    pub ack: u32,
}

/// [`SegHdr::flags`]: the frame carries payload bytes from `seq` on.
pub const SEG_DATA: u8 = 1 << 0;
/// [`SegHdr::flags`]: the frame acknowledges the other direction's bytes up to `ack`.
pub const SEG_ACK: u8 = 1 << 1;
/// [`SegHdr::flags`]: a pure ACK carrying the receiver's advertised window (TCP's window
/// field) in `seq`, which a pure ACK does not otherwise use. Sent only by a receiver whose
/// application reads through the host model (docs/hosts.md); without it the window is the
/// receive buffer.
pub const SEG_WND: u8 = 1 << 2;

impl SegHdr {
    /// A data segment starting at sequence number `seq`.
    pub fn data(seq: u32) -> Self {
        SegHdr {
            flags: SEG_DATA,
            seq,
            ..Default::default()
        }
    }
    /// A pure acknowledgement of everything before `ack`.
    pub fn ack(ack: u32) -> Self {
        SegHdr {
            flags: SEG_ACK,
            ack,
            ..Default::default()
        }
    }
    /// A pure acknowledgement of everything before `ack` advertising window `wnd`.
    pub fn ack_window(ack: u32, wnd: u32) -> Self {
        SegHdr {
            flags: SEG_ACK | SEG_WND,
            ack,
            seq: wnd,
            ..Default::default()
        }
    }
    /// The advertised window, if the frame carries one.
    #[inline]
    pub fn window(&self) -> Option<u32> {
        (self.flags & SEG_WND != 0).then_some(self.seq)
    }
    #[inline]
    pub fn has_data(&self) -> bool {
        self.flags & SEG_DATA != 0
    }
    #[inline]
    pub fn has_ack(&self) -> bool {
        self.flags & SEG_ACK != 0
    }
}

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
/// 48 bytes; a cell in flight on a link costs 56 bytes (its delivery time beside it).
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
    /// The transport header of the AAL5 frame this cell belongs to ([`SegHdr`]): connection
    /// within the VC, sequence and acknowledgement numbers. Read from the end-of-frame cell.
    pub seg: SegHdr,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_is_small() {
        assert_eq!(std::mem::size_of::<Cell>(), 48);
        assert_eq!(std::mem::size_of::<(u64, Cell)>(), 56);
    }
}
