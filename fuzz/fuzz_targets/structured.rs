//! Structure-aware: mutated corpus forms, generated valid forms up to 1 MiB, synthesized and
//! mutated answers, each with its expected verdict: see `forms_fuzz::targets::structured`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| forms_fuzz::targets::structured(data));
