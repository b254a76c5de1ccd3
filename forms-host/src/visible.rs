//! Text from a form or a server made safe to print on a terminal: the rule lives in
//! [`forms_runtime::rules::visible`], shared with `forms fill`.

pub use forms_runtime::rules::visible::{is_hidden, visible, visible_json};
