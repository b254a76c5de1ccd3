//! The runtime's own JSON reader against serde_json on Data arguments text: same tree, same
//! verdict, same findings (see `forms_fuzz::checks::check_readers_agree`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| forms_fuzz::targets::reader(data));
