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
    Rng::seed_from_u64(stream_seed(seed, name))
}

/// The generator seed of [`stream`]`(seed, name)`.
fn stream_seed(seed: u64, name: &str) -> u64 {
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
    z
}

/// An endpoint's random stream, [`stream`]`(seed, name)`, made at its first use (issue 13: the
/// generator is 300-odd bytes, most endpoints of a large network (CBR and persistent sources)
/// never draw from it, and it was two thirds of an endpoint's memory). 24 bytes until then (a
/// `OnceLock`, not a `OnceCell`, because the Python binding's simulation must be `Sync`; the
/// engine is single-threaded and the check is a plain load).
///
/// Exact: a stream's state changes only when it is drawn from, so the stream made at the first
/// use from the same seed gives the same numbers, in the same order, as the one made at
/// building. It reads as the generator itself (`Deref`), so `&mut LazyRng` passes where
/// `&mut Rng` is taken.
pub struct LazyRng {
    seed: u64,
    rng: std::sync::OnceLock<Box<Rng>>,
}

impl LazyRng {
    /// [`stream`]`(seed, name)`, not made yet.
    pub fn new(seed: u64, name: &str) -> Self {
        LazyRng {
            seed: stream_seed(seed, name),
            rng: std::sync::OnceLock::new(),
        }
    }

    /// A stream made already (tests drive applications with their own streams).
    pub fn ready(rng: Rng) -> Self {
        LazyRng {
            seed: 0,
            rng: std::sync::OnceLock::from(Box::new(rng)),
        }
    }

    /// The generator, made now if it was not.
    pub fn into_rng(self) -> Rng {
        let seed = self.seed;
        match self.rng.into_inner() {
            Some(r) => *r,
            None => Rng::seed_from_u64(seed),
        }
    }

    fn made(&self) -> &Rng {
        self.rng
            .get_or_init(|| Box::new(Rng::seed_from_u64(self.seed)))
    }
}

impl std::ops::Deref for LazyRng {
    type Target = Rng;

    fn deref(&self) -> &Rng {
        self.made()
    }
}

impl std::ops::DerefMut for LazyRng {
    fn deref_mut(&mut self) -> &mut Rng {
        self.made();
        self.rng.get_mut().expect("made above")
    }
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

    #[test]
    fn lazy_stream_is_the_stream() {
        use rand::RngExt;
        let mut eager = stream(7, "connections[3].source");
        let mut lazy = LazyRng::new(7, "connections[3].source");
        for _ in 0..100 {
            let (a, b): (u64, u64) = (eager.random(), lazy.random());
            assert_eq!(a, b);
        }
        let (a, b): (f64, f64) = (eager.random(), lazy.into_rng().random());
        assert_eq!(a, b);
        let (a, b): (u32, u32) = (stream(1, "x").random(), LazyRng::new(1, "x").random());
        assert_eq!(a, b);
        assert_eq!(std::mem::size_of::<LazyRng>(), 24);
    }
}
