//! Switch fabrics: how a cell that arrived at a node reaches the output port of its next hop.
//!
//! The extension point of seed 004's comparison of switch architectures (the smoltcp
//! `socket/tcp/congestion.rs` pattern). Each fabric is one file with a struct implementing
//! [`Fabric`], whose hooks all have no-op defaults, and is listed once in [`AnyFabric`], whose
//! methods forward each hook with one `match` here. The engine (`sim/forward.rs`) calls the hooks
//! through [`AnyFabric`] and carries out what they return ([`Arrival`], [`FabricAsks`]: put a
//! cell into an output port's buffer, schedule the fabric's own `Event::Fabric(node, arg)`, drop
//! a cell at the node's input); it names no fabric. The builder turns each fabric's scenario
//! section into its variant (`build/fabric.rs`, one function per fabric). Adding a fabric touches
//! its own file, the enum and its arm in each method below, its scenario section and its
//! function in `build/fabric.rs`.
//!
//! - [`output_buffered::OutputBuffered`]: cells go straight to the output port's queue after a
//!   fixed transit delay (today's model; seed 003's and seed 000's switches; seed 004's Fore
//!   ASX-200 with its shared output buffers, [`crate::net::Group`]). It keeps every default
//!   but [`Fabric::transit_ps`].
//! - [`credit::CreditFabric`]: input and output buffers per port, a cell crossing a TDM bus only
//!   against a credit from its output (seed 004's Cisco Hyperswitch). It holds arriving cells
//!   ([`Fabric::on_arrival`]), moves them on its own bus slots ([`Fabric::on_event`],
//!   [`Fabric::on_forwarded`]) and hears when a cell leaves one of its output ports (the credit
//!   return, [`Fabric::on_departure`]).

pub mod credit;
pub mod output_buffered;

use crate::metrics::{DropReason, FabricSummary};
use crate::time::{SimDuration, SimTime};
use crate::wire::Cell;

/// What a fabric does with a cell that arrives at its node ([`Fabric::on_arrival`]).
#[derive(Clone, Copy, Debug)]
pub enum Arrival {
    /// The cell goes straight to its output port's buffer (the engine's buffer admission).
    Pass,
    /// The fabric holds the cell, and may ask for its own timed event.
    Held(Option<Wake>),
    /// The fabric refused the cell: it is lost at the node's input, before its output port,
    /// and counted with this reason at the port whose link brought it.
    Lost(DropReason),
    /// The fabric would hold the cell and ask for a [`Wake`] at `now` that moves it to its
    /// output port at once: the engine says whether that wake would be the next event run
    /// ([`Fabric::on_alone`], which answers again). Issue 27: a cell crossing an idle fabric
    /// with no event of its own.
    Alone,
    /// The fabric moved the cell across at once (from [`Fabric::on_alone`]): the engine puts
    /// the cell, unchanged, into its output port's buffer and then calls
    /// [`Fabric::on_forwarded`], as for a [`FabricAsks::forward`].
    Crossed,
}

/// What a fabric's hook asks of the engine, carried out at once: first the wake, then the
/// forward, after which the engine calls [`Fabric::on_forwarded`] and carries out its asks in
/// turn.
#[derive(Clone, Copy, Debug, Default)]
pub struct FabricAsks {
    /// Schedule one of the fabric's own events.
    pub wake: Option<Wake>,
    /// Put a cell the fabric held into an output port's buffer.
    pub forward: Option<Forward>,
}

/// A timed event a fabric asks for: `Event::Fabric(node, arg)` at `at`, which comes back to it
/// as [`Fabric::on_event`]`(at, arg)`; `arg` is the fabric's to choose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wake {
    pub at: SimTime,
    pub arg: u32,
}

/// A cell a fabric hands to one of its node's output ports.
#[derive(Clone, Copy, Debug)]
pub struct Forward {
    /// The output port (global id).
    pub port: u32,
    pub cell: Cell,
    /// Service category (`Category as usize`).
    pub cls: u8,
}

/// The hooks a fabric may implement. Every hook has a no-op default: the defaults are an
/// output-buffered fabric with no transit time.
pub trait Fabric {
    /// Fixed time from a cell's arrival at the node to its arrival at the output port, when
    /// the fabric has one (it is folded into the incoming links' delay, see [`crate::net::link`]).
    #[inline]
    fn transit_ps(&self) -> SimDuration {
        0
    }

    /// A cell of category `cls` arrives at the node at `now` on the link of port `from`
    /// (global id) and leaves by output port `out` (global id): pass it on, hold it, or lose it.
    #[inline]
    fn on_arrival(
        &mut self,
        _now: SimTime,
        _from: u32,
        _out: u32,
        _cell: &Cell,
        _cls: usize,
    ) -> Arrival {
        Arrival::Pass
    }

    /// Whether [`Fabric::on_arrival`] answers [`Arrival::Pass`] to every cell and changes
    /// nothing (the default hook): the engine then enqueues arriving cells without calling it
    /// (`Port::far_passes`). False unless a fabric says so.
    #[inline]
    fn passes_all(&self) -> bool {
        false
    }

    /// After [`Arrival::Alone`] for this cell (the arguments are [`Fabric::on_arrival`]'s):
    /// `next` says whether a [`Wake`] at `now` asked for now would be the next event the engine
    /// runs. Answer [`Arrival::Crossed`] having done that wake's work, or anything
    /// [`Fabric::on_arrival`] may answer but [`Arrival::Alone`].
    #[inline]
    fn on_alone(
        &mut self,
        _now: SimTime,
        _from: u32,
        _out: u32,
        _cell: &Cell,
        _cls: usize,
        _next: bool,
    ) -> Arrival {
        Arrival::Pass
    }

    /// The fabric's own timed event (a [`Wake`] it asked for) at `now`.
    #[inline]
    fn on_event(&mut self, _now: SimTime, _arg: u32) -> FabricAsks {
        FabricAsks::default()
    }

    /// The engine has put the cell of a [`FabricAsks::forward`] into its output port's buffer
    /// (or dropped it there), and reported to [`Fabric::on_departure`] any start on the line
    /// that caused.
    #[inline]
    fn on_forwarded(&mut self, _now: SimTime) -> FabricAsks {
        FabricAsks::default()
    }

    /// A cell starts transmission at `now` on output port `port` (global id) of the node: only
    /// for the ports whose `Port::fabric_node` the fabric's builder set to its node.
    #[inline]
    fn on_departure(&mut self, _now: SimTime, _port: u32) -> FabricAsks {
        FabricAsks::default()
    }

    /// The fabric's own counters for the summary, if it keeps any.
    fn summary(&self) -> Option<FabricSummary> {
        None
    }

    /// Every cell the fabric holds (outside the output ports' queues).
    fn for_each_held(&self, _f: &mut dyn FnMut(&Cell)) {}
}

/// Every fabric, one variant each; each method forwards one hook of [`Fabric`] with one `match`.
#[derive(Clone, Debug)]
pub enum AnyFabric {
    OutputBuffered(output_buffered::OutputBuffered),
    Credit(Box<credit::CreditFabric>),
}

impl AnyFabric {
    /// See [`Fabric::transit_ps`].
    #[inline]
    pub fn transit_ps(&self) -> SimDuration {
        match self {
            AnyFabric::OutputBuffered(f) => f.transit_ps(),
            AnyFabric::Credit(f) => f.transit_ps(),
        }
    }

    /// See [`Fabric::on_arrival`] (on the path of every cell that crosses a switch: inlined).
    #[inline(always)]
    pub fn on_arrival(
        &mut self,
        now: SimTime,
        from: u32,
        out: u32,
        cell: &Cell,
        cls: usize,
    ) -> Arrival {
        match self {
            AnyFabric::OutputBuffered(f) => f.on_arrival(now, from, out, cell, cls),
            AnyFabric::Credit(f) => f.on_arrival(now, from, out, cell, cls),
        }
    }

    /// See [`Fabric::passes_all`].
    #[inline]
    pub fn passes_all(&self) -> bool {
        match self {
            AnyFabric::OutputBuffered(f) => f.passes_all(),
            AnyFabric::Credit(f) => f.passes_all(),
        }
    }

    /// See [`Fabric::on_alone`].
    #[inline]
    pub fn on_alone(
        &mut self,
        now: SimTime,
        from: u32,
        out: u32,
        cell: &Cell,
        cls: usize,
        next: bool,
    ) -> Arrival {
        match self {
            AnyFabric::OutputBuffered(f) => f.on_alone(now, from, out, cell, cls, next),
            AnyFabric::Credit(f) => f.on_alone(now, from, out, cell, cls, next),
        }
    }

    /// See [`Fabric::on_event`].
    #[inline]
    pub fn on_event(&mut self, now: SimTime, arg: u32) -> FabricAsks {
        match self {
            AnyFabric::OutputBuffered(f) => f.on_event(now, arg),
            AnyFabric::Credit(f) => f.on_event(now, arg),
        }
    }

    /// See [`Fabric::on_forwarded`].
    #[inline]
    pub fn on_forwarded(&mut self, now: SimTime) -> FabricAsks {
        match self {
            AnyFabric::OutputBuffered(f) => f.on_forwarded(now),
            AnyFabric::Credit(f) => f.on_forwarded(now),
        }
    }

    /// See [`Fabric::on_departure`].
    #[inline]
    pub fn on_departure(&mut self, now: SimTime, port: u32) -> FabricAsks {
        match self {
            AnyFabric::OutputBuffered(f) => f.on_departure(now, port),
            AnyFabric::Credit(f) => f.on_departure(now, port),
        }
    }

    /// See [`Fabric::summary`].
    pub fn summary(&self) -> Option<FabricSummary> {
        match self {
            AnyFabric::OutputBuffered(f) => f.summary(),
            AnyFabric::Credit(f) => f.summary(),
        }
    }

    /// See [`Fabric::for_each_held`].
    pub fn for_each_held(&self, g: &mut dyn FnMut(&Cell)) {
        match self {
            AnyFabric::OutputBuffered(f) => f.for_each_held(g),
            AnyFabric::Credit(f) => f.for_each_held(g),
        }
    }
}
