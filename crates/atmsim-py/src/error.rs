//! The exception hierarchy of atmsim, defined once, and the one mapping of the core's errors to
//! it (as polars' `crates/polars-python/src/error.rs`).
//!
//! ```text
//! AtmsimError(Exception)      every error atmsim raises
//! ├── ScenarioError           bad input: file, key path, message
//! └── SimulationError         a valid scenario failed while it was being built or run
//! ```
//!
//! The core reports a scenario error with its key path (`connections[3].abr.nrm`) but does not
//! know the file: the binding raises `ScenarioError("", path, message)` and the Python front end,
//! which knows which file (or `--set`) wrote each key, raises it again with `file` filled in.
//!
//! A Rust struct cannot extend `Exception` under the stable ABI before Python 3.12 (this crate
//! builds `abi3-py311`), so the classes come from `create_exception!` and `ScenarioError` gets
//! its fields, `str`, `repr` and pickling from a few lines of Python installed on the class when
//! the module loads ([`register`]).

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(
    atmsim._core,
    AtmsimError,
    PyException,
    "Base class of every error raised by atmsim."
);
create_exception!(
    atmsim._core,
    ScenarioError,
    AtmsimError,
    "Bad input: ``file`` (or ``\"--set\"``), key ``path`` and ``message``.\n\n\
     ``ScenarioError(file, path, message)``; ``str(err)`` is ``\"{file}: {path}: {message}\"`` \
     with empty parts left out."
);
create_exception!(
    atmsim._core,
    SimulationError,
    AtmsimError,
    "A valid scenario failed while it was being built or run."
);

/// `ScenarioError`'s constructor, fields, `str`, `repr` and pickling (multiprocessing pools send
/// it between processes): `__reduce__` rebuilds it from the three fields, whatever `args` holds.
const SCENARIO_ERROR_METHODS: &std::ffi::CStr = cr#"
def _install(cls):
    def __init__(self, file="", path="", message=""):
        self.file = str(file) if file else ""
        self.path = path or ""
        self.message = message
        super(cls, self).__init__(str(self))

    def __str__(self):
        return ": ".join(part for part in (self.file, self.path, self.message) if part)

    def __repr__(self):
        return f"{type(self).__name__}(file={self.file!r}, path={self.path!r}, message={self.message!r})"

    def __reduce__(self):
        return (type(self), (self.file, self.path, self.message))

    for f in (__init__, __str__, __repr__, __reduce__):
        f.__qualname__ = f"{cls.__name__}.{f.__name__}"
        setattr(cls, f.__name__, f)
"#;

/// Add the exception classes to the module, `ScenarioError` with its methods.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let scenario_error = py.get_type::<ScenarioError>();
    let globals = PyDict::new(py);
    globals.set_item("__builtins__", PyModule::import(py, "builtins")?)?;
    globals.set_item("__name__", "atmsim._core")?;
    py.run(SCENARIO_ERROR_METHODS, Some(&globals), None)?;
    globals
        .get_item("_install")?
        .expect("the snippet defines _install")
        .call1((&scenario_error,))?;
    m.add("AtmsimError", py.get_type::<AtmsimError>())?;
    m.add("ScenarioError", scenario_error)?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    Ok(())
}

/// Every error of the core that reaches Python.
pub(crate) enum Error {
    /// Invalid scenario: key path and message (the file is the front end's to add).
    Scenario(atmsim_core::ScenarioError),
    /// A valid scenario failed while it was being built or run.
    Simulation(String),
    /// A bad argument to a helper function (`fgn`, `map_traffic`): Python's `ValueError`.
    Argument(String),
}

impl From<atmsim_core::ScenarioError> for Error {
    fn from(e: atmsim_core::ScenarioError) -> Self {
        Error::Scenario(e)
    }
}

/// The mapping, in one place.
impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        match e {
            Error::Scenario(e) => ScenarioError::new_err((String::new(), e.path, e.message)),
            Error::Simulation(message) => SimulationError::new_err(message),
            Error::Argument(message) => PyValueError::new_err(message),
        }
    }
}
