//! TM 4.0 ABR destination end system (DES rules 1-4) of a one-way connection.
//!
//! Source: ATM Forum TM 4.0 (af-tm-0056.000) section 5.10, rule numbers as in
//! `../shared/SPEC-ABR.md`. The destination turns each forward RM cell around at once into its
//! host's output port (DES rule 4 "as the reverse path allows"); a bidirectional connection's
//! turnaround is done by the other end's [`super::AbrSource`] instead. Whatever receives the
//! VC's data above it (a host with a TCP receiver, whose ACKs go back on the reverse
//! direction) sits in the host layer (`crate::host::abr_end`).

use super::{RM_BN, RM_CI, RM_DIR};
use crate::app::{Application, Ctx};
use crate::wire::{Cell, H_CLP, H_EFCI, H_RM};

/// TM 4.0 destination end system (DES rules 1-2): remembers the EFCI state of the last data
/// cell and turns every forward RM cell around.
#[derive(Clone, Debug, Default)]
pub struct AbrDest {
    efci: bool,
    pub brm_sent: u64,
}

impl Application for AbrDest {
    fn on_cell(&mut self, ctx: &mut Ctx, cell: &Cell) {
        if !cell.is_rm() {
            self.efci = cell.hdr & H_EFCI != 0; // rule 1
            return;
        }
        if cell.rm.bits & RM_DIR != 0 {
            return;
        }
        let mut b = Cell {
            hdr: H_RM | (cell.hdr & H_CLP),
            rm: cell.rm,
            ..Default::default()
        };
        b.rm.bits = (b.rm.bits | RM_DIR) & !RM_BN; // rule 2
        if self.efci {
            b.rm.bits |= RM_CI;
            self.efci = false;
        }
        ctx.send_cell(b);
        self.brm_sent += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Asks;
    use crate::rng::LazyRng;
    use crate::wire::RmFields;

    #[test]
    fn destination_turns_frm_around_with_ci_from_efci() {
        let mut d = AbrDest::default();
        let mut rng = LazyRng::new(1, "t");
        let frm = Cell {
            hdr: H_RM,
            rm: RmFields {
                er: 150.0,
                ccr: 40.0,
                mcr: 0.0,
                bits: 0,
            },
            ..Default::default()
        };
        let mut out = Asks::default();
        let mut ctx = Ctx::new(0, &mut rng, &mut out);
        d.on_cell(
            &mut ctx,
            &Cell {
                hdr: H_EFCI,
                ..Default::default()
            },
        );
        d.on_cell(&mut ctx, &frm);
        let b = ctx.cell_requested().unwrap();
        assert_eq!(b.rm.bits, RM_DIR | RM_CI);
        assert_eq!(b.rm.ccr, 40.0);
        let mut out = Asks::default();
        let mut ctx = Ctx::new(0, &mut rng, &mut out);
        d.on_cell(&mut ctx, &frm);
        assert_eq!(
            ctx.cell_requested().unwrap().rm.bits,
            RM_DIR,
            "EFCI state cleared after use"
        );
    }
}
