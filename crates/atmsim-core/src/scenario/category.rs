//! The TM 4.0 service categories ([`Category`]): what a connection carries (`category`), and what
//! the per-category settings of nodes, ports and fabrics are keyed by. The type is the model's
//! (`net/category.rs`, with its file names and schema); the file model re-exports it.

pub use crate::net::Category;
