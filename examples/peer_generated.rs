//! Prints generated forms and answers as JSON lines for `peer-check` (the format of
//! `examples/peer_cases.rs`): `count` valid forms (default 200) from the generator of
//! `forms-test-kit/src/fuzz/gen.rs`, driven by a fixed seed, each with its native request, synthesized valid
//! answers (which the runtime must accept) and V-breaking mutations of them (which it must
//! refuse), every verdict the runtime's own.
//!
//! ```text
//! cargo run -q --example peer_generated -- 200 > /tmp/gen.jsonl && ../shared/tools/peer-check /tmp/gen.jsonl
//! ```

use forms_test_kit::fuzz as forms_fuzz;

use arbitrary::Unstructured;
use forms_fuzz::gen::Gen;
use forms_fuzz::targets::{expect_refused_answer, expect_valid_answer, expect_valid_form};
use std::io::{self, BufWriter, Write};

/// xorshift64*: the same bytes on every machine.
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
        })
        .collect()
}

fn main() -> io::Result<()> {
    let count: u64 = std::env::args()
        .nth(1)
        .map_or(200, |a| a.parse().expect("a count"));
    let out = io::stdout();
    let mut out = BufWriter::new(out.lock());
    for i in 0..count {
        let data = bytes(i + 1, 4096);
        let mut u = Unstructured::new(&data);
        let mut g = Gen::new(&mut u, 6_000);
        let (json, spec) = g.form();
        let text = json.write(&g.style());
        let form = expect_valid_form(&json, &spec, &text).expect("a generated form fits R4");
        let mut responses = Vec::new();
        for _ in 0..4 {
            let response = g.answer(&form);
            expect_valid_answer(&form, &response);
            responses.push(format!(
                r#"{{"response":{},"accepted":true}}"#,
                response.compact()
            ));
            if let Some((bad, rules)) = g.break_answer(&form, &response) {
                expect_refused_answer(&form, &bad, &rules);
                responses.push(format!(
                    r#"{{"response":{},"accepted":false}}"#,
                    bad.compact()
                ));
            }
        }
        writeln!(
            out,
            r#"{{"name":"generated-{i}","request":{},"responses":[{}]}}"#,
            form.native_json(),
            responses.join(",")
        )?;
    }
    out.flush()
}
