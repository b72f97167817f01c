//! XTPX rate control (seed 001 section 5.2): "Rate Control in XTPX is a flow control mechanism
//! defining the maximum burst of PDUs the sender transmits in a given time interval. In XTPX,
//! burst (B) specifies the maximum number of bytes allowed to be sent in interval (I). Rate (R)
//! is the result describing the maximum number of bytes sent per second. It is obtained by:
//! R = B / I."
//!
//! Choices (the seed leaves them open, `docs/xtpx.md`): the intervals are fixed, back to back
//! from the connection's start (XTP's RTIMER); each interval starts with a credit of B bytes,
//! unused credit is not carried over (B is the *maximum* burst); B counts payload bytes of
//! data packets, new and retransmitted, not headers; a packet is cut to the credit left, so
//! every interval of a bulk transfer carries exactly B payload bytes.

use super::Rate;
use crate::time::SimTime;

/// The credit of the current interval.
#[derive(Clone, Debug)]
pub struct RateControl {
    pub rate: Rate,
    start: SimTime,
    /// Index of the interval the credit belongs to.
    period: u64,
    credit: u64,
}

impl RateControl {
    pub fn new(rate: Rate, start: SimTime) -> Self {
        RateControl {
            rate,
            start,
            period: 0,
            credit: rate.burst,
        }
    }
    /// Bring the credit to the interval containing `now` (a new interval: B bytes).
    pub fn refresh(&mut self, now: SimTime) {
        let k = now.saturating_sub(self.start) / self.rate.interval;
        if k != self.period {
            self.period = k;
            self.credit = self.rate.burst;
        }
    }
    /// Payload bytes the sender may still send in this interval.
    pub fn credit(&self) -> u64 {
        self.credit
    }
    pub fn spend(&mut self, bytes: u64) {
        self.credit = self.credit.saturating_sub(bytes);
    }
    /// Start of the next interval.
    pub fn next_interval(&self) -> SimTime {
        self.start + (self.period + 1) * self.rate.interval
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_interval_gives_b_bytes_and_unused_credit_is_lost() {
        let mut r = RateControl::new(
            Rate {
                burst: 1000,
                interval: 10,
            },
            100,
        );
        r.refresh(100);
        assert_eq!(r.credit(), 1000);
        r.spend(600);
        r.refresh(109);
        assert_eq!(r.credit(), 400);
        assert_eq!(r.next_interval(), 110);
        r.refresh(110);
        assert_eq!(r.credit(), 1000);
        // two intervals idle: still B, not 2B
        r.refresh(135);
        assert_eq!(r.credit(), 1000);
        assert_eq!(r.next_interval(), 140);
    }
}
