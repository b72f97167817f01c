//! A FIFO of `Copy` values in a power-of-two ring, for the per-cell paths (issue 27 item 3).
//!
//! The core's only `unsafe` code is here, in two places: the per-cell operations' slots read
//! and written without a bounds check ([`Ring::slot`]) and a prefetch hint (`prefetch_line`).
//! `tests::ring_matches_vecdeque` checks both against `VecDeque`, under Miri with `make miri`.

/// A FIFO of `Copy` values in a power-of-two ring: what the per-cell paths used
/// `VecDeque` for (the event queue's lanes, a computed-departure port's start times, the links'
/// cells in flight), with an
/// index wrapped by a mask instead of `VecDeque`'s compare-and-subtract, and the common push
/// inlined (its growth out of line). Issue 27 item 3: cachegrind, bench (a), the lane's push was
/// about 90 instructions with `VecDeque::push_back` out of line.
///
/// `buf` is empty or a power of two long; the values are `buf[(head + i) & mask]` for `i` in
/// `0..len`. Tested against `VecDeque` (`tests::ring_matches_vecdeque`).
#[derive(Clone, Debug)]
pub(crate) struct Ring<T> {
    buf: Box<[T]>,
    head: usize,
    len: usize,
}

impl<T: Copy + Default> Default for Ring<T> {
    fn default() -> Self {
        Ring {
            buf: Box::new([]),
            head: 0,
            len: 0,
        }
    }
}

impl<T: Copy + Default> Ring<T> {
    #[inline(always)]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    /// The slot `i`, without a bounds check: the four per-cell operations below index only
    /// with `head` or an index masked by [`Ring::mask`] while `buf` is not empty, so `i` is
    /// always below `buf.len()` (`buf` is empty or a power of two long, and `head` is always
    /// masked or 0). Issue 27 item 3: 16 instructions per cell-hop of bench (a); checked by
    /// `ring_matches_vecdeque` under Miri (`make miri`) and by the `debug_assert` in tests.
    #[inline(always)]
    fn slot(&self, i: usize) -> &T {
        debug_assert!(i < self.buf.len());
        // SAFETY: i < buf.len(), as above
        unsafe { self.buf.get_unchecked(i) }
    }

    /// [`Ring::slot`], to write.
    #[inline(always)]
    fn slot_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.buf.len());
        // SAFETY: i < buf.len(), as in `slot`
        unsafe { self.buf.get_unchecked_mut(i) }
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Room without growing.
    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        self.buf.len()
    }

    #[inline(always)]
    pub(crate) fn front(&self) -> Option<&T> {
        if self.len == 0 {
            None
        } else {
            Some(self.slot(self.head))
        }
    }

    #[inline(always)]
    pub(crate) fn back(&self) -> Option<&T> {
        if self.len == 0 {
            None
        } else {
            Some(self.slot((self.head + self.len - 1) & self.mask()))
        }
    }

    #[inline(always)]
    pub(crate) fn push_back(&mut self, v: T) {
        if self.len == self.buf.len() {
            self.grow();
        }
        let i = (self.head + self.len) & self.mask();
        *self.slot_mut(i) = v;
        self.len += 1;
    }

    #[inline(always)]
    pub(crate) fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = *self.slot(self.head);
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(v)
    }

    /// Ask the processor to bring the slot `i` places behind the first value into its cache, for
    /// a read a few events later (a cell in flight on a long link was written a propagation
    /// delay ago and is no longer cached). A hint: nothing else changes, and a slot that holds
    /// no value (or no slot at all) costs nothing but the hint.
    #[inline(always)]
    pub(crate) fn prefetch(&self, i: usize) {
        prefetch_line(self.buf.as_ptr().wrapping_add((self.head + i) & self.mask()));
    }

    /// [`Ring::prefetch`] of the slot `i` places behind the last value, where a later push
    /// writes (unless the ring grows first).
    #[inline(always)]
    pub(crate) fn prefetch_slot(&self, i: usize) {
        prefetch_line(self.buf.as_ptr().wrapping_add((self.head + self.len + i) & self.mask()));
    }

    /// Take the last value out.
    #[cfg(test)]
    pub(crate) fn pop_back(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.buf[(self.head + self.len) & self.mask()])
    }

    /// The values, first to last.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        let mask = self.mask();
        (0..self.len).map(move |i| &self.buf[(self.head + i) & mask])
    }

    /// Into a buffer of `cap` (a power of two, at least `len`), values first to last.
    fn rebuild(&mut self, cap: usize) {
        debug_assert!(cap.is_power_of_two() && cap >= self.len);
        let mut buf = vec![T::default(); cap].into_boxed_slice();
        for (d, s) in buf.iter_mut().zip(self.iter()) {
            *d = *s;
        }
        self.buf = buf;
        self.head = 0;
    }

    /// Full: twice the room (at least 4).
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let cap = (2 * self.buf.len()).max(4);
        self.rebuild(cap);
    }

    /// Room for `extra` more without growing (a power of two).
    pub(crate) fn reserve(&mut self, extra: usize) {
        let want = self.len + extra;
        if want > self.buf.len() {
            self.rebuild(want.next_power_of_two());
        }
    }

    /// Give room back: down to the power of two at or above `len` and `min`, if smaller.
    pub(crate) fn shrink_to(&mut self, min: usize) {
        let cap = self.len.max(min).max(1).next_power_of_two();
        if cap < self.buf.len() {
            self.rebuild(cap);
        }
    }

    /// Take every value out, first to last.
    pub(crate) fn drain_all(&mut self) -> Vec<T> {
        let v: Vec<T> = self.iter().copied().collect();
        self.head = 0;
        self.len = 0;
        v
    }
}

/// Ask the processor to bring the cache line at `p` into its caches: SSE's `prefetcht0`, a hint
/// that reads nothing into the program, writes nothing and never faults, whatever the address
/// (the Intel SDM lists no exception for PREFETCHh but #UD for a LOCK prefix), which is why any
/// `p`, even one past an allocation or dangling, is sound. Elsewhere than x86-64 it does nothing.
#[inline(always)]
fn prefetch_line<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: see above; SSE is part of every x86-64 processor
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// xorshift: seeded draws for the tests (`engine.rs`'s too).
    pub(crate) struct Rng(pub(crate) u64);
    impl Rng {
        pub(crate) fn next(&mut self, m: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % m
        }
    }

    /// The ring against `VecDeque`: random pushes, pops, looks at both ends, reserves,
    /// give-backs and prefetches (of slots in range or not, of an empty ring without room too:
    /// the `unsafe` blocks, which Miri checks with `make miri`) (seeded), the same values in
    /// the same order throughout.
    #[test]
    fn ring_matches_vecdeque() {
        use std::collections::VecDeque;
        // Miri interprets: fewer steps
        let steps = if cfg!(miri) { 600 } else { 20_000 };
        for seed in [1, 2, 3, 12345, 99, 7, 31337] {
            let mut rng = Rng(seed);
            let mut ring: Ring<u64> = Ring::default();
            let mut reference: VecDeque<u64> = VecDeque::new();
            let mut next = 0u64;
            for step in 0..steps {
                ring.prefetch(rng.next(8) as usize);
                ring.prefetch_slot(rng.next(8) as usize);
                // phases that grow and phases that drain, so the ring wraps and regrows
                let grow = (step / 500) % 2 == 0;
                match rng.next(16) {
                    0..=7 if grow => {
                        ring.push_back(next);
                        reference.push_back(next);
                        next += 1;
                    }
                    0..=3 => {
                        ring.push_back(next);
                        reference.push_back(next);
                        next += 1;
                    }
                    4..=11 => assert_eq!(ring.pop_front(), reference.pop_front()),
                    12 => ring.shrink_to(rng.next(64) as usize),
                    13 => {
                        let extra = rng.next(40) as usize;
                        ring.reserve(extra);
                        assert!(ring.capacity() >= ring.len() + extra);
                    }
                    14 => {
                        let got: Vec<u64> = ring.iter().copied().collect();
                        let want: Vec<u64> = reference.iter().copied().collect();
                        assert_eq!(got, want);
                    }
                    _ => {
                        if rng.next(50) == 0 {
                            assert_eq!(ring.drain_all(), reference.drain(..).collect::<Vec<_>>());
                        }
                    }
                }
                assert_eq!(ring.len(), reference.len());
                assert_eq!(ring.is_empty(), reference.is_empty());
                assert_eq!(ring.front(), reference.front());
                assert_eq!(ring.back(), reference.back());
                assert!(ring.capacity() >= ring.len());
                assert!(ring.capacity() == 0 || ring.capacity().is_power_of_two());
            }
        }
    }
}
