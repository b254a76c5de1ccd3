//! Raw JSON-RPC frames of both protocol generations fed into the Data tool server over an
//! in-process duplex: no panic, no hang, every line the server writes valid JSON-RPC 2.0. See
//! `forms_fuzz::mcp_edge`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| forms_fuzz::mcp_edge::run(data));
