//! JSON arguments the same way everywhere: every flag that takes JSON (`forms ask open --form`
//! and `--action`, `forms ask respond --answer`, `forms ask redeem --action`, `forms host
//! --args` and `--answer`) takes it inline, as `@PATH` or as `-` (standard input, once per
//! command), reads at most 1 MiB and a byte from a file or standard input, and says so in the
//! same words in every `--help`. Every case runs the real `forms` binary.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod controls;
mod conversation;

use conversation::answer_v1;
use forms_test_kit::forms::{report_answer, report_form};
use forms_test_kit::inputs::largest_valid_form;
use forms_test_kit::process::{output_with_stdin, Run};
use forms_test_kit::TempDir;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The sentence every JSON flag's help ends with.
const HELP: &str = "Give it inline, as @PATH to read a file, or as - to read standard input \
                    (one - per command); at most 1 MiB (1048576 bytes)";

/// 1 MiB, the most a JSON argument holds.
const MIB: usize = 1 << 20;

/// Every JSON flag: the command it belongs to and the flag.
const JSON_FLAGS: [(&[&str], &str); 6] = [
    (&["ask", "open"], "--form"),
    (&["ask", "open"], "--action"),
    (&["ask", "respond"], "--answer"),
    (&["ask", "redeem"], "--action"),
    (&["host"], "--args"),
    (&["host"], "--answer"),
];

fn forms_command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_forms"));
    command.args(args);
    command
}

/// `forms ARGS` with standard input closed.
fn forms(args: &[&str]) -> Run {
    Run::of(forms_command(args).stdin(Stdio::null()).output().unwrap())
}

/// `forms ARGS` with `stdin` on standard input.
fn forms_with_stdin(args: &[&str], stdin: &[u8]) -> Run {
    Run::of(output_with_stdin(&mut forms_command(args), stdin))
}

/// A store in `dir` whose conversation `c` has members `agent` and `ana`.
fn store(dir: &TempDir) -> String {
    let db = dir.db();
    forms(&[
        "ask",
        "join",
        "--db",
        &db,
        "--conversation",
        "c",
        "agent",
        "ana",
    ])
    .ok();
    db
}

/// `forms ask open` as `agent` in `c` with `key` and the `extra` flags.
fn open_args<'a>(db: &'a str, key: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "ask",
        "open",
        "--db",
        db,
        "--as",
        "agent",
        "--conversation",
        "c",
        "--body",
        "b",
        "--key",
        key,
    ];
    args.extend_from_slice(extra);
    args
}

/// `forms ask OP --db DB --as WHO REST…`.
fn ask_as<'a>(op: &'a str, db: &'a str, who: &'a str, rest: &[&'a str]) -> Vec<&'a str> {
    [&["ask", op, "--db", db, "--as", who][..], rest].concat()
}

/// A usage error (exit 2, nothing on stdout) of the command `usage` whose message holds
/// every one of `words`.
fn assert_usage_error(run: &Run, usage: &str, words: &[&str]) {
    run.assert_code(2);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("Usage: {usage} ")),
        "{}",
        run.stderr
    );
    for word in words {
        assert!(run.stderr.contains(word), "{word:?} not in {}", run.stderr);
    }
}

/// Asserts that no store was created at `db`: a refused command reads its files first.
fn assert_no_store(db: &str) {
    assert!(
        !Path::new(db).exists(),
        "a refused command created the store"
    );
}

/// The line of `help` that documents `flag`: its value name, then its help, on that line
/// or (clap puts a long help under its flag) the next.
fn flag_help(help: &str, flag: &str) -> String {
    let lines: Vec<&str> = help.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&format!("{flag} <")))
        .unwrap_or_else(|| panic!("{flag} is not in {help}"));
    let line = lines[at].trim_end();
    if line.ends_with('>') {
        format!("{line} {}", lines.get(at + 1).unwrap_or(&"").trim())
    } else {
        line.to_owned()
    }
}

#[test]
fn every_json_flag_says_the_same_in_its_help() {
    for (command, flag) in JSON_FLAGS {
        let mut args = command.to_vec();
        args.push("--help");
        let run = forms(&args);
        run.assert_code(0);
        let text = flag_help(&run.stdout, flag);
        let (head, help) = text
            .split_once("|@PATH|->")
            .unwrap_or_else(|| panic!("{command:?} {flag}: {text}"));
        // The value name: what it is inline, then `@PATH` and `-`.
        assert!(
            head.trim_start()
                .strip_prefix(&format!("{flag} <"))
                .is_some_and(|what| what == "JSON" || what == "TEXT|JSON"),
            "{command:?} {flag}: {text}"
        );
        // Its help ends with the one sentence, once.
        let help = help.trim_end();
        assert!(
            help.ends_with(&format!(". {HELP}")),
            "{command:?} {flag}: {text}"
        );
        assert_eq!(help.matches(HELP).count(), 1, "{command:?} {flag}: {text}");
    }
}

#[test]
fn a_form_opens_inline_from_a_file_and_from_standard_input() {
    let dir = TempDir::new("json-args-three");
    let db = store(&dir);
    let form = report_form();
    // Pretty-printed in the file and on standard input: any JSON text, not one line only.
    let file = dir.path().join("form.json");
    std::fs::write(&file, serde_json::to_string_pretty(&form).unwrap()).unwrap();
    let at_file = format!("@{}", file.display());
    let inline = form.to_string();
    let opened = [
        forms(&open_args(&db, "k-inline", &["--form", &inline])).ok(),
        forms(&open_args(&db, "k-file", &["--form", &at_file])).ok(),
        forms_with_stdin(
            &open_args(&db, "k-stdin", &["--form", "-"]),
            serde_json::to_string_pretty(&form).unwrap().as_bytes(),
        )
        .ok(),
    ];
    let mut ids = Vec::new();
    for request in &opened {
        let id = request["id"].as_str().unwrap().to_owned();
        let shown = forms(&["ask", "show", "--db", &db, "--as", "ana", &id]).ok();
        assert_eq!(shown["form"], form, "{shown}");
        ids.push(id);
    }
    ids.dedup();
    assert_eq!(ids.len(), 3, "three requests: {ids:?}");
}

#[test]
fn a_1_mib_form_opens_from_a_file_and_from_stdin_and_a_byte_more_is_refused() {
    let dir = TempDir::new("json-args-mib");
    let db = store(&dir);
    // The largest valid form, padded with trailing spaces to exactly 1 MiB, then 1 MiB and a
    // byte: the same form, so only the size can refuse the second.
    let form = largest_valid_form();
    assert!(form.len() <= MIB, "{}", form.len());
    let exact = format!("{form}{}", " ".repeat(MIB - form.len()));
    let over = format!("{exact} ");
    assert_eq!((exact.len(), over.len()), (MIB, MIB + 1));
    let exact_file = dir.path().join("exact.json");
    let over_file = dir.path().join("over.json");
    std::fs::write(&exact_file, &exact).unwrap();
    std::fs::write(&over_file, &over).unwrap();
    let expected: Value = serde_json::from_str(&form).unwrap();

    let at_exact = format!("@{}", exact_file.display());
    let from_file = forms(&open_args(&db, "k-file", &["--form", &at_exact])).ok();
    let from_stdin = forms_with_stdin(
        &open_args(&db, "k-stdin", &["--form", "-"]),
        exact.as_bytes(),
    )
    .ok();
    for opened in [&from_file, &from_stdin] {
        let id = opened["id"].as_str().unwrap();
        let shown = forms(&["ask", "show", "--db", &db, "--as", "ana", id]).ok();
        assert!(
            shown["form"] == expected,
            "the 1 MiB form was not stored as given"
        );
    }

    let at_over = format!("@{}", over_file.display());
    let refused = forms(&open_args(&db, "k-over-file", &["--form", &at_over]));
    assert_usage_error(
        &refused,
        "forms ask open",
        &[
            "`--form`",
            &over_file.display().to_string(),
            "1 MiB (1048576 bytes)",
        ],
    );
    let refused = forms_with_stdin(
        &open_args(&db, "k-over-stdin", &["--form", "-"]),
        over.as_bytes(),
    );
    assert_usage_error(
        &refused,
        "forms ask open",
        &["`--form`", "standard input", "1 MiB (1048576 bytes)"],
    );
    // Nothing was opened by the refused commands.
    let listed = forms(&ask_as("list", &db, "ana", &["--conversation", "c"])).ok();
    assert_eq!(listed["requests"].as_array().unwrap().len(), 2, "{listed}");
}

/// Reading stops after 1 MiB and a byte: an endless input (`/dev/zero`, as a file and on
/// standard input) is refused at once instead of being read until memory runs out.
#[test]
fn an_endless_input_is_refused_after_the_limit() {
    let dir = TempDir::new("json-args-endless");
    let db = dir.db();
    for (flag_value, stdin_zero) in [("@/dev/zero", false), ("-", true)] {
        let mut command = forms_command(&open_args(&db, "k", &["--form", flag_value]));
        let stdin = if stdin_zero {
            Stdio::from(std::fs::File::open("/dev/zero").unwrap())
        } else {
            Stdio::null()
        };
        let mut child = command
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > Duration::from_secs(30) {
                let _ = child.kill();
                panic!("`--form {flag_value}` was still reading an endless input after 30 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let run = Run::of(std::process::Output {
            status,
            ..child.wait_with_output().unwrap()
        });
        assert_usage_error(
            &run,
            "forms ask open",
            &["`--form`", "1 MiB (1048576 bytes)"],
        );
    }
    assert_no_store(&db);
}

#[test]
fn an_unreadable_file_is_a_usage_error_naming_it() {
    let dir = TempDir::new("json-args-missing");
    let db = dir.db();
    let missing = dir.path().join("no such file.json");
    let at_missing = format!("@{}", missing.display());
    let missing_name = missing.display().to_string();
    let at_dir = format!("@{}", dir.path().display());
    let dir_name = dir.path().display().to_string();
    let not_utf8 = dir.path().join("latin1.json");
    std::fs::write(&not_utf8, b"{\"message\":\"Caf\xe9\"}").unwrap();
    let at_not_utf8 = format!("@{}", not_utf8.display());
    let respond = |answer: &str| {
        let answered = answer_v1("r-1", answer, "k");
        forms(&ask_as("respond", &db, "ana", &answered))
    };
    let redeem = |action: &str| {
        forms(&[
            "ask", "redeem", "--db", &db, "--as", "agent", "r-1", "--action", action, "--key", "k",
        ])
    };
    let host = |flag: &str, value: &str| forms(&["host", flag, value, "--", "no-server"]);
    let cases = [
        (
            forms(&open_args(&db, "k", &["--form", &at_missing])),
            "forms ask open",
            "`--form`",
            &missing_name,
        ),
        (
            forms(&open_args(&db, "k", &["--action", &at_missing])),
            "forms ask open",
            "`--action`",
            &missing_name,
        ),
        (
            respond(&at_missing),
            "forms ask respond",
            "`--answer`",
            &missing_name,
        ),
        (
            redeem(&at_missing),
            "forms ask redeem",
            "`--action`",
            &missing_name,
        ),
        (
            host("--args", &at_missing),
            "forms host",
            "`--args`",
            &missing_name,
        ),
        (
            host("--answer", &at_missing),
            "forms host",
            "`--answer`",
            &missing_name,
        ),
        // A directory cannot be read as a file either.
        (
            forms(&open_args(&db, "k", &["--form", &at_dir])),
            "forms ask open",
            "`--form`",
            &dir_name,
        ),
        (host("--args", &at_dir), "forms host", "`--args`", &dir_name),
        // Nor can a file that is not UTF-8 be taken as text.
        (
            forms(&open_args(&db, "k", &["--form", &at_not_utf8])),
            "forms ask open",
            "not UTF-8",
            &not_utf8.display().to_string(),
        ),
    ];
    for (run, usage, flag, file) in &cases {
        assert_usage_error(run, usage, &[flag, file]);
    }
    // `@` alone names no file.
    let run = forms(&open_args(&db, "k", &["--form", "@"]));
    assert_usage_error(&run, "forms ask open", &["--form", "path of a file"]);
    // The files were read before the store was opened: none was created.
    assert_no_store(&db);
}

#[test]
fn standard_input_is_read_by_one_flag_at_most() {
    let dir = TempDir::new("json-args-two-stdin");
    let db = dir.db();
    let action = json!({"executor": "deployer", "resource_version": "v7",
                        "arguments": {}, "operation_key": "op-1"});
    let run = forms_with_stdin(
        &open_args(
            &db,
            "k",
            &["--kind", "approval", "--form", "-", "--action", "-"],
        ),
        action.to_string().as_bytes(),
    );
    assert_usage_error(
        &run,
        "forms ask open",
        &["`--form` and `--action` are both `-`", "standard input"],
    );
    assert_no_store(&db);
    let run = forms_with_stdin(
        &["host", "--args", "-", "--answer", "-", "--", "no-server"],
        b"{}",
    );
    assert_usage_error(
        &run,
        "forms host",
        &["`--args` and `--answer` are both `-`"],
    );
    // `--terminal` keeps standard input for the keyboard.
    let run = forms_with_stdin(
        &["host", "--terminal", "--args", "-", "--", "no-server"],
        b"{}",
    );
    assert_usage_error(&run, "forms host", &["`--terminal`", "standard input"]);
}

/// `--action` from a file at `open` and from standard input at `redeem`, `--answer` as text
/// from standard input: each reaches the store as given inline.
#[test]
fn an_approval_s_action_and_answer_come_from_a_file_and_standard_input() {
    let dir = TempDir::new("json-args-action");
    let db = store(&dir);
    let action = json!({"executor": "deployer", "resource_version": "v7",
                        "arguments": {"env": "staging"}, "operation_key": "op-1"});
    let file = dir.path().join("action.json");
    std::fs::write(&file, serde_json::to_string_pretty(&action).unwrap()).unwrap();
    let at_file = format!("@{}", file.display());
    let opened = forms(&open_args(
        &db,
        "k-open",
        &["--kind", "approval", "--action", &at_file],
    ))
    .ok();
    assert_eq!(
        opened["action"]["arguments"], action["arguments"],
        "{opened}"
    );
    let id = opened["id"].as_str().unwrap();
    // An answer that starts with `@` is given through standard input, as is.
    let approved = [id, "--version", "1", "--outcome", "approved"];
    let from_stdin = ["--answer", "-", "--key", "k-respond"];
    let args = ask_as(
        "respond",
        &db,
        "ana",
        &[&approved[..], &from_stdin[..]].concat(),
    );
    let answered = forms_with_stdin(&args, b"@agent go ahead").ok();
    assert_eq!(answered["answer"], "@agent go ahead", "{answered}");
    let redeemed = forms_with_stdin(
        &[
            "ask", "redeem", "--db", &db, "--as", "agent", id, "--action", "-", "--key", "k-redeem",
        ],
        action.to_string().as_bytes(),
    )
    .ok();
    assert!(redeemed.is_object(), "{redeemed}");
    // The same action with other arguments, from standard input, is refused by the store:
    // what was read is what was presented.
    let other = json!({"executor": "deployer", "resource_version": "v7",
                       "arguments": {"env": "production"}, "operation_key": "op-1"});
    forms_with_stdin(
        &[
            "ask",
            "redeem",
            "--db",
            &db,
            "--as",
            "agent",
            id,
            "--action",
            "-",
            "--key",
            "k-redeem-2",
        ],
        other.to_string().as_bytes(),
    )
    .refused("action_refused");
}

/// `forms host --args -` and `--answer @FILE` against the real `forms-mcp`: the form read
/// from standard input is asked, and the answer read from the file is its result.
#[test]
fn host_takes_its_arguments_from_standard_input_and_its_answer_from_a_file() {
    let dir = TempDir::new("json-args-host");
    let answer = report_answer("Ship it", "html");
    let file = dir.path().join("answer.json");
    std::fs::write(&file, serde_json::to_string_pretty(&answer).unwrap()).unwrap();
    let at_file = format!("@{}", file.display());
    let server = forms_test_kit::forms_mcp();
    let server = server.to_str().unwrap();
    let run = Run::of(output_with_stdin(
        forms_command(&[
            "host",
            "--call",
            "form_elicitation_v2_request",
            "--args",
            "-",
            "--answer",
            &at_file,
            "--",
            server,
        ])
        .env("DATA_FORMS_TIMEOUT_MS", "20000"),
        serde_json::to_string_pretty(&report_form())
            .unwrap()
            .as_bytes(),
    ));
    let result = run.ok();
    assert_eq!(result["structuredContent"], answer, "{result}");
}
