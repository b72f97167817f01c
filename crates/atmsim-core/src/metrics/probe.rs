//! The time series as registered probes: a columnar store of named tables whose columns each
//! model declares next to the state it observes (ns-3's trace sources: `TypeId::AddTraceSource`
//! with a name and a doc beside the member; here a `const` [`TableDecl`] or column list beside the
//! struct, and one small function that fills a row).
//!
//! A table (`ports`, `connections`, `abr_sources`, `abr_ports`, `tcp`) always begins with the
//! sample time `time_s` and a key column naming the port or the connection (flow) the row is
//! about; the model's declared columns follow, in declaration order. Adding a column is one
//! [`ColumnDecl`] in the model's list and one `row.f64(..)` / `row.u32(..)` / `row.u64(..)` where
//! its row is filled; the bindings and the Python front end read the declarations.
//!
//! Cheap by construction: a row is a push onto each column's typed vector (no allocation beyond
//! that, no `dyn`); the column a value goes to is found by position, and its name is checked
//! against the declaration in debug builds (the kind in every build).

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    F64,
    U32,
    U64,
    /// An output port index (the bindings hand over the port's name).
    Port,
    /// A flow index (the bindings hand over the connection direction's name).
    Flow,
}

impl Kind {
    /// The name the bindings and the declarations use: "f64", "u32", "u64", "port", "flow".
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::F64 => "f64",
            Kind::U32 => "u32",
            Kind::U64 => "u64",
            Kind::Port => "port",
            Kind::Flow => "flow",
        }
    }

    /// True for the key kinds (a port or a flow index).
    pub fn is_key(self) -> bool {
        matches!(self, Kind::Port | Kind::Flow)
    }
}

/// One declared column: its name (the Parquet column), unit ("" for a pure number), a one-line
/// doc, its kind, and the figure `atmsim plot` draws it in ("" for none; columns of one table
/// that name the same figure share it, one panel each, in declaration order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnDecl {
    pub name: &'static str,
    pub unit: &'static str,
    pub doc: &'static str,
    pub kind: Kind,
    /// A short axis label ("queue", "ACR"); "" uses the name.
    pub label: &'static str,
    pub plot: &'static str,
}

impl ColumnDecl {
    pub const fn new(
        kind: Kind,
        name: &'static str,
        unit: &'static str,
        doc: &'static str,
    ) -> Self {
        ColumnDecl {
            name,
            unit,
            doc,
            kind,
            label: "",
            plot: "",
        }
    }
    pub const fn f64(name: &'static str, unit: &'static str, doc: &'static str) -> Self {
        Self::new(Kind::F64, name, unit, doc)
    }
    pub const fn u32(name: &'static str, unit: &'static str, doc: &'static str) -> Self {
        Self::new(Kind::U32, name, unit, doc)
    }
    pub const fn u64(name: &'static str, unit: &'static str, doc: &'static str) -> Self {
        Self::new(Kind::U64, name, unit, doc)
    }
    /// Drawn in figure `plot` (`<plot>.png`) with the axis label `label`.
    pub const fn plot(mut self, plot: &'static str, label: &'static str) -> Self {
        self.plot = plot;
        self.label = label;
        self
    }
}

/// The sample time, first column of every table.
pub const TIME_COLUMN: ColumnDecl = ColumnDecl::f64(
    "time_s",
    "s",
    "Simulated time of the sample (or of the end of the averaging interval)",
);
/// The key column of a table about ports.
pub const PORT_KEY: ColumnDecl =
    ColumnDecl::new(Kind::Port, "port", "", "The output port, NODE->NEIGHBOUR");
/// The key column of a table about connections (one direction each).
pub const FLOW_KEY: ColumnDecl = ColumnDecl::new(
    Kind::Flow,
    "connection",
    "",
    "The connection direction (the reverse one is NAME.reverse)",
);

/// One table: its name (the series and Parquet file name), a doc, the key column, the model's
/// columns, and whether it is handed over without rows (else only when it has some). `active`
/// names a column whose positive maximum marks a key worth plotting (the others are left out
/// of the figures when some keys are active); "" shows every key.
#[derive(Clone, Copy, Debug)]
pub struct TableDecl {
    pub name: &'static str,
    pub doc: &'static str,
    pub key: ColumnDecl,
    pub columns: &'static [ColumnDecl],
    pub always: bool,
    pub active: &'static str,
}

impl TableDecl {
    /// Every column in order: `time_s`, the key, then the declared ones.
    pub fn all_columns(&self) -> impl Iterator<Item = &ColumnDecl> + '_ {
        [&TIME_COLUMN, &self.key]
            .into_iter()
            .chain(self.columns.iter())
    }
}

/// A column's values. Key columns hold indices (u32).
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    F64(Vec<f64>),
    U32(Vec<u32>),
    U64(Vec<u64>),
}

impl Values {
    fn new(kind: Kind) -> Self {
        Self::with_capacity(kind, 0)
    }

    fn with_capacity(kind: Kind, n: usize) -> Self {
        match kind {
            Kind::F64 => Values::F64(Vec::with_capacity(n)),
            Kind::U64 => Values::U64(Vec::with_capacity(n)),
            Kind::U32 | Kind::Port | Kind::Flow => Values::U32(Vec::with_capacity(n)),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Values::F64(v) => v.len(),
            Values::U32(v) => v.len(),
            Values::U64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A declared column and its values.
#[derive(Clone, Debug)]
pub struct Column {
    pub decl: &'static ColumnDecl,
    pub values: Values,
}

impl Column {
    pub fn as_f64(&self) -> Option<&[f64]> {
        match &self.values {
            Values::F64(v) => Some(v),
            _ => None,
        }
    }
    /// u32 values, and the indices of a key column.
    pub fn as_u32(&self) -> Option<&[u32]> {
        match &self.values {
            Values::U32(v) => Some(v),
            _ => None,
        }
    }
    pub fn as_u64(&self) -> Option<&[u64]> {
        match &self.values {
            Values::U64(v) => Some(v),
            _ => None,
        }
    }
}

/// One table of the store.
#[derive(Clone, Debug)]
pub struct Table {
    pub decl: &'static TableDecl,
    columns: Vec<Column>,
    /// Rows handed out by [`Table::drain`] so far.
    drained: u64,
}

impl Table {
    pub fn new(decl: &'static TableDecl) -> Self {
        let columns = [&TIME_COLUMN, &decl.key]
            .into_iter()
            .chain(decl.columns.iter())
            .map(|c| Column {
                decl: c,
                values: Values::new(c.kind),
            })
            .collect();
        Table {
            decl,
            columns,
            drained: 0,
        }
    }

    /// Take the rows held so far, leaving the table empty (its declaration and the count of
    /// rows handed out stay): the front end writes them out while the run goes on, so memory
    /// does not grow with the run's length.
    ///
    /// The emptied columns keep room for as many rows as were drained: the next slice is
    /// usually as long, and growing the columns again by doubling copied them over and over
    /// (issue 13: with 15,000 VCs the `connections` rows were the run's largest memory copy).
    pub fn drain(&mut self) -> Table {
        let n = self.len();
        self.drained += n as u64;
        let columns = self
            .columns
            .iter_mut()
            .map(|c| Column {
                decl: c.decl,
                values: std::mem::replace(&mut c.values, Values::with_capacity(c.decl.kind, n)),
            })
            .collect();
        Table {
            decl: self.decl,
            columns,
            drained: 0,
        }
    }

    /// Rows ever added: those held and those drained.
    pub fn rows_total(&self) -> u64 {
        self.drained + self.len() as u64
    }

    pub fn name(&self) -> &'static str {
        self.decl.name
    }

    /// Every column in order: `time_s`, the key, the declared ones.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.decl.name == name)
    }

    /// The rows so far.
    pub fn len(&self) -> usize {
        self.columns[0].values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the bindings hand this table over (declared `always`, or it has or had rows).
    pub fn handed_over(&self) -> bool {
        self.decl.always || self.rows_total() > 0
    }

    /// Start a row at `time_s` about port or flow `key`; the model fills the declared columns in
    /// order through the returned [`Row`]. Inlined: sampling starts a row per flow.
    #[inline(always)]
    pub fn row(&mut self, time_s: f64, key: u32) -> Row<'_> {
        let mut row = Row {
            cols: &mut self.columns,
            at: 0,
        };
        row.f64(TIME_COLUMN.name, time_s);
        row.key(key);
        row
    }

    /// One row at `time_s` for each key 0, 1, ... of a table whose one declared column is an
    /// `f64` (`connections`: a row per flow at every sample), the values in key order: the same
    /// rows as [`Table::row`] one by one, column by column in bulk (issue 13: 15,000 rows a
    /// sample).
    pub fn rows_f64(&mut self, time_s: f64, values: impl ExactSizeIterator<Item = f64>) {
        let n = values.len();
        let [time, key, col] = &mut self.columns[..] else {
            panic!(
                "rows_f64: table {} has more than one declared column",
                self.decl.name
            )
        };
        match (&mut time.values, &mut key.values, &mut col.values) {
            (Values::F64(t), Values::U32(k), Values::F64(v)) => {
                t.resize(t.len() + n, time_s);
                k.extend(0..n as u32);
                let before = v.len();
                v.extend(values);
                assert_eq!(
                    v.len() - before,
                    n,
                    "rows_f64: values shorter than they said"
                );
            }
            _ => mismatch(col.decl, col.decl.name, "f64 (rows_f64)"),
        }
    }
}

/// One row being filled: each call pushes onto the next column.
pub struct Row<'a> {
    cols: &'a mut [Column],
    at: usize,
}

#[cold]
#[inline(never)]
fn mismatch(decl: &ColumnDecl, name: &str, kind: &str) -> ! {
    panic!(
        "probe row: column {:?} ({}) given {name:?} as {kind}",
        decl.name,
        decl.kind.as_str()
    )
}

impl Row<'_> {
    #[inline]
    fn next(&mut self, name: &'static str) -> &mut Column {
        let Some(col) = self.cols.get_mut(self.at) else {
            panic!("probe row: {name:?} is beyond the declared columns")
        };
        debug_assert_eq!(
            col.decl.name, name,
            "probe row: columns filled out of order"
        );
        self.at += 1;
        col
    }

    #[inline]
    fn key(&mut self, key: u32) {
        let col = &mut self.cols[self.at];
        self.at += 1;
        match &mut col.values {
            Values::U32(v) if col.decl.kind.is_key() => v.push(key),
            _ => mismatch(col.decl, "key", "key"),
        }
    }

    #[inline]
    pub fn f64(&mut self, name: &'static str, v: f64) -> &mut Self {
        let col = self.next(name);
        match &mut col.values {
            Values::F64(vals) => vals.push(v),
            _ => mismatch(col.decl, name, "f64"),
        }
        self
    }

    #[inline]
    pub fn u32(&mut self, name: &'static str, v: u32) -> &mut Self {
        let col = self.next(name);
        match &mut col.values {
            Values::U32(vals) if !col.decl.kind.is_key() => vals.push(v),
            _ => mismatch(col.decl, name, "u32"),
        }
        self
    }

    #[inline]
    pub fn u64(&mut self, name: &'static str, v: u64) -> &mut Self {
        let col = self.next(name);
        match &mut col.values {
            Values::U64(vals) => vals.push(v),
            _ => mismatch(col.decl, name, "u64"),
        }
        self
    }
}

impl Drop for Row<'_> {
    fn drop(&mut self) {
        // only the debug build checks (a release build would still ask whether the thread
        // panics, at every row of every sample)
        #[cfg(debug_assertions)]
        if !std::thread::panicking() {
            debug_assert_eq!(
                self.at,
                self.cols.len(),
                "probe row: {} of {} columns filled",
                self.at,
                self.cols.len()
            );
        }
    }
}

/// The store: one table per declaration, in the order given.
#[derive(Clone, Debug, Default)]
pub struct Probes {
    tables: Vec<Table>,
}

impl Probes {
    pub fn new(decls: &[&'static TableDecl]) -> Self {
        Probes {
            tables: decls.iter().map(|&d| Table::new(d)).collect(),
        }
    }

    pub fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// The table at `index` (the position of its declaration).
    #[inline]
    pub fn at(&mut self, index: usize) -> &mut Table {
        &mut self.tables[index]
    }

    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.decl.name == name)
    }

    /// Rows held in all tables (not yet drained).
    pub fn rows_held(&self) -> usize {
        self.tables.iter().map(Table::len).sum()
    }

    /// Take the rows held in every table ([`Table::drain`]), tables in declaration order.
    pub fn drain(&mut self) -> Probes {
        Probes {
            tables: self.tables.iter_mut().map(Table::drain).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_in_bulk_equal_rows_one_by_one() {
        let decl = &crate::net::Flow::PROBES;
        let (mut one, mut bulk) = (Table::new(decl), Table::new(decl));
        for s in 0..3u32 {
            let ts = s as f64 * 0.01;
            let vals: Vec<f64> = (0..5).map(|i| (i * s) as f64 + 0.5).collect();
            for (i, &v) in vals.iter().enumerate() {
                one.row(ts, i as u32).f64("throughput_mbps", v);
            }
            bulk.rows_f64(ts, vals.iter().copied());
        }
        assert_eq!(one.len(), 15);
        let values = |t: &Table| {
            t.columns()
                .iter()
                .map(|c| c.values.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(values(&one), values(&bulk));
    }

    const THINGS: TableDecl = TableDecl {
        name: "things",
        doc: "test table",
        key: PORT_KEY,
        columns: &[
            ColumnDecl::u32("queue_cells", "cells", "cells waiting").plot("queues", "queue"),
            ColumnDecl::f64("rate_mbps", "Mb/s", "a rate"),
            ColumnDecl::u64("bytes", "bytes", "a count"),
        ],
        always: false,
        active: "",
    };
    const OTHERS: TableDecl = TableDecl {
        name: "others",
        doc: "",
        key: FLOW_KEY,
        columns: &[ColumnDecl::f64("x", "", "")],
        always: true,
        active: "",
    };

    #[test]
    fn declared_columns_appear_with_their_values() {
        let mut p = Probes::new(&[&THINGS, &OTHERS]);
        assert!(!p.tables()[0].handed_over() && p.tables()[1].handed_over());
        p.at(0)
            .row(0.5, 3)
            .u32("queue_cells", 7)
            .f64("rate_mbps", 1.5)
            .u64("bytes", 1 << 40);
        p.at(0)
            .row(1.0, 1)
            .u32("queue_cells", 0)
            .f64("rate_mbps", 2.5)
            .u64("bytes", 9);
        let t = p.table("things").unwrap();
        assert!(t.handed_over());
        assert_eq!(t.len(), 2);
        let names: Vec<_> = t.columns().iter().map(|c| c.decl.name).collect();
        assert_eq!(
            names,
            ["time_s", "port", "queue_cells", "rate_mbps", "bytes"]
        );
        let decls: Vec<_> = THINGS.all_columns().map(|c| c.name).collect();
        assert_eq!(decls, names);
        assert_eq!(t.column("time_s").unwrap().as_f64().unwrap(), &[0.5, 1.0]);
        assert_eq!(t.column("queue_cells").unwrap().as_u32().unwrap(), &[7, 0]);
        assert_eq!(
            t.column("rate_mbps").unwrap().as_f64().unwrap(),
            &[1.5, 2.5]
        );
        assert_eq!(t.column("bytes").unwrap().as_u64().unwrap(), &[1 << 40, 9]);
        let q = t.column("queue_cells").unwrap().decl;
        assert_eq!((q.unit, q.plot, q.label), ("cells", "queues", "queue"));
        assert!(p.table("others").unwrap().is_empty());
    }

    #[test]
    fn keys_hold_the_port_or_flow_index() {
        let mut p = Probes::new(&[&THINGS, &OTHERS]);
        p.at(1).row(0.1, 4).f64("x", 1.0);
        p.at(1).row(0.1, 0).f64("x", 2.0);
        let t = p.table("others").unwrap();
        let key = &t.columns()[1];
        assert_eq!(key.decl.kind, Kind::Flow);
        assert_eq!(key.decl.name, "connection");
        assert_eq!(key.as_u32().unwrap(), &[4, 0]);
        assert_eq!(p.tables()[0].columns()[1].decl.kind, Kind::Port);
    }

    #[test]
    #[should_panic(expected = "given")]
    fn a_value_of_the_wrong_kind_is_refused() {
        let mut p = Probes::new(&[&THINGS]);
        p.at(0).row(0.0, 0).f64("queue_cells", 1.0);
    }
}
