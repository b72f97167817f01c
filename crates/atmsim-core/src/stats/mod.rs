//! Statistics of random processes: fractional Gaussian noise generators ([`fgn`]: Paxson's FFT
//! method and the Davies-Harte exact method, the rate sequence of the MPEG-2 video model of seed
//! 000 section 4), Hurst-parameter estimators ([`hurst`]: aggregated variance, Whittle) and
//! confidence intervals ([`ci`]: batch means with Student's t).

pub mod ci;
pub mod fgn;
pub mod hurst;
