//! The workload script's model lives with the application that runs it (`app/script.rs`); the
//! scenario file's parser (`workload_parse.rs`) builds it, and this path keeps its old name.

pub use crate::app::script::*;
