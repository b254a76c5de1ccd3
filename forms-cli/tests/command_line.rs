//! The command line itself: `--flag=VALUE` beside `--flag VALUE` on every command, each
//! subcommand's own `--help`, `--version`, shell completions, arguments that are not UTF-8,
//! and the subcommands a build leaves out. Every case runs the real `forms` binary.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

mod commands;

use forms_test_kit::checks::assert_usage_error;
use serde_json::{json, Value};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    forms_test_kit::scratch("command-line", name)
}

/// The exit status, standard output and standard error of `forms ARGS`.
fn forms<I, S>(args: I) -> (i32, String, String)
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    forms_test_kit::process::run(Command::new(env!("CARGO_BIN_EXE_forms")).args(args))
}

fn form() -> Value {
    json!({"message": "Pick a size", "questions": [
        {"id": "size", "type": "single_select", "title": "Size", "required": true,
         "options": [{"id": "s", "title": "Small"}, {"id": "m", "title": "Medium"}]}
    ]})
}

/// The subcommand names listed under `Commands:` in a help text.
fn listed(help: &str) -> Vec<String> {
    help.split("Commands:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no command list: {help}"))
        .lines()
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn answer_and_preview_take_flag_equals_value() {
    let dir = scratch("equals");
    let form_file = dir.join("form.json");
    std::fs::write(&form_file, form().to_string()).unwrap();
    let response = dir.join("response.json");
    let accept = json!({"action": "accept", "content": {"size": "m"}});
    std::fs::write(&response, accept.to_string()).unwrap();
    let spaced = forms([
        OsStr::new("answer"),
        OsStr::new("--form"),
        form_file.as_os_str(),
        response.as_os_str(),
    ]);
    let mut joined = OsStr::new("--form=").to_owned();
    joined.push(&form_file);
    let equals = forms([OsStr::new("answer"), &joined, response.as_os_str()]);
    assert_eq!(equals.0, 0, "{}", equals.2);
    assert_eq!(equals, spaced);
    let payload: Value = serde_json::from_str(equals.1.trim_end()).unwrap();
    assert_eq!(payload["content"], accept["content"], "{payload}");

    let page = dir.join("page.html");
    let mut out = OsStr::new("--out=").to_owned();
    out.push(&page);
    let (code, stdout, stderr) = forms([OsStr::new("preview"), form_file.as_os_str(), &out]);
    assert_eq!(code, 0, "{stderr}");
    let summary: Value = serde_json::from_str(stdout.trim_end()).unwrap();
    assert_eq!(summary["page"], page.display().to_string());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Pick a size"), "{html}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn every_subcommand_has_its_own_help() {
    let (code, top, _) = forms(["--help"]);
    assert_eq!(code, 0);
    let commands = listed(&top);
    for name in commands::COMMANDS {
        assert!(commands.iter().any(|c| c == name), "{name}: {commands:?}");
    }
    for name in &commands {
        for flag in ["--help", "-h"] {
            let (code, help, stderr) = forms([name.as_str(), flag]);
            if cfg!(not(feature = "ask")) && name == "ask"
                || cfg!(not(feature = "host")) && name == "host"
            {
                assert_eq!(code, 2, "{name}: {help}");
                assert!(stderr.contains("not built in"), "{name}: {stderr}");
                continue;
            }
            assert_eq!(code, 0, "{name} {flag}: {stderr}");
            assert!(
                help.contains(&format!("Usage: forms {name}")),
                "{name}: {help}"
            );
            assert!(!help.contains("Usage: forms <COMMAND>"), "{name}: {help}");
            // `help NAME` prints the same text as `NAME --help`.
            if flag == "--help" {
                assert_eq!(forms(["help", name.as_str()]).1, help, "{name}");
            }
        }
    }
}

#[test]
fn version_prints_the_package_version() {
    for flag in ["--version", "-V"] {
        let (code, stdout, stderr) = forms([flag]);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stdout, format!("forms {}\n", env!("CARGO_PKG_VERSION")));
        assert!(stderr.is_empty(), "{stderr}");
    }
}

#[test]
fn completions_cover_every_subcommand_for_each_shell() {
    let (_, top, _) = forms(["--help"]);
    let commands = listed(&top);
    for shell in ["bash", "zsh", "fish"] {
        let (code, script, stderr) = forms(["completions", shell]);
        assert_eq!(code, 0, "{shell}: {stderr}");
        assert!(script.len() > 1000, "{shell}: {script}");
        for name in &commands {
            assert!(script.contains(name.as_str()), "{shell} lacks {name}");
        }
        if cfg!(feature = "ask") {
            // The operations of `ask` and their flags, from the shared description.
            for word in ["respond", "supersede", "conversation", "expires"] {
                assert!(script.contains(word), "{shell} lacks {word}");
            }
        }
    }
    let (code, _, stderr) = forms(["completions", "powershell"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("bash"), "{stderr}");
}

#[test]
fn arguments_that_are_not_utf8_are_refused_cleanly() {
    let bad = OsStr::from_bytes(b"caf\xe9");
    let mut flag = OsStr::new("--form=").to_owned();
    flag.push(bad);
    let mut cases: Vec<Vec<&OsStr>> = vec![
        vec![bad],
        vec![
            OsStr::new("check"),
            OsStr::new("--lint"),
            OsStr::new("--"),
            bad,
        ],
        vec![OsStr::new("descriptor"), bad],
        vec![OsStr::new("completions"), bad],
        vec![OsStr::new("answer"), &flag],
        vec![OsStr::new("fill"), bad],
    ];
    if cfg!(feature = "ask") {
        cases.push(vec![
            OsStr::new("ask"),
            OsStr::new("show"),
            OsStr::new("--db"),
            OsStr::new("x.db"),
            OsStr::new("--as"),
            bad,
            OsStr::new("req_1"),
        ]);
        cases.push(vec![OsStr::new("ask"), bad]);
    }
    if cfg!(feature = "host") {
        cases.push(vec![OsStr::new("host"), OsStr::new("--url"), bad]);
        cases.push(vec![
            OsStr::new("host"),
            OsStr::new("--call"),
            bad,
            OsStr::new("--"),
            OsStr::new("true"),
        ]);
    }
    for args in cases {
        let (code, stdout, stderr) = forms(&args);
        assert_usage_error("forms", &args, (code, &stdout, &stderr));
    }
}

#[cfg(feature = "ask")]
#[test]
fn an_ask_usage_error_prints_only_that_operation_s_usage() {
    let dir = scratch("ask-usage");
    let db = dir.join("asks.db").display().to_string();
    for (args, op) in [
        (vec!["ask", "open", "--db", &db, "--as", "ana"], "open"),
        (
            vec![
                "ask",
                "respond",
                "--db",
                &db,
                "--as",
                "ana",
                "req_1",
                "--version=0",
            ],
            "respond",
        ),
        (
            vec![
                "ask",
                "wait",
                "--db",
                &db,
                "--as",
                "ana",
                "req_1",
                "--timeout=soon",
            ],
            "wait",
        ),
        (
            vec!["ask", "list", "--db", &db, "--as", "ana", "--frobnicate"],
            "list",
        ),
        (
            vec![
                "ask",
                "open",
                "--db",
                &db,
                "--as",
                "ana",
                "--conversation",
                "c",
                "--body",
                "b",
                "--key",
                "k",
                "--expires",
                "soon",
            ],
            "open",
        ),
    ] {
        let (code, stdout, stderr) = forms(&args);
        assert_eq!(code, 2, "{args:?}: {stdout}");
        assert!(stdout.is_empty());
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        let usages: Vec<&str> = stderr.lines().filter(|l| l.starts_with("Usage:")).collect();
        assert_eq!(usages.len(), 1, "{args:?}: {stderr}");
        assert!(
            usages[0].starts_with(&format!("Usage: forms ask {op} ")),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("Commands:"), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[cfg(feature = "ask")]
#[test]
fn ask_operations_take_flag_equals_value() {
    let dir = scratch("ask-equals");
    let db = format!("--db={}", dir.join("asks.db").display());
    let run = |args: &[&str]| {
        let (code, stdout, stderr) = forms(args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        serde_json::from_str::<Value>(stdout.trim_end()).unwrap()
    };
    let joined = run(&[
        "ask",
        "join",
        &db,
        "--conversation=c",
        "--role=member",
        "agent",
        "ana",
    ]);
    assert_eq!(joined["members"].as_array().unwrap().len(), 2, "{joined}");
    let opened = run(&[
        "ask",
        "open",
        &db,
        "--as=agent",
        "--conversation=c",
        "--kind=question",
        "--body=Which size?",
        "--title=Size",
        "--choice=s",
        "--choice=m",
        "--audience=ana",
        "--expires=7d",
        "--key=k1",
    ]);
    assert_eq!(opened["choices"], json!(["s", "m"]), "{opened}");
    assert_eq!(opened["title"], "Size", "{opened}");
    let id = opened["id"].as_str().unwrap();
    let version = format!("--version={}", opened["version"]);
    let answered = run(&[
        "ask",
        "respond",
        &db,
        "--as=ana",
        id,
        &version,
        "--outcome=answered",
        "--answer=m",
        "--key=k2",
    ]);
    assert_eq!(answered["answer"], "m", "{answered}");
    let waited = run(&["ask", "wait", &db, "--as=agent", id, "--timeout=0"]);
    assert_eq!(waited["state"], answered["state"], "{waited}");
    let listed = run(&[
        "ask",
        "list",
        &db,
        "--as=agent",
        "--conversation=c",
        "--limit=1",
    ]);
    assert_eq!(listed["requests"].as_array().unwrap().len(), 1, "{listed}");
    let _ = std::fs::remove_dir_all(dir);
}

/// `forms args` exits 2 with nothing on stdout, saying the subcommand is not built in and
/// which feature builds it.
#[cfg(any(not(feature = "ask"), not(feature = "host")))]
fn refused_as_not_built_in(args: &[&str], feature: &str) {
    let (code, stdout, stderr) = forms(args);
    assert_eq!(code, 2, "{args:?}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains(&format!("`forms {feature}` is not built in"))
            && stderr.contains(&format!("--features {feature}")),
        "{stderr}"
    );
}

#[cfg(not(feature = "ask"))]
#[test]
fn ask_says_it_is_not_built_in() {
    for args in [
        &["ask"][..],
        &["ask", "open", "--db", "x.db"],
        &["ask", "--help"],
    ] {
        refused_as_not_built_in(args, "ask");
    }
}

#[cfg(not(feature = "host"))]
#[test]
fn host_says_it_is_not_built_in() {
    for args in [
        &["host"][..],
        &["host", "--url", "http://127.0.0.1:1/mcp"],
        &["host", "--", "x"],
    ] {
        refused_as_not_built_in(args, "host");
    }
}

#[cfg(feature = "host")]
mod host {
    use super::*;
    use forms_test_kit::process::Server;

    /// `forms-mcp --http=127.0.0.1:0` and `forms host --url=URL …`, every value flag written
    /// `--flag=VALUE`: the form is answered from the file and the result printed.
    #[test]
    fn host_and_forms_mcp_take_flag_equals_value() {
        let dir = scratch("host-equals");
        let mut command = Command::new(forms_test_kit::forms_mcp());
        command
            .arg("--http=127.0.0.1:0")
            .env("DATA_FORMS_TIMEOUT_MS", "10000");
        let server = Server::start(command);
        let url = server.url.clone();
        let accept = json!({"action": "accept", "content": {"size": "s"}});
        let answer = dir.join("answer.json");
        std::fs::write(&answer, accept.to_string()).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_forms"))
            .arg("host")
            .arg(format!("--url={url}"))
            .arg("--protocol=2026-07-28")
            .arg(format!("--answer=@{}", answer.display()))
            .arg("--call=form_elicitation_v2_request")
            .arg(format!("--args={}", form()))
            .arg("--max-file-bytes=1000")
            .env("DATA_FORMS_TIMEOUT_MS", "10000")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        drop(server);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let result: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(result["structuredContent"], accept, "{result}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn host_usage_errors_print_host_s_usage() {
        for args in [
            &["host"][..],
            &["host", "--url=http://127.0.0.1:1/mcp", "--", "server"],
            &["host", "--answer=@a.json", "--terminal", "--", "server"],
            &["host", "--protocol=2024-01-01", "--", "server"],
            &["host", "--max-file-bytes=lots", "--", "server"],
            &["host", "--args={", "--", "server"],
            &["host", "--args=[]", "--", "server"],
        ] {
            let (code, stdout, stderr) = forms(args);
            assert_eq!(code, 2, "{args:?}: {stdout} {stderr}");
            assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
            assert!(stderr.contains("Usage: forms host "), "{args:?}: {stderr}");
        }
    }
}

/// `forms check`, `native`, `preview` and `answer` read a `FILE` (or standard input) up to
/// 16 MiB and a byte: an endless one (`/dev/zero`) is a usage error naming it, at once,
/// instead of being read until memory runs out.
#[test]
fn an_endless_file_or_standard_input_is_refused_after_16_mib() {
    let dir = scratch("endless");
    std::fs::create_dir_all(&dir).unwrap();
    let form_file = dir.join("form.json");
    std::fs::write(&form_file, form().to_string()).unwrap();
    let form_file = form_file.to_str().unwrap();
    let runs: [(&str, &[&str], bool); 8] = [
        ("forms check", &["check", "/dev/zero"], false),
        ("forms check", &["check", "-"], true),
        ("forms native", &["native", "/dev/zero"], false),
        ("forms preview", &["preview", "/dev/zero"], false),
        ("forms preview", &["preview"], true),
        (
            "forms answer",
            &["answer", "--form", "/dev/zero", form_file],
            false,
        ),
        (
            "forms answer",
            &["answer", "--form", form_file, "/dev/zero"],
            false,
        ),
        ("forms answer", &["answer", "--form", form_file, "-"], true),
    ];
    for (program, args, stdin_zero) in runs {
        let stdin = if stdin_zero {
            std::process::Stdio::from(std::fs::File::open("/dev/zero").unwrap())
        } else {
            std::process::Stdio::null()
        };
        let start = std::time::Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_forms"))
            .args(args)
            .stdin(stdin)
            .output()
            .unwrap();
        let out = (
            output.status.code().unwrap(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        );
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "{args:?} took {:?}",
            start.elapsed()
        );
        assert_usage_error(program, &args, (out.0, &out.1, &out.2));
        let name = if stdin_zero {
            "standard input"
        } else {
            "/dev/zero"
        };
        assert!(
            out.2
                .contains(&format!("{name} is longer than 16777216 bytes (16 MiB)")),
            "{args:?}: {}",
            out.2
        );
    }
}
