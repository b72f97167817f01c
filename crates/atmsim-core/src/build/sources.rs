//! Building a connection without ABR by the kind of its source: [`Builder::plain`] holds the
//! one list of source kinds; each kind is built in its own file (`build/tcp.rs`,
//! `build/xtpx.rs`, `build/video.rs`, `build/workload.rs`), the cell-level applications here.

use crate::app::mpeg2::Multiplex;
use crate::app::{AnyApp, Cbr, OnOff};
use crate::build::*;
use crate::host::AnySource;
use crate::net::*;
use crate::scenario::{ConnectionSpec, SourceKind, SourceSpec};
use crate::sim::*;
use crate::time::*;

impl Builder<'_> {
    /// A connection without ABR: its forward flow, then what its source's kind builds.
    pub(crate) fn plain(
        &self,
        c: &ConnectionSpec,
        flows: &mut Vec<Flow>,
        endpoints: &mut Vec<Endpoint>,
    ) {
        let fwd = flows.len();
        let frame = c.source.frame_bytes.map(|f| f as u32);
        flows.push(self.flow(c.name.clone(), &c.route, c.category, frame, false));
        match c.source.kind {
            SourceKind::Tcp => self.tcp(c, fwd, flows, endpoints),
            SourceKind::Xtpx => self.xtpx(c, fwd, flows, endpoints),
            SourceKind::Video => self.video(c, fwd, flows, endpoints),
            SourceKind::Workload => self.workload(c, fwd, flows, endpoints),
            SourceKind::Echo => self.echo(c, fwd, flows, endpoints),
            SourceKind::None
            | SourceKind::Cbr
            | SourceKind::Persistent
            | SourceKind::Onoff
            | SourceKind::Mpeg2 => self.cells(c, fwd, flows, endpoints),
        }
    }

    /// The two hosts of a connection whose source kind has a host at each end (its data one
    /// way, the receiving host's frames the other): the sending host, the receiving host and
    /// the number of transport connections between them; None for the other kinds. A plain VC
    /// joins them by its two flows (`build/tcp.rs`, `build/xtpx.rs`, `build/workload.rs`), an
    /// ABR VC puts them above its rate control (`build/abr.rs`).
    pub(crate) fn host_ends(&self, c: &ConnectionSpec) -> Option<(AnySource, AnySource, u16)> {
        use crate::transport::{tcp::TcpEnd, xtpx::XtpxEnd, AnyTransport};
        let s = &c.source;
        match s.kind {
            SourceKind::Tcp => {
                let r = TcpEnd::receiver(super::tcp::tcp_params(s));
                let rx = raw_end(AnyTransport::Tcp(Box::new(r)));
                Some((super::tcp::tcp_source(s), rx, 1))
            }
            SourceKind::Xtpx => {
                let r = XtpxEnd::receiver(super::xtpx::xtpx_params(s));
                let rx = raw_end(AnyTransport::Xtpx(Box::new(r)));
                Some((super::xtpx::xtpx_source(s), rx, 1))
            }
            SourceKind::Workload => Some(self.workload_ends(c)),
            _ => None,
        }
    }

    /// The reverse flow of a plain connection (`NAME.reverse`, the route backwards, AAL5
    /// frames of `frame` bytes), paired with `fwd`; its index.
    pub(crate) fn reverse_flow(
        &self,
        c: &ConnectionSpec,
        fwd: usize,
        frame: Option<u32>,
        flows: &mut Vec<Flow>,
    ) -> usize {
        let route: Vec<String> = c.route.iter().rev().cloned().collect();
        let rev = flows.len();
        flows.push(self.flow(
            format!("{}.reverse", c.name),
            &route,
            c.category,
            frame,
            false,
        ));
        flows[fwd].pair = rev as u32;
        flows[rev].pair = fwd as u32;
        rev
    }

    /// A cell-level application at the source, and with `bidirectional` the reverse flow with
    /// the `reverse_source` application (each direction's cells reach the application sending
    /// the other way).
    fn cells(
        &self,
        c: &ConnectionSpec,
        fwd: usize,
        flows: &mut Vec<Flow>,
        endpoints: &mut Vec<Endpoint>,
    ) {
        let src = endpoints.len();
        let app = source_app(&c.source, self.first_rate(&c.route));
        endpoints.push(self.endpoint(fwd, app, format!("connections.{}.source", c.name)));
        if !c.bidirectional {
            return;
        }
        let rs = c.reverse_source.as_ref();
        let rev = self.reverse_flow(
            c,
            fwd,
            rs.and_then(|s| s.frame_bytes).map(|f| f as u32),
            flows,
        );
        if let Some(rs) = rs {
            let back: Vec<String> = c.route.iter().rev().cloned().collect();
            let app = source_app(rs, self.first_rate(&back));
            flows[fwd].set_rx(0, endpoints.len() as u32);
            flows[rev].set_rx(0, src as u32);
            let key = format!("connections.{}.reverse_source", c.name);
            endpoints.push(self.endpoint(rev, app, key));
        }
    }
}

pub(crate) fn source_app(s: &SourceSpec, first_link_mbps: f64) -> AnySource {
    let start = secs_to_ps(s.start_s);
    let stop = s.stop_s.map(secs_to_ps).unwrap_or(SimTime::MAX);
    let app = match s.kind {
        SourceKind::None => AnyApp::Idle,
        SourceKind::Tcp => return super::tcp::tcp_source(s),
        SourceKind::Xtpx => return super::xtpx::xtpx_source(s),
        // a stream and its receiver are built with the connection (build/video.rs), which
        // knows the traces; validation keeps video off ABR and switched calls
        SourceKind::Video => AnyApp::Idle,
        // the two ends of a workload are built with the connection (build/workload.rs)
        SourceKind::Workload => AnyApp::Idle,
        // the two ends of an echo are built with the connection (build/echo.rs)
        SourceKind::Echo => AnyApp::Idle,
        SourceKind::Mpeg2 => AnyApp::Mpeg2(Box::new(
            Multiplex::new(&s.video_params(), s.sources as usize)
                .expect("validated video parameters"),
        )),
        SourceKind::Cbr => AnyApp::Cbr(Cbr::new(
            s.rate_mbps.expect("validated: cbr needs rate_mbps"),
            start,
            stop,
        )),
        SourceKind::Persistent => AnyApp::Cbr(Cbr::new(
            s.peak_mbps.unwrap_or(first_link_mbps),
            start,
            stop,
        )),
        SourceKind::Onoff => AnyApp::OnOff(OnOff::new(
            s.peak_mbps.expect("validated: onoff needs peak_mbps"),
            s.duty_cycle.expect("validated: onoff needs duty_cycle"),
            s.period_s.expect("validated: onoff needs period_s"),
            s.exponential,
            start,
            stop,
        )),
    };
    AnySource::App(app)
}
