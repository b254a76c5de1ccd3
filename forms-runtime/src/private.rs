//! Items the macros' generated code names through `::forms_runtime::__private`. Not part of
//! the public API; no item here carries a version number.

pub use forms_rules as rules;
pub use once_cell::sync::Lazy;
