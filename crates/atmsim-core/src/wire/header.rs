//! The 5-byte ATM cell header as bytes: ITU-T I.361 (GFC/VPI/VCI/PTI/CLP, UNI and NNI formats)
//! and the HEC of I.432 (CRC-8 x^8 + x^2 + x + 1, coset 0x55). Not on the simulation path; it
//! fixes what the simulated cell's `H_*` bits mean in a real header. Moved from `wire.rs`.

use super::cell::{H_EFCI, H_EOF, H_RM};

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
