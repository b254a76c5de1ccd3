//! Typed decode of derived forms vs the untyped checker: see `forms_fuzz::typed`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| forms_fuzz::targets::typed(data));
