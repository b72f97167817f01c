//! Usage parameter control (UPC) at the ingress of one connection (ITU-T I.371): the PCR and
//! SCR buckets of a [`Contract`], the action on a cell that fails one (discard, or tag CLP=0
//! cells as CLP=1), and which cells the SCR bucket polices (ATM Forum TM 4.0 section 4.5:
//! VBR.1 polices CLP=0+1, VBR.2/VBR.3 CLP=0).

use super::contract::Contract;
use super::gcra::{Gcra, GcraForm};
use crate::time::SimTime;

/// What the UPC does with a cell that fails a bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UpcAction {
    /// Drop the cell.
    #[default]
    Discard,
    /// Forward it with CLP = 1.
    Tag,
}

/// What happened to one cell at the UPC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpcOutcome {
    /// Conforming, forwarded unchanged.
    Pass,
    /// Non-conforming, forwarded with CLP = 1.
    Tag,
    /// Non-conforming, dropped.
    Discard,
}

/// Which cells the SCR bucket polices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ScrStream {
    /// CLP=0 cells only (TM 4.0 VBR.2 with discard, VBR.3 with tagging): the default.
    #[default]
    Clp0,
    /// All cells (TM 4.0 VBR.1).
    Clp0Plus1,
}

/// Cell counts of one UPC.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpcCounts {
    pub cells: u64,
    pub passed: u64,
    pub tagged: u64,
    pub discarded: u64,
    /// Cells that failed the PCR bucket.
    pub pcr_failures: u64,
    /// Cells that passed the PCR bucket and failed the SCR bucket.
    pub scr_failures: u64,
}

/// Usage parameter control at the ingress of one connection (I.371).
///
/// The choice made here (I.371, TM 4.0 VBR.2/VBR.3): every cell, CLP=0 and CLP=1 alike (the
/// CLP=0+1 stream), is tested first against the PCR bucket; a failure applies the PCR action
/// (I.371 discards; tagging is offered but then only marks the cell). A cell that passes and
/// has CLP=0 is then tested against the SCR bucket ([`ScrStream::Clp0`]); if it fails there,
/// the SCR action applies: a tagged cell goes on as CLP=1 and, being a conforming member of the
/// CLP=0+1 stream, is counted in the PCR bucket but not in the SCR bucket; a discarded cell
/// changes neither. CLP=1 cells never touch the SCR bucket. With [`ScrStream::Clp0Plus1`]
/// (VBR.1) every cell is tested against both buckets and only a cell conforming to both
/// updates them. A bucket's state changes only for cells counted in its stream as conforming.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Upc {
    pcr: Gcra,
    pcr_action: UpcAction,
    scr: Option<Gcra>,
    scr_action: UpcAction,
    scr_stream: ScrStream,
    counts: UpcCounts,
}

impl Upc {
    /// A UPC with only the peak-rate bucket (CBR, UBR).
    pub fn peak_only(pcr: Gcra, pcr_action: UpcAction) -> Self {
        Upc {
            pcr,
            pcr_action,
            scr: None,
            scr_action: UpcAction::Discard,
            scr_stream: ScrStream::Clp0,
            counts: UpcCounts::default(),
        }
    }

    /// A UPC with a peak-rate and a sustainable-rate bucket.
    pub fn dual(
        pcr: Gcra,
        pcr_action: UpcAction,
        scr: Gcra,
        scr_action: UpcAction,
        scr_stream: ScrStream,
    ) -> Self {
        Upc {
            pcr,
            pcr_action,
            scr: Some(scr),
            scr_action,
            scr_stream,
            counts: UpcCounts::default(),
        }
    }

    /// The UPC for a contract: GCRA(1/PCR, CDVT), and GCRA(1/SCR, BT + CDVT) if it has an SCR.
    pub fn from_contract(
        contract: &Contract,
        form: GcraForm,
        pcr_action: UpcAction,
        scr_action: UpcAction,
        scr_stream: ScrStream,
    ) -> Self {
        let mut u = Upc::peak_only(contract.pcr_gcra(form), pcr_action);
        u.scr = contract.scr_gcra(form);
        u.scr_action = scr_action;
        u.scr_stream = scr_stream;
        u
    }

    fn act(&mut self, action: UpcAction) -> UpcOutcome {
        match action {
            UpcAction::Discard => {
                self.counts.discarded += 1;
                UpcOutcome::Discard
            }
            UpcAction::Tag => {
                self.counts.tagged += 1;
                UpcOutcome::Tag
            }
        }
    }

    /// Police one cell arriving at `t` with cell loss priority `clp`.
    #[inline]
    pub fn police(&mut self, t: SimTime, clp: bool) -> UpcOutcome {
        self.counts.cells += 1;
        if !self.pcr.check(t) {
            self.counts.pcr_failures += 1;
            return self.act(self.pcr_action);
        }
        let scr_tested = !clp || self.scr_stream == ScrStream::Clp0Plus1;
        match self.scr {
            Some(ref mut scr) if scr_tested => {
                if scr.check(t) {
                    scr.update(t);
                    self.pcr.update(t);
                    self.counts.passed += 1;
                    UpcOutcome::Pass
                } else {
                    self.counts.scr_failures += 1;
                    let out = self.act(self.scr_action);
                    if out == UpcOutcome::Tag && self.scr_stream == ScrStream::Clp0 {
                        // the tagged cell is a conforming CLP=1 member of the CLP=0+1 stream
                        self.pcr.update(t);
                    }
                    out
                }
            }
            _ => {
                self.pcr.update(t);
                self.counts.passed += 1;
                UpcOutcome::Pass
            }
        }
    }

    /// Counts so far.
    pub fn counts(&self) -> UpcCounts {
        self.counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upc_streams_and_state_updates() {
        // T = 10, CDVT 0; Ts = 40, BT chosen as 40 (MBS = 1 + 40/30 = 2)
        let mk = |stream| {
            Upc::dual(
                Gcra::new(GcraForm::VirtualScheduling, 10, 0),
                UpcAction::Discard,
                Gcra::new(GcraForm::LeakyBucket, 40, 40),
                UpcAction::Tag,
                stream,
            )
        };
        let mut u = mk(ScrStream::Clp0);
        assert_eq!(u.police(0, false), UpcOutcome::Pass); // TAT 10, SCR X 40
        assert_eq!(u.police(5, true), UpcOutcome::Discard); // PCR: 10 > 5, even for CLP=1
        assert_eq!(u.police(10, false), UpcOutcome::Pass); // SCR X' = 30 <= 40: X = 70
        assert_eq!(u.police(20, false), UpcOutcome::Tag); // SCR X' = 60 > 40: tagged, PCR TAT -> 30
        assert_eq!(u.police(25, false), UpcOutcome::Discard); // the tag advanced the PCR bucket
        assert_eq!(u.police(30, true), UpcOutcome::Pass); // CLP=1 skips the SCR bucket
        assert_eq!(u.police(40, true), UpcOutcome::Pass);
        assert_eq!(u.police(50, false), UpcOutcome::Pass); // SCR X' = 70 - 40 = 30 <= 40
        let c = u.counts();
        assert_eq!(
            (
                c.cells,
                c.passed,
                c.tagged,
                c.discarded,
                c.pcr_failures,
                c.scr_failures
            ),
            (8, 5, 1, 2, 2, 1)
        );

        // VBR.1: CLP=1 cells count in the SCR bucket too
        let mut u = mk(ScrStream::Clp0Plus1);
        assert_eq!(u.police(0, true), UpcOutcome::Pass);
        assert_eq!(u.police(10, true), UpcOutcome::Pass);
        assert_eq!(u.police(20, true), UpcOutcome::Tag);
        // peak only
        let mut u = Upc::peak_only(Gcra::new(GcraForm::LeakyBucket, 10, 0), UpcAction::Tag);
        assert_eq!(u.police(0, false), UpcOutcome::Pass);
        assert_eq!(u.police(9, false), UpcOutcome::Tag);
        assert_eq!(u.police(10, false), UpcOutcome::Pass);
    }
}
