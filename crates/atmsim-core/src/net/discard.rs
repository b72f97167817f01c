//! Frame-aware discard (EPD / PPD) at an output port for AAL5 flows.

/// Frame-aware discard at a port (seed 002; A. Romanow and S. Floyd, "Dynamics of TCP traffic
/// over ATM networks", IEEE JSAC 13(4), 1995). EPD refuses a whole new frame when the queue is at
/// or above the threshold on its first cell; PPD, once a cell of a frame is lost, drops the rest
/// of the frame but its last cell, which still delimits the frame for the receiver.
pub struct FrameDiscard {
    pub(crate) epd_threshold: u32,
    pub(crate) ppd: bool,
    /// Per flow: 0 = between frames, 1 = inside an admitted frame, 2 = EPD dropping the frame,
    /// 3 = PPD dropping the frame's rest.
    pub(crate) vcs: Vec<u8>,
}

pub(crate) const FD_IDLE: u8 = 0;
pub(crate) const FD_IN_FRAME: u8 = 1;
pub(crate) const FD_EPD: u8 = 2;
pub(crate) const FD_PPD: u8 = 3;
