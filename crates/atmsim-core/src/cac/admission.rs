//! Connection admission control at one output port (seed 001
//! `/work/shared/seeds/001_08abd1994ada50f6.txt` section 6.2, admission policies): a contract is
//! valued at its PCR, its SCR, or its Guérin-Ahmadi-Naghshineh equivalent capacity, and admitted
//! if that fits in what remains of the port's capacity.

use super::erlang::gan_equivalent_capacity;
use crate::policing::{cells_per_s_to_mbps, mbps_to_cells_per_s, Contract};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cac::erlang_b;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;

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
}
