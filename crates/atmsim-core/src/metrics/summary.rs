//! What a run reports: the summary (`summary.json` without the front end's additions) with its
//! per-port, per-connection, per-call-class and TCP sections. (The time series are in
//! [`super::probe`].)
//! Field names are the JSON keys. Moved from `metrics.rs`.

use serde::Serialize;
use std::collections::BTreeMap;

/// One port in the summary.
#[derive(Clone, Debug, Serialize)]
pub struct PortSummary {
    pub node: String,
    pub to: String,
    pub rate_mbps: f64,
    pub max_queue_cells: u32,
    pub mean_queue_cells: f64,
    pub utilization: f64,
    pub cells_transmitted: u64,
    pub cells_dropped: u64,
    pub drops: BTreeMap<&'static str, u64>,
    /// ERICA / ERICA+ ports: mean load factor z over the averaging intervals after warm-up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub z_mean: Option<f64>,
    /// ERICA / ERICA+ ports: mean FairShare, Mb/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fairshare_mbps: Option<f64>,
    /// ERICA / ERICA+ ports: mean ABR capacity (line rate less higher-priority use), Mb/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abr_capacity_mbps: Option<f64>,
    /// ERICA / ERICA+ ports: averaging intervals closed after warm-up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abr_intervals: Option<u64>,
    /// CAC ports: capacity, bandwidth allocated now and at most, Mb/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cac_capacity_mbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cac_allocated_mbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cac_allocated_max_mbps: Option<f64>,
}

/// A contract proposed from monitoring a bundle of connections (seed 001 section 6.2).
#[derive(Clone, Debug, Serialize)]
pub struct ProposedContract {
    /// The bundle measured (the connection's own name when not bundled) and its connections.
    pub bundle: String,
    pub connections: Vec<String>,
    pub pcr_mbps: f64,
    pub cdvt_us: f64,
    pub scr_mbps: f64,
    pub mbs_cells: u64,
    /// The largest backlog of a fluid bucket drained at SCR per window (the window-level view
    /// of the burst; MBS comes from the cells themselves).
    pub fluid_backlog_cells: u64,
    /// The share of cells the contract may find non-conforming, and the share it does.
    pub tolerance: f64,
    pub cells: u64,
    pub nonconforming_share: f64,
    pub window_s: f64,
    pub windows: u64,
}

/// One call class in the summary (arrivals after warm-up).
#[derive(Clone, Debug, Serialize)]
pub struct CallSummary {
    pub offered: u64,
    pub admitted: u64,
    /// Refused by CAC somewhere on the route.
    pub blocked: u64,
    /// Admitted by CAC but no prepared slot was free (raise max_active).
    pub blocked_no_slot: u64,
    pub blocking_probability: f64,
    /// Half-width of the 95% confidence interval of the blocking probability, by batch means
    /// over 20 batches of the measurement window (NaN, written null, with fewer than two batches
    /// with calls).
    pub blocking_ci95: f64,
    pub active_at_end: u32,
    pub max_active: u32,
    /// Mean time from a call's arrival to its CONNECT reaching the calling host (the SETUP's
    /// way out and the CONNECT's way back, with each switch's processing), ms.
    pub setup_delay_mean_ms: Option<f64>,
    /// The Erlang-B blocking probability this class would see alone on peak-rate CAC ports
    /// (absent for other policies or shared ports).
    pub erlang_b: Option<f64>,
}

/// One connection direction in the summary.
#[derive(Clone, Debug, Serialize)]
pub struct ConnectionSummary {
    pub category: &'static str,
    pub route: Vec<String>,
    pub cells_sent: u64,
    pub cells_delivered: u64,
    pub cells_dropped: u64,
    pub cells_in_flight: u64,
    /// Cell payload (48 bytes per cell) delivered after warm-up, Mb/s.
    pub throughput_mbps: f64,
    /// User bytes in whole AAL5 frames delivered after warm-up (payload for unframed flows), Mb/s.
    pub user_throughput_mbps: f64,
    /// AAL5 frames whose end-of-frame cell was created after warm-up.
    pub frames_sent: u64,
    /// Of those, frames that arrived whole.
    pub frames_delivered: u64,
    /// Of those, frames on their way now: their end-of-frame cell is in the source shaper, a
    /// queue, on a link or in a fabric.
    pub frames_in_network: u64,
    /// Of those, frames that will never arrive whole: sent - delivered - in the network (a
    /// lost end-of-frame cell merges two CPCS-PDUs at the receiver, losing both, I.363.5).
    pub frames_lost: u64,
    /// The CPCS-SDU bytes of those frames (each frame's length field): sent, delivered, in the
    /// network, lost (sent - delivered - in the network).
    pub frame_bytes_sent: u64,
    pub frame_bytes_delivered: u64,
    pub frame_bytes_in_network: u64,
    pub frame_bytes_lost: u64,
    pub ctd_mean_us: Option<f64>,
    pub ctd_max_us: Option<f64>,
    pub ctd_min_us: Option<f64>,
    pub cdv_p2p_us: Option<f64>,
    /// 99.9th percentile of the cell transfer delay (log-linear histogram, at most 1/64 high).
    pub ctd_p999_us: Option<f64>,
    /// 1-point CDV (ITU-T I.356): the 1e-3 upper quantile of CTD minus the minimum CTD.
    pub cdv_p999_us: Option<f64>,
    pub clr: f64,
    pub drops: BTreeMap<&'static str, u64>,
    pub drops_by_port: BTreeMap<String, u64>,
    /// RM cells among `cells_sent`.
    pub rm_cells_sent: u64,
    /// Delivered cells with an errored payload (impairment model).
    pub cells_errored: u64,
    /// Cell error ratio: errored / (delivered) (seed 001 section 4.2, ITU-T I.356).
    pub cer: f64,
    /// Cells misinserted into this connection after warm-up.
    pub cells_misinserted: u64,
    /// Cell misinsertion rate: misinserted cells per second of the measurement window.
    pub cmr_per_s: f64,
    /// CLR of the cells that still had CLP = 0 when delivered or lost (CLR0, I.356).
    pub clr_clp0: f64,
    /// Severely errored cell block ratio (blocks of `qos.secb_block_cells`, seed 001 section 4.2).
    pub secbr: f64,
    /// UPC: cells policed, tagged and discarded (absent without UPC).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upc_cells: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upc_tagged: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upc_discarded: Option<u64>,
    /// The contract the adaptive scheme proposes (`propose_contract`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposed_contract: Option<ProposedContract>,
    /// Requested QoS (`qos` table) against the measurement: which objectives were met.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qos_met: Option<BTreeMap<&'static str, bool>>,
    /// The cell flow `qos_met.clr` was judged on: "clp0" or "clp0+1" (with a CLR objective).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qos_clr_flow: Option<&'static str>,
    /// ABR sources: ACR at the end, Mb/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acr_final_mbps: Option<f64>,
    /// ABR sources: time-average ACR from max(first data, warm-up) to the end, Mb/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acr_mean_mbps: Option<f64>,
    /// ABR sources: share of the cells sent that are RM cells.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rm_overhead: Option<f64>,
    /// ABR sources: most data cells waiting in the source (finite feeds only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_queue_max_cells: Option<u64>,
    /// Virtual sources (VS/VD segments after the first): data cells waiting at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_queue_final_cells: Option<u64>,
    /// Bidirectional ABR: the other direction's RM cells this end turned around and sent in
    /// rate, and those whose contents a newer one overwrote while waiting (DES rule 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brm_turned_around: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brm_overwritten: Option<u64>,
    /// TCP connections: the transport's view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpSummary>,
    /// A bundle of TCP connections on this VC (`source.bundle` > 1): each connection's view,
    /// by connection number (`tcp` is connection 0's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp_bundle: Option<Vec<TcpSummary>>,
    /// XTPX connections: the transport's view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xtpx: Option<XtpxSummary>,
    /// A bundle of XTPX connections on this VC (`source.bundle` > 1): each connection's view,
    /// by connection number (`xtpx` is connection 0's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xtpx_bundle: Option<Vec<XtpxSummary>>,
    /// Video streams (seed 004): frame-level results at the receiver.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub video: Option<VideoSummary>,
    /// Workload scripts (`source.kind = "workload"`): per statement, member and run
    /// (docs/workloads.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<super::workload::WorkloadSummary>,
    /// Other applications' own sections, by name (each application's `sections` hook; a new
    /// application adds its section here without a field of its own).
    #[serde(flatten)]
    pub sections: BTreeMap<&'static str, serde_json::Value>,
}

/// The result summary (`summary.json` without the front end's additions).
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub seed: u64,
    pub sim_time_s: f64,
    pub warmup_s: f64,
    pub cell_hops: u64,
    pub events: u64,
    pub ports: BTreeMap<String, PortSummary>,
    pub connections: BTreeMap<String, ConnectionSummary>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub calls: BTreeMap<String, CallSummary>,
    /// Switches whose fabric keeps counters of its own (credit fabrics), by node name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub fabrics: BTreeMap<String, FabricSummary>,
    /// Hosts with a host model (`nodes[].host`), by node name (docs/hosts.md).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub hosts: BTreeMap<String, HostSummary>,
}

/// A host with a host model, over the measurement window (after warm-up).
#[derive(Debug, Clone, Serialize)]
pub struct HostSummary {
    pub preset: Option<&'static str>,
    /// Share of the window the CPU was busy.
    pub cpu_utilization: f64,
    pub packets_sent: u64,
    pub packets_received: u64,
    pub system_calls: u64,
    /// Frames the host itself dropped, by reason: `host_receive_buffer` (a datagram arrived
    /// at a full socket receive buffer), `adapter_receive_buffer` (a reassembled frame found
    /// the adapter's receive buffers full); and by connection (both reasons).
    pub drops: BTreeMap<&'static str, u64>,
    pub drops_by_connection: BTreeMap<String, u64>,
    /// Video senders on this host (seed 004's keep-up rule), by connection.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub video_senders: BTreeMap<String, KeepUpSummary>,
    /// True when a video sender of this host could not keep up (seed 004 discards such runs:
    /// "In these cases, the data was not used in this study").
    pub sender_overloaded: bool,
}

/// Seed 004's keep-up rule for one video sender.
#[derive(Debug, Clone, Serialize)]
pub struct KeepUpSummary {
    /// Frames whose first packet reached the adapter after warm-up.
    pub frames: u64,
    /// Mean time between the first packets of consecutive frames, ms (None below 2 frames).
    pub mean_send_time_ms: Option<f64>,
    pub frame_interval_ms: f64,
    /// Mean send time above the frame interval (by more than the host's tolerance).
    pub overloaded: bool,
}

/// A credit fabric over the whole run (warm-up included: these measure the fabric).
#[derive(Debug, Clone, Serialize)]
pub struct FabricSummary {
    pub kind: &'static str,
    /// Cells the TDM bus carried from the inputs to the outputs.
    pub bus_cells: u64,
    /// Cells refused by a full input buffer (also in the feeding ports' `input_buffer_full`).
    pub input_drops: u64,
    /// Most cells in one input buffer, and cells in all input buffers at the end.
    pub max_input_cells: u32,
    pub cells_in_inputs: u32,
    /// Most credits one output had out at once (at most its `credits`).
    pub max_credits_used: u32,
}

/// One TCP connection over the measurement window (after warm-up) unless noted.
#[derive(Debug, Clone, Serialize)]
pub struct TcpSummary {
    /// Payload bytes delivered in order to the receiving application, x 8 / window.
    pub goodput_mbps: f64,
    pub bytes_delivered: u64,
    /// The window's accounting (docs/tcp.md): bytes the application handed TCP after warm-up
    /// (its writes, or a file's bytes as first sent), bytes taken and not yet delivered in order
    /// now and at the end of warm-up (in the send buffer, the hosts, the network, or held out of
    /// order by the receiver), and bytes lost; `bytes_in_network_at_warmup + bytes_sent =
    /// bytes_delivered + bytes_lost + bytes_in_network`, and TCP loses none.
    pub bytes_sent: u64,
    pub bytes_in_network: u64,
    pub bytes_in_network_at_warmup: u64,
    pub bytes_lost: u64,
    pub segments_sent: u64,
    pub retransmitted_segments: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Congestion window at the end, and its largest value over the whole run, bytes.
    pub cwnd_bytes: u64,
    pub max_cwnd_bytes: u64,
    pub ssthresh_bytes: u64,
    /// Smoothed RTT (coarse ticks, as BSD measures it) and the RTO at the end.
    pub srtt_ms: Option<f64>,
    pub rto_ms: f64,
    /// The largest share of the capacity the connection gets that TCP payload can fill: MSS
    /// over the cells of a full segment (AAL5, 56 B of headers) x (Nrm - 1) / Nrm over ABR
    /// (seed 000 section 6: 78% for MSS 512 over ABR, 87% for 9140).
    pub max_payload_fraction: f64,
    /// Finite transfers: when the last byte was acknowledged (seconds from 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_s: Option<f64>,
}

/// One XTPX connection over the measurement window (after warm-up) unless noted.
#[derive(Debug, Clone, Serialize)]
pub struct XtpxSummary {
    /// Payload bytes delivered to the receiving application x 8 / window, Mb/s, and the same
    /// in units of 1,000 bytes/s.
    pub goodput_mbps: f64,
    #[serde(rename = "throughput_kBps")]
    pub throughput_kbytes_s: f64,
    pub bytes_delivered: u64,
    /// The window's accounting (docs/xtpx.md), as TCP's: bytes the application handed XTPX
    /// after warm-up, bytes on their way now (taken and neither delivered nor lost) and at the
    /// end of warm-up (taken and not yet delivered or skipped), and
    /// bytes lost (without error control: the gaps the receiver skipped and what was sent and
    /// is no longer on its way); `bytes_in_network_at_warmup + bytes_sent = bytes_delivered +
    /// bytes_lost + bytes_in_network`.
    pub bytes_sent: u64,
    pub bytes_in_network: u64,
    pub bytes_in_network_at_warmup: u64,
    pub bytes_lost: u64,
    pub packets_sent: u64,
    pub retransmitted_packets: u64,
    pub retransmitted_bytes: u64,
    /// Status reports received (CNTL and ECNTL), go-back-n restarts, timer expiries.
    pub reports: u64,
    pub go_backs: u64,
    pub timeouts: u64,
    /// The rate in force, R = B / I in payload bytes/s, with B and I (absent: rate control
    /// off).
    pub rate_bytes_per_s: Option<f64>,
    pub burst_bytes: Option<u64>,
    pub interval_ms: Option<f64>,
    /// The receiver's window (absent: window flow control off).
    pub window_bytes: Option<u64>,
    /// "selective_repeat", "go_back_n" or "none".
    pub error_control: &'static str,
    /// Largest payload of a data packet, and the share of the cells' bytes it fills
    /// (payload / (cells x 53) of a full packet: the header overhead).
    pub packet_payload_bytes: u32,
    pub max_payload_fraction: f64,
    /// Finite transfers: when the last byte was acknowledged (seconds from 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_s: Option<f64>,
}

/// A video stream's frames (seed 004), counted for frames due after warm-up: `frames_sent =
/// frames_received + frames_lost + frames_in_network` at any instant, and the same for bytes
/// (docs/video.md). A frame is lost if any of its cells is.
#[derive(Debug, Clone, Serialize)]
pub struct VideoSummary {
    /// Trace index of the stream's first frame (its offset).
    pub trace_offset: u64,
    /// Frames due (played by the sender).
    pub frames_sent: u64,
    /// UDP datagrams the sender produced, and the frames it sent split into more than one.
    pub datagrams_sent: u64,
    /// Frames that arrived whole at the receiving application.
    pub frames_received: u64,
    /// Frames on their way: over UDP with a datagram still in the sender's transport, a host's
    /// CPU queue or receive buffer, or the network (its end-of-frame cell); over TCP every frame
    /// not yet received (the sending application's backlog, the sockets, the hosts, the
    /// network).
    pub frames_in_network: u64,
    /// frames_sent - frames_received - frames_in_network (over TCP always 0).
    pub frames_lost: u64,
    /// frames_lost / frames_sent, percent (None only when no frame was sent).
    pub frame_loss_pct: Option<f64>,
    /// The same for the frames' bytes (the trace's sizes).
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub bytes_in_network: u64,
    pub bytes_lost: u64,
    /// Received intervals (between the last cells of consecutive whole frames) in frame
    /// intervals: counts in [0,2), [2,4), [4,6), [6,inf), and their total.
    pub interval_hist: [u64; 4],
    pub intervals: u64,
    /// Share of received intervals above the playout buffer (`playout_intervals`), percent.
    pub beyond_playout_pct: Option<f64>,
    pub playout_intervals: f64,
    /// End-to-end delay of whole frames, from the time the frame was due at the sender to the
    /// arrival of its last cell: mean and maximum, milliseconds.
    pub frame_delay_mean_ms: Option<f64>,
    pub frame_delay_max_ms: Option<f64>,
    /// "tcp" for a stream over TCP (absent: UDP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<&'static str>,
    /// Over TCP: the most bytes of due frames that ever waited in the sending application
    /// because the socket would not take them (0: every frame was written when due).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub send_backlog_max_bytes: Option<u64>,
}
