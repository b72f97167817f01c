//! The TM 4.0 service categories ([`Category`]): what a connection carries (`category`), and what
//! the per-category settings of nodes, ports and fabrics are keyed by.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// ATM service categories (TM 4.0), in default strict-priority order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub enum Category {
    #[serde(rename = "cbr")]
    Cbr = 0,
    #[serde(rename = "rt-vbr")]
    RtVbr = 1,
    #[serde(rename = "nrt-vbr")]
    NrtVbr = 2,
    #[serde(rename = "abr")]
    Abr = 3,
    #[serde(rename = "ubr")]
    Ubr = 4,
}

impl Category {
    pub const ALL: [Category; 5] = [
        Category::Cbr,
        Category::RtVbr,
        Category::NrtVbr,
        Category::Abr,
        Category::Ubr,
    ];
    pub fn name(self) -> &'static str {
        ["cbr", "rt-vbr", "nrt-vbr", "abr", "ubr"][self as usize]
    }
}
