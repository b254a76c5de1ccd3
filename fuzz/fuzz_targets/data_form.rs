//! Data form text vs parsed value vs round trip: see `forms_fuzz::checks::check_form_text`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| forms_fuzz::targets::data_form(data));
