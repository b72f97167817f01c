//! Mapping of application traffic to ATM traffic parameters (seed 001
//! `/work/shared/seeds/001_08abd1994ada50f6.txt` section 6.1, Table 7): application maximum and
//! mean rate and burst to PCR/SCR/MBS, in the seed's plain fluid form (PCR = max_R / cell_size)
//! and in an overhead-aware form (TSDU encapsulation and AAL5 framing, I.363.5).

use super::contract::Contract;
use super::gcra::cells_per_s_to_mbps;
use crate::time::SimDuration;
use crate::wire::{aal5_cells, CELL_PAYLOAD};

/// TCP (20) + IP (20) header bytes per segment.
pub const TCP_IP_BYTES: u32 = 40;

/// Cell size used by the plain (fluid) form of the mapping: the 48 payload bytes a cell carries.
/// Seed 001 writes `PCR = max_R / cell_size` "ignoring the segmentation overhead and the cell
/// granularity"; the bytes of max_R travel in cell payloads, so cell_size is the payload (53
/// would count header bytes as if they carried data and undercount cells).
pub const PLAIN_CELL_SIZE: u32 = CELL_PAYLOAD;

/// An application's traffic as seed 001 Table 7 describes it: maximum and mean rate, burst, and
/// the TSDU size and per-TSDU encapsulation needed for the overhead-aware form.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AppTraffic {
    /// max_R: maximum rate of user data, bytes/s.
    pub max_rate_bytes_per_s: f64,
    /// mean_R: mean rate of user data, bytes/s.
    pub mean_rate_bytes_per_s: f64,
    /// B: burst of user data, bytes.
    pub burst_bytes: u64,
    /// User bytes per TSDU (one AAL5 frame per TSDU).
    pub tsdu_bytes: u32,
    /// Encapsulation bytes added to each TSDU before AAL5 (e.g. [`TCP_IP_BYTES`] + LLC/SNAP 8).
    pub header_bytes: u32,
}

/// ATM traffic parameters in cells: what the mapping produces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellDescriptor {
    pub pcr_cells_per_s: f64,
    pub scr_cells_per_s: f64,
    pub mbs_cells: u32,
}

impl CellDescriptor {
    /// PCR in Mb/s of 53-byte cells.
    pub fn pcr_mbps(&self) -> f64 {
        cells_per_s_to_mbps(self.pcr_cells_per_s)
    }
    /// SCR in Mb/s of 53-byte cells.
    pub fn scr_mbps(&self) -> f64 {
        cells_per_s_to_mbps(self.scr_cells_per_s)
    }
    /// A VBR contract with these parameters.
    pub fn contract(&self, cdvt_ps: SimDuration) -> Contract {
        Contract::vbr(self.pcr_mbps(), cdvt_ps, self.scr_mbps(), self.mbs_cells)
    }
}

impl AppTraffic {
    /// From rates in Mb/s of user data (1 Mb/s = 125,000 bytes/s).
    pub fn from_mbps(
        max_rate_mbps: f64,
        mean_rate_mbps: f64,
        burst_bytes: u64,
        tsdu_bytes: u32,
        header_bytes: u32,
    ) -> Self {
        AppTraffic {
            max_rate_bytes_per_s: max_rate_mbps * 1e6 / 8.0,
            mean_rate_bytes_per_s: mean_rate_mbps * 1e6 / 8.0,
            burst_bytes,
            tsdu_bytes,
            header_bytes,
        }
    }

    /// From TSDU rates (TSDU/s) and a burst in TSDUs (Table 7's first column).
    pub fn from_tsdu_rates(
        max_tsdu_per_s: f64,
        mean_tsdu_per_s: f64,
        burst_tsdus: u32,
        tsdu_bytes: u32,
        header_bytes: u32,
    ) -> Self {
        AppTraffic {
            max_rate_bytes_per_s: max_tsdu_per_s * tsdu_bytes as f64,
            mean_rate_bytes_per_s: mean_tsdu_per_s * tsdu_bytes as f64,
            burst_bytes: burst_tsdus as u64 * tsdu_bytes as u64,
            tsdu_bytes,
            header_bytes,
        }
    }

    /// Seed 001's plain relation (perfect fluid, no segmentation overhead, no cell granularity):
    /// PCR = max_R / cell_size, SCR = mean_R / cell_size, MBS = B / cell_size with cell_size =
    /// [`PLAIN_CELL_SIZE`] (48), MBS rounded up to whole cells (at least 1).
    pub fn map_plain(&self) -> CellDescriptor {
        let cs = PLAIN_CELL_SIZE as f64;
        CellDescriptor {
            pcr_cells_per_s: self.max_rate_bytes_per_s / cs,
            scr_cells_per_s: self.mean_rate_bytes_per_s / cs,
            mbs_cells: (self.burst_bytes.div_ceil(PLAIN_CELL_SIZE as u64)).max(1) as u32,
        }
    }

    /// Cells per TSDU: `aal5_cells(tsdu + header)`.
    pub fn cells_per_tsdu(&self) -> u32 {
        aal5_cells(self.tsdu_bytes + self.header_bytes)
    }

    /// Cells of a burst of B bytes cut into TSDUs: full TSDUs at `cells_per_tsdu` each plus a
    /// shorter last TSDU in its own frame (at least 1 cell).
    pub fn burst_cells(&self) -> u32 {
        let tsdu = self.tsdu_bytes.max(1) as u64;
        let full = self.burst_bytes / tsdu;
        let rest = (self.burst_bytes % tsdu) as u32;
        let last = if rest > 0 {
            aal5_cells(rest + self.header_bytes) as u64
        } else {
            0
        };
        let cells = full * self.cells_per_tsdu() as u64 + last;
        cells.clamp(1, u32::MAX as u64) as u32
    }

    /// The overhead-aware form: each TSDU carries `header_bytes` of encapsulation and is one AAL5
    /// frame of `cells_per_tsdu()` cells (trailer and padding included), so
    /// PCR = max_R / tsdu x cells_per_tsdu, SCR = mean_R / tsdu x cells_per_tsdu, MBS = [`Self::burst_cells`].
    pub fn map_aal5(&self) -> CellDescriptor {
        let per_byte = self.cells_per_tsdu() as f64 / self.tsdu_bytes.max(1) as f64;
        CellDescriptor {
            pcr_cells_per_s: self.max_rate_bytes_per_s * per_byte,
            scr_cells_per_s: self.mean_rate_bytes_per_s * per_byte,
            mbs_cells: self.burst_cells(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::LLC_SNAP;

    #[test]
    fn traffic_mapping_worked_examples() {
        // TSDU 512 bytes over TCP/IP (40) + LLC/SNAP (8): 512 + 48 + 8 (AAL5 trailer) = 568 bytes
        // -> ceil(568 / 48) = 12 cells per TSDU
        let app = AppTraffic {
            max_rate_bytes_per_s: 1_000_000.0,
            mean_rate_bytes_per_s: 250_000.0,
            burst_bytes: 8192,
            tsdu_bytes: 512,
            header_bytes: TCP_IP_BYTES + LLC_SNAP,
        };
        assert_eq!(app.cells_per_tsdu(), 12);
        // plain (seed 001): PCR = max_R / 48 = 1e6 / 48 = 20,833.33 cells/s (8.8333 Mb/s of cells),
        // SCR = 250,000 / 48 = 5,208.33 cells/s, MBS = ceil(8192 / 48) = ceil(170.67) = 171
        let p = app.map_plain();
        assert!((p.pcr_cells_per_s - 1e6 / 48.0).abs() < 1e-9);
        assert!((p.scr_cells_per_s - 250_000.0 / 48.0).abs() < 1e-9);
        assert_eq!(p.mbs_cells, 171);
        assert!((p.pcr_mbps() - 1e6 / 48.0 * 424.0 / 1e6).abs() < 1e-12);
        assert!((p.pcr_mbps() - 8.833_333).abs() < 1e-6);
        // with overhead: 1e6 / 512 = 1953.125 TSDU/s x 12 = 23,437.5 cells/s = 9.9375 Mb/s;
        // SCR = 488.28125 x 12 = 5,859.375 cells/s = 2.484375 Mb/s; 8192 = 16 TSDUs -> 192 cells
        let a = app.map_aal5();
        assert_eq!(a.pcr_cells_per_s, 23_437.5);
        assert_eq!(a.scr_cells_per_s, 5_859.375);
        assert_eq!(a.mbs_cells, 192);
        assert!((a.pcr_mbps() - 9.9375).abs() < 1e-12);
        assert!((a.scr_mbps() - 2.484375).abs() < 1e-12);
        // the overhead factor is 12 x 48 / 512 = 1.125 on both rates
        assert!((a.pcr_cells_per_s / p.pcr_cells_per_s - 1.125).abs() < 1e-12);
        // a burst of 8000 bytes = 15 full TSDUs (7680) + 320 bytes: 15 x 12 + ceil((320+48+8)/48) = 180 + 8
        let b = AppTraffic {
            burst_bytes: 8000,
            ..app
        };
        assert_eq!(b.burst_cells(), 188);
        assert_eq!(b.map_plain().mbs_cells, 167); // ceil(8000 / 48) = ceil(166.67)

        // from Mb/s of user data and from TSDU rates: the same application
        let m = AppTraffic::from_mbps(8.0, 2.0, 8192, 512, 48);
        assert_eq!(m.map_aal5(), a);
        let t = AppTraffic::from_tsdu_rates(1953.125, 488.28125, 16, 512, 48);
        assert_eq!(t.map_aal5(), a);
        // 9180-byte TSDUs (classical IP MTU) with LLC/SNAP only: 9180 + 8 + 8 = 9196 -> 192 cells
        let ip = AppTraffic::from_mbps(100.0, 50.0, 9180, 9180, LLC_SNAP);
        assert_eq!(ip.cells_per_tsdu(), 192);
        // 12.5e6 bytes/s / 9180 x 192 = 261,437.9 cells/s = 110.85 Mb/s of cells
        let d = ip.map_aal5();
        assert!((d.pcr_cells_per_s - 12.5e6 / 9180.0 * 192.0).abs() < 1e-6);
        assert!((d.pcr_mbps() - 110.85).abs() < 0.01, "{}", d.pcr_mbps());
        assert_eq!(d.mbs_cells, 192);
        let c = d.contract(0);
        assert_eq!(c.validate(), Ok(()));
        assert_eq!(c.mbs_cells, 192);
    }
}
