//! The policing-level traffic descriptor of a connection: PCR and CDVT for every category, SCR
//! and MBS for VBR (seed 001 `/work/shared/seeds/001_08abd1994ada50f6.txt` section 2.3, Table 2,
//! and section 2.4, Table 3), its consistency check, and the buckets it defines (ITU-T I.371:
//! GCRA(1/PCR, CDVT) and GCRA(1/SCR, BT + CDVT)).

use super::gcra::{burst_tolerance_ps, increment_ps, Gcra, GcraForm};
use crate::time::SimDuration;

/// Why a contract is inconsistent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ContractError {
    #[error("pcr must be a positive, finite rate")]
    Pcr,
    #[error("scr must be a positive, finite rate not above pcr")]
    Scr,
    #[error("mbs must be at least 1 cell")]
    Mbs,
}

/// The policing-level traffic descriptor of a connection (seed 001 section 2.3, Table 2): PCR and
/// CDVT for every category, SCR and MBS for VBR. Rates in Mb/s of 53-byte cells.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contract {
    /// Peak cell rate, Mb/s.
    pub pcr_mbps: f64,
    /// Cell delay variation tolerance (limit of the PCR bucket), ps.
    pub cdvt_ps: SimDuration,
    /// Sustainable cell rate, Mb/s (`None`: no SCR bucket, as for CBR and UBR).
    pub scr_mbps: Option<f64>,
    /// Maximum burst size in cells (meaningful with `scr_mbps`).
    pub mbs_cells: u32,
}

impl Contract {
    /// A peak-rate-only contract (CBR, UBR).
    pub fn cbr(pcr_mbps: f64, cdvt_ps: SimDuration) -> Self {
        Contract {
            pcr_mbps,
            cdvt_ps,
            scr_mbps: None,
            mbs_cells: 1,
        }
    }

    /// A VBR contract.
    pub fn vbr(pcr_mbps: f64, cdvt_ps: SimDuration, scr_mbps: f64, mbs_cells: u32) -> Self {
        Contract {
            pcr_mbps,
            cdvt_ps,
            scr_mbps: Some(scr_mbps),
            mbs_cells,
        }
    }

    /// Check SCR <= PCR, positive finite rates, MBS >= 1.
    pub fn validate(&self) -> Result<(), ContractError> {
        if !(self.pcr_mbps.is_finite() && self.pcr_mbps > 0.0) {
            return Err(ContractError::Pcr);
        }
        if let Some(scr) = self.scr_mbps {
            if !(scr.is_finite() && scr > 0.0 && scr <= self.pcr_mbps) {
                return Err(ContractError::Scr);
            }
            if self.mbs_cells < 1 {
                return Err(ContractError::Mbs);
            }
        }
        Ok(())
    }

    /// SCR if the contract has one, else PCR.
    pub fn sustainable_mbps(&self) -> f64 {
        self.scr_mbps.unwrap_or(self.pcr_mbps)
    }

    /// Burst tolerance BT in ps (0 without an SCR).
    pub fn bt_ps(&self) -> SimDuration {
        match self.scr_mbps {
            Some(scr) => burst_tolerance_ps(
                self.mbs_cells,
                increment_ps(self.pcr_mbps),
                increment_ps(scr),
            ),
            None => 0,
        }
    }

    /// GCRA(1/PCR, CDVT).
    pub fn pcr_gcra(&self, form: GcraForm) -> Gcra {
        Gcra::from_mbps(form, self.pcr_mbps, self.cdvt_ps)
    }

    /// GCRA(1/SCR, BT + CDVT), if the contract has an SCR.
    pub fn scr_gcra(&self, form: GcraForm) -> Option<Gcra> {
        self.scr_mbps
            .map(|scr| Gcra::from_mbps(form, scr, self.bt_ps().saturating_add(self.cdvt_ps)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_validation_and_bt() {
        assert_eq!(Contract::cbr(10.0, 0).validate(), Ok(()));
        assert_eq!(Contract::cbr(0.0, 0).validate(), Err(ContractError::Pcr));
        assert_eq!(
            Contract::cbr(f64::NAN, 0).validate(),
            Err(ContractError::Pcr)
        );
        assert_eq!(
            Contract::vbr(10.0, 0, 11.0, 5).validate(),
            Err(ContractError::Scr)
        );
        assert_eq!(
            Contract::vbr(10.0, 0, 0.0, 5).validate(),
            Err(ContractError::Scr)
        );
        assert_eq!(
            Contract::vbr(10.0, 0, 5.0, 0).validate(),
            Err(ContractError::Mbs)
        );
        // PCR 10 Mb/s -> T = 42,400,000 ps; SCR 4.24 Mb/s -> Ts = 100,000,000 ps;
        // BT = (MBS - 1)(Ts - T) = 9 x 57,600,000
        let c = Contract::vbr(10.0, 1_000, 4.24, 10);
        assert_eq!(c.bt_ps(), 9 * 57_600_000);
        let s = c.scr_gcra(GcraForm::LeakyBucket).unwrap();
        assert_eq!(
            (s.increment_ps(), s.limit_ps()),
            (100_000_000, 9 * 57_600_000 + 1_000)
        );
        assert_eq!(Contract::cbr(10.0, 0).bt_ps(), 0);
    }
}
