//! Traffic contracts at the ATM layer: conformance (GCRA), usage parameter control (UPC), the
//! mapping of application traffic to PCR/SCR/MBS, connection admission control (CAC) and the
//! block-based QoS measures (SECBR, CER, CLR, CMR).
//!
//! Sources:
//! - ITU-T Rec. I.371, *Traffic control and congestion control in B-ISDN*: the Generic Cell Rate
//!   Algorithm GCRA(T, tau) in its two equivalent forms, the virtual scheduling algorithm (theoretical
//!   arrival time TAT) and the continuous-state leaky bucket (bucket content X, last conformance
//!   time LCT); the dual GCRA for the sustainable cell rate with burst tolerance
//!   BT = (MBS - 1) x (1/SCR - 1/PCR) and MBS = 1 + floor(BT / (Ts - T)); UPC actions (discard,
//!   tag CLP=0 cells as CLP=1). ATM Forum TM 4.0 section 4.5 names the same conformance
//!   definitions (CBR.1, VBR.1, VBR.2, VBR.3).
//! - Seed 001 (`/work/shared/seeds/001_08abd1994ada50f6.txt`): section 2.3 (traffic parameters PCR,
//!   SCR, MBS, MCR and the CDV tolerance, Table 2), section 2.4 (service categories and the
//!   descriptors each one specifies, Table 3), section 4.2 (QoS measurement: CER, SECBR with
//!   blocks of N cells and more than M errored/lost/misinserted cells, CMR), section 6.1 (Table 7:
//!   application max/mean rate and burst to PCR/SCR/MBS, PCR = max_R / cell_size), section 6.2
//!   (admission policies).
//! - R. Guérin, H. Ahmadi, M. Naghshineh, *Equivalent capacity and its application to bandwidth
//!   allocation in high-speed networks*, IEEE JSAC 9(7), Sept. 1991: the fluid-flow equivalent
//!   capacity of an ON-OFF source with a finite buffer and a loss target ([`gan_equivalent_capacity`]).
//! - The Erlang-B formula, computed with the recursion B(A, n) = A B(A, n-1) / (n + A B(A, n-1)).
//!
//! Units and the one rounding point. Times are integer picoseconds ([`SimTime`]). Rates are Mb/s
//! of 53-byte cells on the wire, as everywhere in the core. A rate becomes a GCRA increment in one
//! place, [`increment_ps`]: `floor(424e12 / mbps_to_bps(rate))` picoseconds. Rounding down makes the
//! policer at most 1 ps per cell more tolerant than the exact rate, so a source paced by
//! [`crate::time::Pacer`] at exactly the contract's PCR (which emits at `ceil(n x 424e12 / bps)`)
//! is always conforming. The burst tolerance is then computed from the two integer increments,
//! BT = (MBS - 1) x (Ts - T), so a burst of exactly MBS cells at PCR passes and the next one fails,
//! with no rounding at the boundary.
//!
//! The GCRA state changes only for conforming cells; both forms are exact in integers and agree
//! on every cell (the invariant `X + LCT == TAT` holds after every step, see the tests). Arrival
//! times given to a GCRA must not decrease.

use crate::time::{cell_time_ps, mbps_to_bps, SimDuration, SimTime, CELL_BITS};
use crate::wire::{aal5_cells, CELL_PAYLOAD};

// ---------------------------------------------------------------------------------------------
// Rates, increments, burst tolerance
// ---------------------------------------------------------------------------------------------

/// GCRA increment T = 1/rate in picoseconds for a rate in Mb/s of 53-byte cells: the single
/// rounding point, `floor(424e12 / mbps_to_bps(rate_mbps))` (see the module doc for why down).
pub fn increment_ps(rate_mbps: f64) -> SimDuration {
    cell_time_ps(mbps_to_bps(rate_mbps))
}

/// Cells per second to Mb/s of 53-byte cells.
pub fn cells_per_s_to_mbps(cells_per_s: f64) -> f64 {
    cells_per_s * CELL_BITS as f64 / 1e6
}

/// Mb/s of 53-byte cells to cells per second.
pub fn mbps_to_cells_per_s(mbps: f64) -> f64 {
    mbps * 1e6 / CELL_BITS as f64
}

/// Burst tolerance BT = (MBS - 1) x (Ts - T) in picoseconds (I.371), from the integer increments
/// of the SCR bucket (`scr_increment_ps` = Ts) and the PCR bucket (`pcr_increment_ps` = T).
pub fn burst_tolerance_ps(
    mbs_cells: u32,
    pcr_increment_ps: SimDuration,
    scr_increment_ps: SimDuration,
) -> SimDuration {
    (mbs_cells.max(1) as u64 - 1).saturating_mul(scr_increment_ps.saturating_sub(pcr_increment_ps))
}

/// Longest run of cells spaced `spacing_ps` apart that GCRA(`increment_ps`, `limit_ps`) accepts
/// from an idle state (I.371): `1 + floor(tau / (T - spacing))`, or `u64::MAX` when the spacing is
/// not shorter than T (the run never ends). With tau = BT, T = Ts and spacing = 1/PCR this is MBS.
pub fn max_burst_cells(
    limit_ps: SimDuration,
    increment_ps: SimDuration,
    spacing_ps: SimDuration,
) -> u64 {
    if spacing_ps >= increment_ps {
        u64::MAX
    } else {
        1 + limit_ps / (increment_ps - spacing_ps)
    }
}

// ---------------------------------------------------------------------------------------------
// GCRA
// ---------------------------------------------------------------------------------------------

/// GCRA(T, tau), virtual scheduling form (I.371): a cell arriving at `t` is conforming unless
/// `TAT > t + tau`; a conforming cell sets `TAT = max(TAT, t) + T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VirtualScheduling {
    increment_ps: SimDuration,
    limit_ps: SimDuration,
    tat: SimTime,
}

impl VirtualScheduling {
    /// A GCRA with increment T and limit tau (picoseconds), idle (TAT = 0: the first cell conforms).
    pub fn new(increment_ps: SimDuration, limit_ps: SimDuration) -> Self {
        assert!(increment_ps > 0, "GCRA increment must be positive");
        VirtualScheduling {
            increment_ps,
            limit_ps,
            tat: 0,
        }
    }

    /// Would a cell arriving at `t` conform? (No state change.)
    #[inline]
    pub fn check(&self, t: SimTime) -> bool {
        self.tat <= t.saturating_add(self.limit_ps)
    }

    /// Account a cell at `t` as conforming: `TAT = max(TAT, t) + T`. Call after [`Self::check`]
    /// returned true (or to force a cell into the state).
    #[inline]
    pub fn update(&mut self, t: SimTime) {
        self.tat = self.tat.max(t).saturating_add(self.increment_ps);
    }

    /// Test a cell arriving at `t`; the state changes only if it conforms.
    #[inline]
    pub fn conforms(&mut self, t: SimTime) -> bool {
        let ok = self.check(t);
        if ok {
            self.update(t);
        }
        ok
    }

    /// The theoretical arrival time of the next cell.
    pub fn tat(&self) -> SimTime {
        self.tat
    }
    /// The increment T in picoseconds.
    pub fn increment_ps(&self) -> SimDuration {
        self.increment_ps
    }
    /// The limit tau in picoseconds.
    pub fn limit_ps(&self) -> SimDuration {
        self.limit_ps
    }
}

/// GCRA(T, tau), continuous-state leaky bucket form (I.371): the bucket drains one unit per
/// picosecond; at an arrival `X' = max(0, X - (t - LCT))`; the cell is non-conforming if
/// `X' > tau`, otherwise `X = X' + T` and `LCT = t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeakyBucket {
    increment_ps: SimDuration,
    limit_ps: SimDuration,
    x: SimDuration,
    lct: SimTime,
}

impl LeakyBucket {
    /// A GCRA with increment T and limit tau (picoseconds), empty (X = 0, LCT = 0).
    pub fn new(increment_ps: SimDuration, limit_ps: SimDuration) -> Self {
        assert!(increment_ps > 0, "GCRA increment must be positive");
        LeakyBucket {
            increment_ps,
            limit_ps,
            x: 0,
            lct: 0,
        }
    }

    #[inline]
    fn drained(&self, t: SimTime) -> SimDuration {
        debug_assert!(t >= self.lct, "GCRA arrivals must not go back in time");
        self.x.saturating_sub(t.saturating_sub(self.lct))
    }

    /// Would a cell arriving at `t` conform? (No state change.)
    #[inline]
    pub fn check(&self, t: SimTime) -> bool {
        self.drained(t) <= self.limit_ps
    }

    /// Account a cell at `t` as conforming: `X = max(0, X - (t - LCT)) + T`, `LCT = t`.
    #[inline]
    pub fn update(&mut self, t: SimTime) {
        self.x = self.drained(t).saturating_add(self.increment_ps);
        self.lct = t;
    }

    /// Test a cell arriving at `t`; the state changes only if it conforms.
    #[inline]
    pub fn conforms(&mut self, t: SimTime) -> bool {
        let ok = self.check(t);
        if ok {
            self.update(t);
        }
        ok
    }

    /// Bucket content X just after the last conforming cell, in picoseconds.
    pub fn x(&self) -> SimDuration {
        self.x
    }
    /// Last conformance time.
    pub fn lct(&self) -> SimTime {
        self.lct
    }
    /// The increment T in picoseconds.
    pub fn increment_ps(&self) -> SimDuration {
        self.increment_ps
    }
    /// The limit tau in picoseconds.
    pub fn limit_ps(&self) -> SimDuration {
        self.limit_ps
    }
}

/// Which of the two equivalent GCRA forms to run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GcraForm {
    /// Virtual scheduling (TAT).
    #[default]
    VirtualScheduling,
    /// Continuous-state leaky bucket (X, LCT), the form of seed 003's OPNET policer.
    LeakyBucket,
}

/// A GCRA in either form; both give the same decision on every cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gcra {
    VirtualScheduling(VirtualScheduling),
    LeakyBucket(LeakyBucket),
}

impl Gcra {
    /// GCRA(`increment_ps`, `limit_ps`) in the given form.
    pub fn new(form: GcraForm, increment_ps: SimDuration, limit_ps: SimDuration) -> Self {
        match form {
            GcraForm::VirtualScheduling => {
                Gcra::VirtualScheduling(VirtualScheduling::new(increment_ps, limit_ps))
            }
            GcraForm::LeakyBucket => Gcra::LeakyBucket(LeakyBucket::new(increment_ps, limit_ps)),
        }
    }

    /// GCRA(1/rate, limit) for a rate in Mb/s of cells (increment from [`increment_ps`]).
    pub fn from_mbps(form: GcraForm, rate_mbps: f64, limit_ps: SimDuration) -> Self {
        Gcra::new(form, increment_ps(rate_mbps), limit_ps)
    }

    /// Would a cell arriving at `t` conform? (No state change.)
    #[inline]
    pub fn check(&self, t: SimTime) -> bool {
        match self {
            Gcra::VirtualScheduling(g) => g.check(t),
            Gcra::LeakyBucket(g) => g.check(t),
        }
    }

    /// Account a cell at `t` as conforming.
    #[inline]
    pub fn update(&mut self, t: SimTime) {
        match self {
            Gcra::VirtualScheduling(g) => g.update(t),
            Gcra::LeakyBucket(g) => g.update(t),
        }
    }

    /// Test a cell arriving at `t`; the state changes only if it conforms.
    #[inline]
    pub fn conforms(&mut self, t: SimTime) -> bool {
        match self {
            Gcra::VirtualScheduling(g) => g.conforms(t),
            Gcra::LeakyBucket(g) => g.conforms(t),
        }
    }

    /// The increment T in picoseconds.
    pub fn increment_ps(&self) -> SimDuration {
        match self {
            Gcra::VirtualScheduling(g) => g.increment_ps(),
            Gcra::LeakyBucket(g) => g.increment_ps(),
        }
    }

    /// The limit tau in picoseconds.
    pub fn limit_ps(&self) -> SimDuration {
        match self {
            Gcra::VirtualScheduling(g) => g.limit_ps(),
            Gcra::LeakyBucket(g) => g.limit_ps(),
        }
    }
}

/// Result of a dual GCRA test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DualVerdict {
    /// Conforming to both buckets (both updated).
    Conforming,
    /// Non-conforming to GCRA(1/PCR, CDVT) (checked first; reported even if SCR fails too).
    PcrFailed,
    /// Conforming to the PCR bucket, non-conforming to GCRA(1/SCR, BT + CDVT).
    ScrFailed,
}

/// Dual GCRA (I.371; TM 4.0 VBR.1): a cell conforms if it conforms to GCRA(1/PCR, CDVT) and to
/// GCRA(1/SCR, BT + CDVT); a non-conforming cell updates neither bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DualGcra {
    /// The peak-rate bucket GCRA(1/PCR, CDVT).
    pub pcr: Gcra,
    /// The sustainable-rate bucket GCRA(1/SCR, BT + CDVT).
    pub scr: Gcra,
}

impl DualGcra {
    /// Two given buckets.
    pub fn new(pcr: Gcra, scr: Gcra) -> Self {
        DualGcra { pcr, scr }
    }

    /// From rates in Mb/s: T = 1/PCR, Ts = 1/SCR (both via [`increment_ps`]), SCR limit
    /// BT + CDVT with BT = (MBS - 1) x (Ts - T) computed from the integer increments.
    pub fn from_mbps(
        form: GcraForm,
        pcr_mbps: f64,
        cdvt_ps: SimDuration,
        scr_mbps: f64,
        mbs_cells: u32,
    ) -> Self {
        let t = increment_ps(pcr_mbps);
        let ts = increment_ps(scr_mbps);
        let bt = burst_tolerance_ps(mbs_cells, t, ts);
        DualGcra {
            pcr: Gcra::new(form, t, cdvt_ps),
            scr: Gcra::new(form, ts, bt.saturating_add(cdvt_ps)),
        }
    }

    /// Test a cell arriving at `t`.
    #[inline]
    pub fn check(&mut self, t: SimTime) -> DualVerdict {
        if !self.pcr.check(t) {
            DualVerdict::PcrFailed
        } else if !self.scr.check(t) {
            DualVerdict::ScrFailed
        } else {
            self.pcr.update(t);
            self.scr.update(t);
            DualVerdict::Conforming
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Contracts
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// UPC
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Traffic mapping (seed 001 section 6.1, Table 7)
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Admission control
// ---------------------------------------------------------------------------------------------

/// Erlang-B blocking probability of `servers` circuits offered `offered_erlangs` of traffic, by
/// the stable recursion B(A, 0) = 1, B(A, n) = A B(A, n-1) / (n + A B(A, n-1)).
pub fn erlang_b(offered_erlangs: f64, servers: u32) -> f64 {
    let a = offered_erlangs.max(0.0);
    let mut b = 1.0;
    for n in 1..=servers {
        b = a * b / (n as f64 + a * b);
    }
    b
}

/// Fewest servers whose Erlang-B blocking for `offered_erlangs` is at most `target` (0 < target).
pub fn erlang_b_servers(offered_erlangs: f64, target: f64) -> u32 {
    assert!(target > 0.0, "target blocking must be positive");
    let a = offered_erlangs.max(0.0);
    let (mut n, mut b) = (0u32, 1.0);
    while b > target {
        n += 1;
        b = a * b / (n as f64 + a * b);
    }
    n
}

/// Equivalent capacity of one ON-OFF fluid source (Guérin, Ahmadi, Naghshineh 1991, the
/// fluid-flow approximation):
///
/// `c = R (y - X + sqrt((y - X)^2 + 4 X rho y)) / (2 y)`, with `y = ln(1/eps) b (1 - rho) R`,
///
/// for peak rate R, utilization rho (fraction of time ON = mean/peak), mean ON period b
/// (seconds), buffer X and loss target eps. Units: R in anything per second, X in the same
/// anything (here cells), result in R's unit. c lies between rho R and R; it tends to R as
/// X -> 0 and to rho R as X -> infinity. When y - X < 0 the numerator is computed as
/// 4 X rho y / (sqrt(..) + X - y) to avoid cancellation.
pub fn gan_equivalent_capacity(
    peak: f64,
    utilization: f64,
    mean_burst_s: f64,
    buffer: f64,
    loss: f64,
) -> f64 {
    let rho = utilization.clamp(0.0, 1.0);
    if rho >= 1.0 || mean_burst_s <= 0.0 || peak <= 0.0 {
        return peak.max(0.0);
    }
    let alpha = (1.0 / loss.clamp(f64::MIN_POSITIVE, 1.0)).ln();
    let y = alpha * mean_burst_s * (1.0 - rho) * peak;
    if y <= 0.0 {
        return rho * peak;
    }
    let x = buffer.max(0.0);
    let d = y - x;
    let root = (d * d + 4.0 * x * rho * y).sqrt();
    let numerator = if d >= 0.0 {
        d + root
    } else {
        4.0 * x * rho * y / (root - d)
    };
    (peak * numerator / (2.0 * y)).clamp(rho * peak, peak)
}

/// How a port's CAC values a contract.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CacPolicy {
    /// Reserve PCR.
    Peak,
    /// Reserve SCR (PCR without one).
    Sustainable,
    /// Reserve the Guérin-Ahmadi-Naghshineh equivalent capacity of the contract seen as an
    /// ON-OFF source: R = PCR, rho = SCR/PCR, mean ON period b = MBS / PCR, with a buffer of
    /// `buffer_cells` and loss target `clr`. A contract without SCR gets PCR.
    EffectiveBandwidth { buffer_cells: f64, clr: f64 },
}

impl CacPolicy {
    /// Bandwidth to reserve for `contract`, Mb/s of cells.
    pub fn bandwidth(&self, contract: &Contract) -> f64 {
        match *self {
            CacPolicy::Peak => contract.pcr_mbps,
            CacPolicy::Sustainable => contract.sustainable_mbps(),
            CacPolicy::EffectiveBandwidth { buffer_cells, clr } => {
                let Some(scr) = contract.scr_mbps else {
                    return contract.pcr_mbps;
                };
                let peak = mbps_to_cells_per_s(contract.pcr_mbps);
                let b = contract.mbs_cells.max(1) as f64 / peak;
                let c =
                    gan_equivalent_capacity(peak, scr / contract.pcr_mbps, b, buffer_cells, clr);
                cells_per_s_to_mbps(c)
            }
        }
    }
}

/// Bandwidth held by one admitted connection; give it back with [`PortCac::release`].
/// Not `Clone`, so a reservation cannot be released twice.
#[derive(Debug, PartialEq, Eq)]
pub struct Reservation {
    bps: u64,
}

impl Reservation {
    /// Reserved bit/s.
    pub fn bps(&self) -> u64 {
        self.bps
    }
}

/// Admission control at one output port: admits a connection if its bandwidth under the policy
/// fits in what remains of the capacity. Bookkeeping is in integer bit/s (reservations rounded to
/// the nearest bit/s), so the allocated total never exceeds the capacity and a release restores
/// it exactly, however many calls come and go.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PortCac {
    policy: CacPolicy,
    capacity_bps: u64,
    allocated_bps: u64,
    calls: u32,
}

impl PortCac {
    /// A port of `capacity_mbps` (Mb/s of cells) with nothing admitted.
    pub fn new(capacity_mbps: f64, policy: CacPolicy) -> Self {
        PortCac {
            policy,
            capacity_bps: (capacity_mbps.max(0.0) * 1e6).round() as u64,
            allocated_bps: 0,
            calls: 0,
        }
    }

    /// Admit `contract` if it fits; `None` means blocked.
    pub fn admit(&mut self, contract: &Contract) -> Option<Reservation> {
        let bps = (self.policy.bandwidth(contract).max(0.0) * 1e6).round() as u64;
        if bps > self.available_bps() {
            return None;
        }
        self.allocated_bps += bps;
        self.calls += 1;
        debug_assert!(self.allocated_bps <= self.capacity_bps);
        Some(Reservation { bps })
    }

    /// Give back an admitted connection's bandwidth.
    pub fn release(&mut self, reservation: Reservation) {
        debug_assert!(reservation.bps <= self.allocated_bps && self.calls > 0);
        self.allocated_bps -= reservation.bps.min(self.allocated_bps);
        self.calls = self.calls.saturating_sub(1);
    }

    pub fn policy(&self) -> CacPolicy {
        self.policy
    }
    pub fn capacity_bps(&self) -> u64 {
        self.capacity_bps
    }
    pub fn allocated_bps(&self) -> u64 {
        self.allocated_bps
    }
    pub fn available_bps(&self) -> u64 {
        self.capacity_bps - self.allocated_bps
    }
    /// Connections currently admitted.
    pub fn calls(&self) -> u32 {
        self.calls
    }
}

// ---------------------------------------------------------------------------------------------
// Block-based QoS measures (seed 001 section 4.2)
// ---------------------------------------------------------------------------------------------

/// The outcome of one cell at the measurement point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellOutcome {
    /// Transmitted and received intact.
    Delivered,
    /// Transmitted and received with an error.
    Errored,
    /// Transmitted and not received.
    Lost,
    /// Received with no corresponding transmitted cell.
    Misinserted,
}

/// Counts cell outcomes and groups the transmitted cells into blocks of N consecutive cells; a
/// block is severely errored when more than M of its cells are errored, lost or misinserted
/// (seed 001 section 4.2). Delivered, errored and lost cells each take one place in a block; a
/// misinserted cell takes none (it was never transmitted) but counts against the block being
/// filled. A trailing incomplete block is not counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockCounter {
    block_cells: u32,
    max_bad: u32,
    pos: u32,
    bad: u32,
    blocks: u64,
    severe: u64,
    delivered: u64,
    errored: u64,
    lost: u64,
    misinserted: u64,
}

impl BlockCounter {
    /// Blocks of `block_cells` (N >= 1); severe above `max_bad` (M) bad cells.
    pub fn new(block_cells: u32, max_bad: u32) -> Self {
        assert!(block_cells >= 1, "a cell block holds at least one cell");
        BlockCounter {
            block_cells,
            max_bad,
            pos: 0,
            bad: 0,
            blocks: 0,
            severe: 0,
            delivered: 0,
            errored: 0,
            lost: 0,
            misinserted: 0,
        }
    }

    /// Record one cell outcome.
    #[inline]
    pub fn record(&mut self, outcome: CellOutcome) {
        match outcome {
            CellOutcome::Delivered => self.delivered += 1,
            CellOutcome::Errored => self.errored += 1,
            CellOutcome::Lost => self.lost += 1,
            CellOutcome::Misinserted => {
                self.misinserted += 1;
                self.bad += 1;
                return;
            }
        }
        self.bad += (outcome != CellOutcome::Delivered) as u32;
        self.pos += 1;
        if self.pos == self.block_cells {
            self.blocks += 1;
            self.severe += (self.bad > self.max_bad) as u64;
            self.pos = 0;
            self.bad = 0;
        }
    }

    /// Complete blocks.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }
    /// Severely errored blocks.
    pub fn severe_blocks(&self) -> u64 {
        self.severe
    }
    /// Transmitted cells (delivered + errored + lost).
    pub fn transmitted(&self) -> u64 {
        self.delivered + self.errored + self.lost
    }
    pub fn delivered(&self) -> u64 {
        self.delivered
    }
    pub fn errored(&self) -> u64 {
        self.errored
    }
    pub fn lost(&self) -> u64 {
        self.lost
    }
    pub fn misinserted(&self) -> u64 {
        self.misinserted
    }

    /// SECBR = severely errored blocks / blocks (0 before the first block).
    pub fn secbr(&self) -> f64 {
        ratio(self.severe, self.blocks)
    }
    /// CER = errored / (delivered + errored).
    pub fn cer(&self) -> f64 {
        ratio(self.errored, self.delivered + self.errored)
    }
    /// CLR = lost / transmitted.
    pub fn clr(&self) -> f64 {
        ratio(self.lost, self.transmitted())
    }
    /// CMR = misinserted cells per second over an interval of `interval_s` seconds.
    pub fn cmr(&self, interval_s: f64) -> f64 {
        if interval_s > 0.0 {
            self.misinserted as f64 / interval_s
        } else {
            0.0
        }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Expected SECBR when each cell of a block is bad independently with probability `p`:
/// P(Binomial(N, p) > M) = sum over k = M+1..=N of C(N, k) p^k (1-p)^(N-k), summed as the upper
/// tail itself (terms built in log space) so small values keep their precision.
pub fn secbr_binomial(block_cells: u32, max_bad: u32, p: f64) -> f64 {
    let n = block_cells;
    if max_bad >= n || p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0;
    }
    let (lp, lq) = (p.ln(), (-p).ln_1p());
    // ln C(N, k) built up from k = 0
    let mut ln_c = 0.0;
    let mut sum = 0.0;
    for k in 0..=n {
        if k > 0 {
            ln_c += ((n - k + 1) as f64).ln() - (k as f64).ln();
        }
        if k > max_bad {
            sum += (ln_c + k as f64 * lp + (n - k) as f64 * lq).exp();
        }
    }
    sum.min(1.0)
}

/// Expected CMR in cells/s when each of `cells` transmitted cells is followed by a misinserted
/// one with probability `p`, over `interval_s` seconds: `cells x p / interval`.
pub fn cmr_expected(cells: u64, p: f64, interval_s: f64) -> f64 {
    cells as f64 * p / interval_s
}

/// The tightest burst parameters under which a recorded cell stream would have been policed with
/// at most a share `tolerance` of its cells non-conforming (seed 001 section 6.2: a contract
/// obtained by monitoring a bundle; the fit itself is ours, stated in docs/contracts.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FittedBursts {
    /// CDVT of the PCR bucket, picoseconds (a whole number of nanoseconds).
    pub cdvt_ps: SimDuration,
    /// MBS of the SCR bucket, cells.
    pub mbs_cells: u32,
    /// Cells the dual GCRA with (PCR, CDVT, SCR, MBS) finds non-conforming.
    pub nonconforming: u64,
}

/// Cells of `times` (non-decreasing) that `gcra` finds non-conforming.
pub fn count_nonconforming(times: &[SimTime], mut gcra: Gcra) -> u64 {
    times.iter().filter(|&&t| !gcra.conforms(t)).count() as u64
}

fn count_dual(times: &[SimTime], mut d: DualGcra) -> u64 {
    times
        .iter()
        .filter(|&&t| d.check(t) != DualVerdict::Conforming)
        .count() as u64
}

/// Smallest `x` in `[lo, hi]` with `ok(x)`, given `ok(hi)`, by bisection (exact for a monotone
/// `ok`; otherwise still an `x` with `ok(x)`).
fn smallest(mut lo: u64, mut hi: u64, ok: impl Fn(u64) -> bool) -> u64 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    hi
}

/// Fit CDVT and then MBS to the cell emission times `times` (non-decreasing, picoseconds) for
/// the given PCR and SCR: CDVT is the smallest (to the nanosecond) for which GCRA(1/PCR, CDVT)
/// rejects at most `floor(tolerance x n)` cells, MBS the smallest for which the dual GCRA
/// (I.371; BT = (MBS - 1)(1/SCR - 1/PCR)) does. Both found by bisection; the returned
/// `nonconforming` is counted at the result. None for an empty stream.
pub fn fit_bursts(
    times: &[SimTime],
    pcr_mbps: f64,
    scr_mbps: f64,
    tolerance: f64,
) -> Option<FittedBursts> {
    let (&first, &last) = (times.first()?, times.last()?);
    let n = times.len() as u64;
    let budget = (tolerance * n as f64).floor() as u64;
    let t = increment_ps(pcr_mbps);
    let form = GcraForm::VirtualScheduling;
    // with a limit of n x T plus the stream's span every cell conforms
    let ns_hi = (last - first + n.saturating_mul(t)) / 1000 + 1;
    let cdvt_ns = smallest(0, ns_hi, |ns| {
        count_nonconforming(times, Gcra::new(form, t, ns * 1000)) <= budget
    });
    let cdvt_ps = cdvt_ns * 1000;
    let dual = |mbs: u64| DualGcra::from_mbps(form, pcr_mbps, cdvt_ps, scr_mbps, mbs as u32);
    // MBS = n + 1 gives a burst tolerance no conforming run of n cells can exceed
    let mbs_hi = (n + 1).min(u32::MAX as u64);
    let mbs = smallest(1, mbs_hi, |m| count_dual(times, dual(m)) <= budget);
    Some(FittedBursts {
        cdvt_ps,
        mbs_cells: mbs as u32,
        nonconforming: count_dual(times, dual(mbs)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{Pacer, PS_PER_S};
    use crate::wire::LLC_SNAP;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Run both forms side by side, assert they agree and keep `X + LCT == TAT`.
    struct Pair {
        v: VirtualScheduling,
        l: LeakyBucket,
    }

    impl Pair {
        fn new(t: u64, tau: u64) -> Self {
            Pair {
                v: VirtualScheduling::new(t, tau),
                l: LeakyBucket::new(t, tau),
            }
        }
        fn step(&mut self, t: u64) -> bool {
            let a = self.v.conforms(t);
            let b = self.l.conforms(t);
            assert_eq!(a, b, "forms disagree at t={t}: {:?} {:?}", self.v, self.l);
            assert_eq!(self.l.x() + self.l.lct(), self.v.tat(), "X + LCT != TAT");
            a
        }
    }

    #[test]
    fn gcra_forms_agree_on_random_streams() {
        for seed in 0..60u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let t_inc = rng.random_range(1..20_000u64);
            let tau = match seed % 4 {
                0 => 0,
                1 => rng.random_range(0..t_inc),
                2 => rng.random_range(0..5 * t_inc),
                _ => rng.random_range(0..100 * t_inc),
            };
            let mut p = Pair::new(t_inc, tau);
            let mut t = rng.random_range(0..3 * t_inc);
            let mut conforming = 0;
            for _ in 0..20_000 {
                let u = rng.random::<f64>();
                t += if u < 0.2 {
                    0 // back-to-back at the same instant
                } else if u < 0.95 {
                    (rng.random::<f64>() * 2.0 * t_inc as f64) as u64
                } else {
                    (rng.random::<f64>() * 50.0 * t_inc as f64) as u64 // idle
                };
                conforming += p.step(t) as u32;
            }
            assert!(conforming > 0);
        }
    }

    #[test]
    fn gcra_forms_agree_on_adversarial_streams() {
        // arrivals placed exactly on, just before and just after the conformance boundary
        // TAT - tau, in bursts at one instant, and right at TAT
        for &(t_inc, tau) in &[
            (1u64, 0u64),
            (10, 0),
            (10, 15),
            (7, 100),
            (1000, 999),
            (1000, 1000),
            (3, 1),
        ] {
            let mut rng = ChaCha8Rng::seed_from_u64(t_inc * 31 + tau);
            let mut p = Pair::new(t_inc, tau);
            let mut last = 0u64;
            for _ in 0..20_000 {
                let tat = p.v.tat();
                let edge = tat.saturating_sub(tau);
                let t = match rng.random_range(0..6u32) {
                    0 => last,
                    1 => edge.saturating_sub(1),
                    2 => edge,
                    3 => edge + 1,
                    4 => tat,
                    _ => tat + t_inc,
                }
                .max(last);
                let expect = tat <= t + tau;
                assert_eq!(p.step(t), expect, "boundary rule at t={t}, tat={tat}");
                last = t;
            }
            // a burst of many cells at one instant after a long idle: floor(tau / T) + 1 conform
            let t0 = last + 10 * (t_inc + tau);
            let n = (0..1000).filter(|_| p.step(t0)).count() as u64;
            assert_eq!(n, tau / t_inc + 1);
        }
    }

    #[test]
    fn hand_computed_i371_sequence() {
        // GCRA(T = 10, tau = 15), worked by hand with the virtual scheduling rules
        // (non-conforming iff TAT > t + tau; otherwise TAT = max(TAT, t) + T):
        let steps: &[(u64, bool, u64)] = &[
            (0, true, 10),    // TAT 0 <= 15: conforming, TAT = 0 + 10
            (0, true, 20),    // 10 <= 15: TAT = 20
            (0, false, 20),   // 20 > 15: non-conforming, TAT unchanged
            (5, true, 30),    // 20 <= 5 + 15 = 20 (on the boundary): TAT = 30
            (5, false, 30),   // 30 > 20
            (30, true, 40),   // 30 <= 45: TAT = 30 + 10
            (31, true, 50),   // 40 <= 46
            (32, false, 50),  // 50 > 47
            (35, true, 60),   // 50 <= 50 (boundary)
            (100, true, 110), // idle: TAT 60 < 100, restart at t: TAT = 100 + 10
            (100, true, 120), // 110 <= 115
            (100, false, 120),
        ];
        for form in [GcraForm::VirtualScheduling, GcraForm::LeakyBucket] {
            let mut g = Gcra::new(form, 10, 15);
            for &(t, ok, _) in steps {
                assert_eq!(g.conforms(t), ok, "{form:?} at t={t}");
            }
        }
        let mut v = VirtualScheduling::new(10, 15);
        let mut l = LeakyBucket::new(10, 15);
        for &(t, _, tat) in steps {
            v.conforms(t);
            l.conforms(t);
            assert_eq!(v.tat(), tat);
            // leaky bucket: after t = 5, X = 25 and LCT = 5 (X + LCT = TAT = 30)
            if t == 5 {
                assert_eq!((l.x(), l.lct()), (25, 5));
            }
        }
    }

    #[test]
    fn max_burst_matches_i371_formula() {
        let cases = [
            (100u64, 0u64, 0u64),
            (100, 250, 0),
            (100, 250, 40),
            (100, 300, 40),
            (1000, 7777, 999),
        ];
        for &(t_inc, tau, spacing) in &cases {
            for form in [GcraForm::VirtualScheduling, GcraForm::LeakyBucket] {
                let mut g = Gcra::new(form, t_inc, tau);
                let n = (0..100_000u64)
                    .take_while(|&k| g.conforms(1_000 + k * spacing))
                    .count() as u64;
                assert_eq!(
                    n,
                    max_burst_cells(tau, t_inc, spacing),
                    "T {t_inc} tau {tau} spacing {spacing}"
                );
            }
        }
        // tau = BT = (MBS - 1)(Ts - T): the burst is exactly MBS
        let (t, ts) = (1_000u64, 5_123u64);
        for mbs in 1..50u32 {
            assert_eq!(
                max_burst_cells(burst_tolerance_ps(mbs, t, ts), ts, t),
                mbs as u64
            );
        }
        assert_eq!(max_burst_cells(5, 10, 10), u64::MAX);
    }

    #[test]
    fn cbr_exactly_at_pcr_with_zero_cdvt_fully_conforms() {
        for &mbps in &[149.76, 155.52, 10.0, 1.0, 0.064, 33.333333, 100.0] {
            let bps = mbps_to_bps(mbps);
            for form in [GcraForm::VirtualScheduling, GcraForm::LeakyBucket] {
                let mut g = Gcra::from_mbps(form, mbps, 0);
                let mut pacer = Pacer::new(bps);
                pacer.start(777);
                for n in 0..300_000 {
                    let t = pacer.advance();
                    assert!(g.conforms(t), "{mbps} Mb/s, cell {n} at {t}");
                }
            }
        }
    }

    /// Conforming cells among arrivals `ts` (gaps shorter than T, no idle period because
    /// tau >= the largest gap): cell i conforms iff C_i T <= t_i - t_0 + tau, which the greedy
    /// rule fills as C_N = min(N, floor((t_{N-1} - t_0 + tau) / T) + 1).
    fn conforming_closed_form(first: u64, last: u64, n: u64, t_inc: u64, tau: u64) -> u64 {
        n.min((last - first + tau) / t_inc + 1)
    }

    #[test]
    fn one_percent_above_pcr_share_matches_closed_form() {
        // exact integers: T = 101,000 ps, cells every S = 100,000 ps (1.01 x PCR)
        let (t_inc, s) = (101_000u64, 100_000u64);
        let n = 1_000_000u64;
        // (a) CDVT 0: after a conforming cell at t, TAT = t + T; the next cell (t + S < TAT)
        // fails and the one after (t + 2S >= TAT) conforms: every ceil(T / S) = 2nd cell
        // conforms, non-conforming share 1 - 1/2.
        let mut g = Gcra::new(GcraForm::LeakyBucket, t_inc, 0);
        let ok = (0..n).filter(|&i| g.conforms(i * s)).count() as u64;
        assert_eq!(t_inc.div_ceil(s), 2);
        assert_eq!(ok, n.div_ceil(2));
        // (b) CDVT = T (>= S, so the bucket never empties): conforming count from the closed
        // form; the non-conforming share tends to 1 - S/T = 1/101
        for form in [GcraForm::VirtualScheduling, GcraForm::LeakyBucket] {
            let mut g = Gcra::new(form, t_inc, t_inc);
            let ok = (0..n).filter(|&i| g.conforms(i * s)).count() as u64;
            assert_eq!(ok, conforming_closed_form(0, (n - 1) * s, n, t_inc, t_inc));
            // floor((999,999 x 100,000 + 101,000) / 101,000) + 1 = floor(990,099.02) + 1
            assert_eq!(ok, 990_100);
            let share = (n - ok) as f64 / n as f64;
            assert!((share - 1.0 / 101.0).abs() < 2.0 / n as f64, "{share}");
        }
        // (c) with rates: PCR 100 Mb/s (T = 4,240,000 ps exactly), a source paced at 101 Mb/s
        let mut g = Gcra::from_mbps(GcraForm::VirtualScheduling, 100.0, increment_ps(100.0));
        assert_eq!(g.increment_ps(), 4_240_000);
        let mut pacer = Pacer::new(mbps_to_bps(101.0));
        pacer.start(0);
        let (mut first, mut last, mut ok) = (0, 0, 0u64);
        for i in 0..n {
            let t = pacer.advance();
            if i == 0 {
                first = t;
            }
            last = t;
            ok += g.conforms(t) as u64;
        }
        assert_eq!(
            ok,
            conforming_closed_form(first, last, n, 4_240_000, 4_240_000)
        );
        let share = (n - ok) as f64 / n as f64;
        assert!((share - 1.0 / 101.0).abs() < 2.0 / n as f64, "{share}");
    }

    #[test]
    fn dual_gcra_passes_mbs_burst_at_pcr_and_flags_the_next() {
        let (pcr, scr, mbs) = (10.0, 2.0, 20u32);
        for form in [GcraForm::VirtualScheduling, GcraForm::LeakyBucket] {
            let mut d = DualGcra::from_mbps(form, pcr, 0, scr, mbs);
            let t = d.pcr.increment_ps();
            let start = 5 * PS_PER_S;
            for k in 0..mbs as u64 {
                assert_eq!(d.check(start + k * t), DualVerdict::Conforming, "cell {k}");
            }
            assert_eq!(d.check(start + mbs as u64 * t), DualVerdict::ScrFailed);
            // faster than PCR (two cells at one instant): the PCR bucket is reported, and a
            // non-conforming cell leaves both buckets untouched
            let mut fresh = DualGcra::from_mbps(form, pcr, 0, scr, mbs);
            assert_eq!(fresh.check(0), DualVerdict::Conforming);
            let before = fresh;
            assert_eq!(fresh.check(0), DualVerdict::PcrFailed);
            assert_eq!(fresh, before);
            // after the SCR bucket drains, another MBS burst passes (paced by the core's Pacer)
            let mut pacer = Pacer::new(mbps_to_bps(pcr));
            pacer.start(start + PS_PER_S);
            for k in 0..mbs {
                assert_eq!(
                    d.check(pacer.advance()),
                    DualVerdict::Conforming,
                    "paced cell {k}"
                );
            }
            assert_eq!(d.check(pacer.advance()), DualVerdict::ScrFailed);

            // the same through the UPC: MBS passes, the (MBS+1)-th is tagged, or discarded
            let c = Contract::vbr(pcr, 0, scr, mbs);
            for (action, outcome) in [
                (UpcAction::Tag, UpcOutcome::Tag),
                (UpcAction::Discard, UpcOutcome::Discard),
            ] {
                let mut u =
                    Upc::from_contract(&c, form, UpcAction::Discard, action, ScrStream::Clp0);
                for k in 0..mbs as u64 {
                    assert_eq!(u.police(k * t, false), UpcOutcome::Pass);
                }
                assert_eq!(u.police(mbs as u64 * t, false), outcome);
                let cnt = u.counts();
                assert_eq!(
                    (cnt.cells, cnt.passed, cnt.scr_failures),
                    (mbs as u64 + 1, mbs as u64, 1)
                );
            }
        }
    }

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

    #[test]
    fn erlang_b_table_values() {
        assert!((erlang_b(10.0, 10) - 0.21458).abs() < 5e-6);
        assert_eq!(erlang_b(1.0, 1), 0.5);
        assert!((erlang_b(2.0, 2) - 0.4).abs() < 1e-15); // (4/2) / (1 + 2 + 2)
        assert_eq!(erlang_b(3.0, 0), 1.0);
        assert_eq!(erlang_b(0.0, 3), 0.0);
        // standard table: 1% blocking at 10, 20, 100 circuits needs 4.461, 12.031, 84.06 erlangs
        for &(a, n) in &[(4.4612, 10u32), (12.031, 20), (84.06, 100)] {
            assert!((erlang_b(a, n) - 0.01).abs() < 2e-5, "{a} {n}");
        }
        // stable at large sizes, decreasing in servers
        let big = erlang_b(1000.0, 1000);
        assert!((big - 0.024_81).abs() < 1e-4, "{big}");
        assert!(erlang_b(5000.0, 4000) > erlang_b(5000.0, 4001));
        // 10 erlangs at 1%: 18 servers (B = 0.00714) and not 17 (B = 0.01295)
        assert_eq!(erlang_b_servers(10.0, 0.01), 18);
    }

    #[test]
    fn peak_rate_cac_blocking_matches_erlang_b() {
        // 10 Mb/s port, CBR calls of 1 Mb/s (10 circuits), Poisson arrivals at 10 calls/s,
        // exponential holding with mean 1 s: 10 erlangs, Erlang-B 0.21458
        let mut rng = ChaCha8Rng::seed_from_u64(2024);
        let mut exp = |mean: f64| -mean * (1.0 - rng.random::<f64>()).ln();
        let mut cac = PortCac::new(10.0, CacPolicy::Peak);
        let call = Contract::cbr(1.0, 0);
        let mut active: Vec<(f64, Reservation)> = Vec::new();
        let (mut now, mut offered, mut blocked) = (0.0, 0u64, 0u64);
        let warmup = 1_000;
        for i in 0..200_000 + warmup {
            now += exp(0.1);
            // release calls that ended before this arrival
            let mut k = 0;
            while k < active.len() {
                if active[k].0 <= now {
                    let (_, r) = active.swap_remove(k);
                    cac.release(r);
                } else {
                    k += 1;
                }
            }
            let admitted = cac.admit(&call);
            if i >= warmup {
                offered += 1;
                blocked += admitted.is_none() as u64;
            }
            if let Some(r) = admitted {
                active.push((now + exp(1.0), r));
            }
            assert!(cac.allocated_bps() <= cac.capacity_bps());
            assert_eq!(cac.calls() as usize, active.len());
        }
        let pb = blocked as f64 / offered as f64;
        let se = (0.21458 * (1.0 - 0.21458) / offered as f64).sqrt();
        // blocking events are positively correlated: allow several binomial standard errors
        assert!(
            (pb - erlang_b(10.0, 10)).abs() < 6.0 * se,
            "measured {pb}, Erlang-B 0.21458, se {se}"
        );
    }

    #[test]
    fn cac_never_exceeds_capacity_and_release_restores_it() {
        let contracts = [
            Contract::cbr(2.0, 0),
            Contract::cbr(0.1, 0),
            Contract::vbr(10.0, 0, 1.0, 50),
            Contract::vbr(20.0, 0, 5.0, 200),
            Contract::vbr(1.5, 0, 0.3, 3),
        ];
        let policies = [
            CacPolicy::Peak,
            CacPolicy::Sustainable,
            CacPolicy::EffectiveBandwidth {
                buffer_cells: 200.0,
                clr: 1e-6,
            },
        ];
        for policy in policies {
            let mut cac = PortCac::new(149.76, policy);
            let mut rng = ChaCha8Rng::seed_from_u64(9);
            let mut held: Vec<Reservation> = Vec::new();
            for _ in 0..50_000 {
                if rng.random_bool(0.6) {
                    let before = cac.allocated_bps();
                    let c = contracts[rng.random_range(0..contracts.len())];
                    match cac.admit(&c) {
                        Some(r) => {
                            assert_eq!(cac.allocated_bps(), before + r.bps());
                            held.push(r);
                        }
                        None => {
                            assert_eq!(cac.allocated_bps(), before);
                            assert!(
                                (policy.bandwidth(&c) * 1e6).round() as u64 > cac.available_bps()
                            );
                        }
                    }
                } else if !held.is_empty() {
                    let r = held.swap_remove(rng.random_range(0..held.len()));
                    let (before, bps) = (cac.allocated_bps(), r.bps());
                    cac.release(r);
                    assert_eq!(cac.allocated_bps(), before - bps);
                }
                assert!(cac.allocated_bps() <= cac.capacity_bps());
                assert_eq!(
                    held.iter().map(Reservation::bps).sum::<u64>(),
                    cac.allocated_bps()
                );
            }
            for r in held.drain(..) {
                cac.release(r);
            }
            assert_eq!((cac.allocated_bps(), cac.calls()), (0, 0));
            assert_eq!(cac.available_bps(), 149_760_000);
        }
        // identical CBR calls under peak allocation: exactly floor(capacity / PCR) fit
        let mut cac = PortCac::new(149.76, CacPolicy::Peak);
        let n = std::iter::from_fn(|| cac.admit(&Contract::cbr(10.0, 0)))
            .take(1000)
            .count();
        assert_eq!(n, 14);
    }

    #[test]
    fn effective_bandwidth_formula_and_limits() {
        // R = 1000 cells/s, rho = 0.25, b = 0.1 s, X = 50 cells, eps = 1e-6:
        // y = ln(1e6) x 0.1 x 0.75 x 1000 = 1036.163; y - X = 986.163;
        // sqrt(986.163^2 + 4 x 50 x 0.25 x 1036.163) = sqrt(972,517.8 + 51,808.2) = 1012.090
        // c = 1000 x (986.163 + 1012.090) / (2 x 1036.163) = 964.256 cells/s
        let c = gan_equivalent_capacity(1000.0, 0.25, 0.1, 50.0, 1e-6);
        assert!((c - 964.256).abs() < 1e-3, "{c}");
        // limits: X -> 0 gives the peak, X -> infinity the mean; y < X branch is continuous
        assert!((gan_equivalent_capacity(1000.0, 0.25, 0.1, 0.0, 1e-6) - 1000.0).abs() < 1e-9);
        let huge = gan_equivalent_capacity(1000.0, 0.25, 0.1, 1e12, 1e-6);
        assert!((huge - 250.0).abs() < 1e-3, "{huge}");
        let y = (1e6f64).ln() * 0.1 * 0.75 * 1000.0;
        let below = gan_equivalent_capacity(1000.0, 0.25, 0.1, y * (1.0 - 1e-12), 1e-6);
        let above = gan_equivalent_capacity(1000.0, 0.25, 0.1, y * (1.0 + 1e-12), 1e-6);
        assert!((below - above).abs() < 1e-6);
        // monotone in buffer, between mean and peak
        let mut prev = f64::INFINITY;
        for x in [0.0, 1.0, 10.0, 100.0, 1e3, 1e4, 1e5] {
            let c = gan_equivalent_capacity(1000.0, 0.25, 0.1, x, 1e-6);
            assert!((250.0..=1000.0).contains(&c) && c <= prev);
            prev = c;
        }
        // CAC policies on a VBR contract: sustainable <= effective <= peak; CBR gets its PCR
        let v = Contract::vbr(10.0, 0, 2.0, 100);
        let eb = CacPolicy::EffectiveBandwidth {
            buffer_cells: 500.0,
            clr: 1e-6,
        };
        assert_eq!(CacPolicy::Peak.bandwidth(&v), 10.0);
        assert_eq!(CacPolicy::Sustainable.bandwidth(&v), 2.0);
        let e = eb.bandwidth(&v);
        assert!(e > 2.0 && e < 10.0, "{e}");
        assert_eq!(eb.bandwidth(&Contract::cbr(3.0, 0)), 3.0);
        assert_eq!(
            CacPolicy::Sustainable.bandwidth(&Contract::cbr(3.0, 0)),
            3.0
        );
    }

    #[test]
    fn block_counter_counts_severe_blocks() {
        use CellOutcome::*;
        // N = 4, M = 1: a block is severe with 2 or more bad cells
        let mut b = BlockCounter::new(4, 1);
        for o in [Delivered, Lost, Delivered, Delivered] {
            b.record(o); // 1 bad: not severe
        }
        for o in [Errored, Delivered, Lost, Delivered] {
            b.record(o); // 2 bad: severe
        }
        for o in [Delivered, Misinserted, Delivered, Errored, Delivered] {
            b.record(o); // misinserted takes no place: 2 bad in 4 transmitted cells: severe
        }
        b.record(Lost); // incomplete block: not counted
        assert_eq!((b.blocks(), b.severe_blocks()), (3, 2));
        assert!((b.secbr() - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(
            (b.delivered(), b.errored(), b.lost(), b.misinserted()),
            (8, 2, 3, 1)
        );
        assert_eq!(b.transmitted(), 13);
        assert!((b.cer() - 2.0 / 10.0).abs() < 1e-15);
        assert!((b.clr() - 3.0 / 13.0).abs() < 1e-15);
        assert_eq!(b.cmr(0.5), 2.0);
    }

    #[test]
    fn secbr_closed_form_edges() {
        assert_eq!(secbr_binomial(10, 10, 0.5), 0.0);
        assert_eq!(secbr_binomial(10, 2, 0.0), 0.0);
        assert_eq!(secbr_binomial(10, 2, 1.0), 1.0);
        // M = 0: 1 - (1-p)^N
        assert!((secbr_binomial(100, 0, 0.01) - (1.0 - 0.99f64.powi(100))).abs() < 1e-12);
        // N = 100, M = 2, p = 0.01: 1 - (0.366032 + 0.369730 + 0.184865) = 0.0793732
        assert!((secbr_binomial(100, 2, 0.01) - 0.079_373_2).abs() < 1e-7);
        // tiny tails keep their precision: P(Bin(1000, 1e-6) > 3) ~ C(1000,4) 1e-24 = 4.14e-14
        let t = secbr_binomial(1000, 3, 1e-6);
        assert!((t / 4.141_712_5e-14 - 1.0).abs() < 2e-3, "{t}");
    }

    #[test]
    fn secbr_and_cmr_simulated_vs_closed_form() {
        let (n, m, p_loss, p_mis) = (100u32, 2u32, 0.008, 0.001);
        let mut rng = ChaCha8Rng::seed_from_u64(42);
        let mut b = BlockCounter::new(n, m);
        let blocks = 40_000u64;
        let mut misinserted = 0u64;
        for _ in 0..blocks * n as u64 {
            let u = rng.random::<f64>();
            b.record(if u < p_loss / 2.0 {
                CellOutcome::Lost
            } else if u < p_loss {
                CellOutcome::Errored
            } else {
                CellOutcome::Delivered
            });
            if rng.random_bool(p_mis) {
                b.record(CellOutcome::Misinserted);
                misinserted += 1;
            }
        }
        assert_eq!(b.blocks(), blocks);
        // each transmitted cell is bad w.p. p_loss and brings a misinserted cell w.p. p_mis: the
        // bad count of a block is Bin(N, p_loss) + Bin(N, p_mis), close to Bin(2N, ...) - use
        // the exact convolution of the two binomials for the expected SECBR
        let pmf = |nn: u32, p: f64| -> Vec<f64> {
            // P(X = k) = P(X > k - 1) - P(X > k)
            let above = |k: u32| secbr_binomial(nn, k, p);
            (0..=nn)
                .map(|k| if k == 0 { 1.0 } else { above(k - 1) } - above(k))
                .collect()
        };
        let (a, c) = (pmf(n, p_loss), pmf(n, p_mis));
        let mu = m as usize;
        let ok: f64 = (0..=mu)
            .map(|i| a[i] * c[..=mu - i].iter().sum::<f64>())
            .sum();
        let expected = 1.0 - ok;
        let se = (expected * (1.0 - expected) / blocks as f64).sqrt();
        assert!(
            (b.secbr() - expected).abs() < 4.0 * se,
            "SECBR {} vs {expected} (se {se})",
            b.secbr()
        );
        // without misinsertion the closed form is the binomial tail itself
        let mut b2 = BlockCounter::new(n, m);
        for _ in 0..blocks * n as u64 {
            b2.record(if rng.random_bool(0.01) {
                CellOutcome::Lost
            } else {
                CellOutcome::Delivered
            });
        }
        let e2 = secbr_binomial(n, m, 0.01);
        let se2 = (e2 * (1.0 - e2) / blocks as f64).sqrt();
        assert!(
            (b2.secbr() - e2).abs() < 4.0 * se2,
            "SECBR {} vs {e2}",
            b2.secbr()
        );
        // CMR: cells sent at 1e5 cells/s -> interval = cells / 1e5 s
        let cells = blocks * n as u64;
        let interval = cells as f64 / 1e5;
        let cmr = b.cmr(interval);
        let cmr_e = cmr_expected(cells, p_mis, interval);
        let cmr_se = (cells as f64 * p_mis * (1.0 - p_mis)).sqrt() / interval;
        assert!((cmr - cmr_e).abs() < 4.0 * cmr_se, "CMR {cmr} vs {cmr_e}");
        assert_eq!(b.misinserted(), misinserted);
        // CLR = lost / transmitted -> p_loss / 2; CER = errored / (delivered + errored)
        // -> (p_loss / 2) / (1 - p_loss / 2)
        let clr_se = (p_loss / 2.0 / cells as f64).sqrt();
        assert!(
            (b.clr() - p_loss / 2.0).abs() < 4.0 * clr_se,
            "CLR {}",
            b.clr()
        );
        let cer_e = (p_loss / 2.0) / (1.0 - p_loss / 2.0);
        assert!(
            (b.cer() - cer_e).abs() < 4.0 * clr_se,
            "CER {} vs {cer_e}",
            b.cer()
        );
    }

    #[test]
    fn fitted_bursts_police_the_stream_within_the_tolerance() {
        // bursts of 50 back-to-back cells at 100 Mb/s every 5 ms: PCR 100, SCR about 4.24 Mb/s
        let t = increment_ps(100.0);
        let mut times = vec![];
        for b in 0..40u64 {
            for k in 0..50u64 {
                times.push(b * 5_000_000_000 + k * t);
            }
        }
        let scr = 1.1 * 50.0 * 424.0 / 5e-3 / 1e6;
        let f = fit_bursts(&times, 100.0, scr, 0.0).unwrap();
        // cells exactly at PCR need no CDVT; a burst of 50 at PCR needs MBS 50 exactly
        assert_eq!(f.cdvt_ps, 0);
        assert_eq!(f.mbs_cells, 50);
        assert_eq!(f.nonconforming, 0);
        let d = |m: u32| DualGcra::from_mbps(GcraForm::VirtualScheduling, 100.0, 0, scr, m);
        assert!(
            count_dual(&times, d(49)) > 0,
            "one cell less of burst is too tight"
        );
        // a peak rate 10% below the cells' spacing needs the CDVT that a 50-cell burst builds up
        let slow = increment_ps(90.0);
        let f = fit_bursts(&times, 90.0, scr, 0.0).unwrap();
        let need = 49 * (slow - t);
        assert!(
            f.cdvt_ps >= need && f.cdvt_ps < need + 1000,
            "{f:?} vs {need}"
        );
        // with a 2% tolerance the last cell of each burst (2% of 50) may go: MBS 49
        let f = fit_bursts(&times, 100.0, scr, 0.02).unwrap();
        assert_eq!(f.mbs_cells, 49);
        assert!(f.nonconforming <= 40, "{f:?}");
        assert!(fit_bursts(&[], 100.0, scr, 0.0).is_none());
    }
}
