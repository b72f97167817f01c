//! The summary's one definition of loss (docs/model.md, "Accounting"): of what was sent, what
//! was neither received nor is still in the network (the source shaper, the hosts' CPU queues
//! and socket buffers, the adapter, the links, the switches). Every section that reports a
//! loss takes it from [`lost`], so `sent = received + lost + in_network` holds exactly in each,
//! at any instant, and nothing still on its way counts as lost.

/// What is lost of `sent` once `received` and `in_network` are taken out. Panics when those
/// two exceed what was sent: something was counted twice, and a wrapped or clamped count would
/// hide it (`what` names the count in the message).
pub fn lost(sent: u64, received: u64, in_network: u64, what: &str) -> u64 {
    sent.checked_sub(received)
        .and_then(|r| r.checked_sub(in_network))
        .unwrap_or_else(|| {
            panic!(
                "accounting of {what}: {received} received + {in_network} in the network > \
                 {sent} sent"
            )
        })
}

/// `lost` as a percentage of `sent` (None only when nothing was sent).
pub fn loss_pct(lost: u64, sent: u64) -> Option<f64> {
    (sent > 0).then(|| 100.0 * lost as f64 / sent as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_is_the_rest_and_never_hides() {
        assert_eq!(lost(250, 0, 1, "frames"), 249);
        assert_eq!(loss_pct(249, 250), Some(99.6));
        assert_eq!(loss_pct(0, 0), None);
        assert_eq!(loss_pct(0, 5), Some(0.0));
        let twice = std::panic::catch_unwind(|| lost(10, 6, 5, "frames"));
        assert!(twice.is_err(), "more received and in the network than sent");
    }
}
