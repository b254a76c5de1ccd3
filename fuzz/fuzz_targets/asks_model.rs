//! Random operation sequences of several principals on the requested-replies engine, checked
//! against a model of its state machine. See `forms_fuzz::asks_model`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| forms_fuzz::asks_model::run(data));
