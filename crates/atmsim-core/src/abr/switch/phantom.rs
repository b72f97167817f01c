//! Phantom (Afek, Mansour, Ostfeld, "Phantom: a simple and effective flow control scheme",
//! ACM SIGCOMM 1996; ATM Forum/95-0495): the port treats its unused capacity as one more
//! ("phantom") session. Each interval it measures the unused ABR capacity
//! Delta = ABR capacity - ABR input rate and averages it, MACR <- MACR + AV (Delta - MACR);
//! every backward RM cell gets ER <- min(ER, UF x MACR). With n sessions bottlenecked at the
//! port the fixed point is r = UF x (C - n r): r = UF C / (1 + n UF), the utilization
//! n UF / (1 + n UF) (UF = 1: each gets C / (n + 1), as if a phantom session were the n+1st).
//!
//! Defaults: UF = 1 (the phantom session itself; the paper's utilization factor raises it);
//! AV = 1/16 for both directions of change and a 5 ms interval are our choice (the paper
//! averages with separate increase and decrease factors we could not check). MACR starts at the
//! line rate (our choice).

use super::{Allocation, Measurement, MeteredRule};
use crate::wire::RmFields;

/// Phantom at one output port (in a [`super::Metered`] with U = 1: z = input / ABR capacity).
#[derive(Clone, Debug, Default)]
pub struct Phantom {
    /// Utilization factor.
    pub uf: f64,
    /// Averaging factor of MACR.
    pub av: f64,
    /// The averaged unused capacity, Mb/s.
    pub macr: f64,
}

impl Phantom {
    /// One interval's update of MACR from the unused capacity `delta`.
    pub fn update(&mut self, delta: f64) {
        self.macr += self.av * (delta.max(0.0) - self.macr);
    }
}

impl MeteredRule for Phantom {
    fn start(&mut self, line_mbps: f64, _target_mbps: f64, _n_vcs: usize) {
        self.macr = line_mbps;
    }

    fn close(&mut self, m: &Measurement) -> Allocation {
        self.update(m.capacity - m.input);
        let fair = self.uf * self.macr;
        Allocation { fair, er_max: fair }
    }

    #[inline]
    fn backward(&mut self, _vc: u32, _abr_queue: u32, rm: &mut RmFields) {
        rm.er = rm.er.min((self.uf * self.macr) as f32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abr::switch::testing::port;

    #[test]
    fn fixed_point_is_uf_c_over_one_plus_n_uf() {
        for (n, uf) in [(1.0, 1.0), (3.0, 1.0), (4.0, 2.0)] {
            let c = 150.0;
            let rule = Phantom {
                uf,
                av: 1.0 / 16.0,
                ..Default::default()
            };
            let p = &mut port(rule, 1.0, c, 1).rule;
            for _ in 0..2000 {
                let r = p.uf * p.macr; // every session sends at its ER
                p.update(c - (n * r).min(c));
            }
            let want = uf * c / (1.0 + n * uf);
            assert!(
                (p.uf * p.macr - want).abs() < 1e-6,
                "n {n} uf {uf}: {}",
                p.uf * p.macr
            );
        }
    }
}
