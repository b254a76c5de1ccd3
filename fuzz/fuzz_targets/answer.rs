//! Answer text vs parsed value vs re-check of its own payload, over every corpus form: see
//! `forms_fuzz::checks::check_answer_text`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| forms_fuzz::targets::answer(data));
