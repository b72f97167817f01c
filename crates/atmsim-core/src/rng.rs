//! Per-component random streams from (seed, stable name) (DESIGN.md convention 2).
//!
//! Every random component (an endpoint's application, a link's impairment model, a call
//! generator ...) draws from its own [`Rng`], made by [`stream`] from the run's master seed and
//! the component's stable name, so adding or reordering components never changes another
//! component's numbers. Moved from `traffic.rs`.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The random generator type of every random component.
pub type Rng = ChaCha8Rng;

/// A random stream that depends only on the master seed and a stable component name, never on
/// construction order (DESIGN.md convention 2).
pub fn stream(seed: u64, name: &str) -> Rng {
    // FNV-1a of the name, mixed with the seed by SplitMix64
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    let mut z = seed ^ h;
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    Rng::seed_from_u64(z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_depend_on_name_not_order() {
        use rand::RngExt;
        let x1: u64 = stream(7, "a").random();
        let _: u64 = stream(7, "b").random();
        let x2: u64 = stream(7, "a").random();
        assert_eq!(x1, x2);
        let y: u64 = stream(7, "b").random();
        assert_ne!(x1, y);
    }
}
