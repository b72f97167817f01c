//! The ATM service categories ([`Category`]) of the ATM Forum Traffic Management Specification
//! 4.0 (af-tm-0056.000, section 2: CBR, rt-VBR, nrt-VBR, ABR, UBR): what a connection carries,
//! and what the per-category queues, limits and schedulers of a port are indexed by
//! (`Category as usize`). The scenario file names them as here (`category = "rt-vbr"`): the file
//! model re-exports this type (`scenario/category.rs`), so its serde names and schema live here.

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
