//! The `forms-mcp` command line: `--flag=VALUE`, `--help`, `--version`, arguments that are not
//! UTF-8, and the HTTP flags that need `--http`. Every case runs the real binary.
// Test code: a failed unwrap, expect, index or panic is a failed test.
#![allow(clippy::restriction)]

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::ffi::OsStrExt;
use std::process::{Command, Stdio};

use forms_test_kit::process::Server;

fn forms_mcp<I, S>(args: I) -> (i32, String, String)
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    forms_test_kit::process::run(
        Command::new(env!("CARGO_BIN_EXE_forms-mcp"))
            .args(args)
            .env_remove("FORMS_ASK_PRINCIPAL")
            .env_remove("FORMS_ASK_PRINCIPAL_TOKENS"),
    )
}

/// `--http=ADDR` and the HTTP limits written `--flag=VALUE`: the server listens and answers
/// an `initialize` over the real socket.
#[test]
fn http_and_its_limits_take_flag_equals_value() {
    let mut command = Command::new(env!("CARGO_BIN_EXE_forms-mcp"));
    command.args([
        "--http=127.0.0.1:0",
        "--header-timeout=5",
        "--body-timeout=5",
        "--max-connections=8",
        "--max-sessions=4",
        "--session-idle=60",
        "--body-memory=1",
        "--allow-origin=https://app.example",
        "--allow-host=forms.example",
    ]);
    let server = Server::start(command);
    let url = server
        .url
        .strip_prefix("http://")
        .unwrap_or_else(|| panic!("{}", server.url));
    let (addr, path) = url.split_once('/').unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let mut stream = TcpStream::connect(addr).unwrap();
    // The allowed origin and host are accepted: both flags were read.
    write!(
        stream,
        "POST /{path} HTTP/1.1\r\nHost: forms.example\r\nOrigin: https://app.example\r\n\
         Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    drop(server);
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(
        response.contains("form_elicitation") || response.contains("serverInfo"),
        "{response}"
    );
}

#[test]
fn help_and_version() {
    for flag in ["--help", "-h"] {
        let (code, help, stderr) = forms_mcp([flag]);
        assert_eq!(code, 0, "{stderr}");
        assert!(help.contains("Usage: forms-mcp"), "{help}");
        for needle in [
            "--http <ADDR>",
            "--asks <DB>",
            "--principal-token",
            "--header-timeout",
        ] {
            assert!(help.contains(needle), "{needle}: {help}");
        }
    }
    for flag in ["--version", "-V"] {
        let (code, stdout, _) = forms_mcp([flag]);
        assert_eq!(code, 0);
        assert_eq!(stdout, format!("forms-mcp {}\n", env!("CARGO_PKG_VERSION")));
    }
}

#[test]
fn usage_errors_exit_2_with_the_usage() {
    let bad = OsStr::from_bytes(b"caf\xe9");
    let mut equals = OsStr::new("--asks=").to_owned();
    equals.push(bad);
    let cases: Vec<Vec<&OsStr>> = vec![
        // Not UTF-8: as an argument, as a value, after `=`.
        vec![bad],
        vec![OsStr::new("--asks"), bad],
        vec![&equals],
        vec![OsStr::new("--principal"), bad],
        // Bad values and unknown flags.
        vec![OsStr::new("--http=localhost")],
        vec![OsStr::new("--bogus")],
        vec![
            OsStr::new("--http=127.0.0.1:0"),
            OsStr::new("--max-sessions=0"),
        ],
        vec![
            OsStr::new("--http=127.0.0.1:0"),
            OsStr::new("--header-timeout=-1"),
        ],
        vec![
            OsStr::new("--http=127.0.0.1:0"),
            OsStr::new("--allow-origin=nope"),
        ],
        // An HTTP limit without `--http`.
        vec![OsStr::new("--session-idle=5")],
        // The page limit: without `--url-mode`, zero, not a number.
        vec![OsStr::new("--max-pages=3")],
        vec![OsStr::new("--url-mode"), OsStr::new("--max-pages=0")],
        vec![OsStr::new("--url-mode"), OsStr::new("--max-pages=many")],
    ];
    for args in cases {
        let (code, stdout, stderr) = forms_mcp(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(stderr.contains("Usage: forms-mcp"), "{args:?}: {stderr}");
        assert!(!stderr.contains("listening"), "{stderr}");
    }
}

/// A principal variable that is not UTF-8 is a usage error naming it (exit 2), never left
/// out: with a valid `--principal-token` beside it the server would otherwise start without
/// the tokens of the variable.
#[test]
fn principal_variables_that_are_not_utf8_are_usage_errors() {
    let db = std::env::temp_dir().join(format!("forms-mcp-env-{}.db", std::process::id()));
    let db = db.to_str().unwrap().to_owned();
    let bad = OsStr::from_bytes(b"ana=s\xe9cret");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "--http=127.0.0.1:0",
                "--asks",
                &db,
                "--principal-token",
                "bob=0123456789abcdef0123456789abcdef",
            ],
            "FORMS_ASK_PRINCIPAL_TOKENS",
        ),
        (
            vec!["--http=127.0.0.1:0", "--asks", &db],
            "FORMS_ASK_PRINCIPAL_TOKENS",
        ),
        (vec!["--asks", &db], "FORMS_ASK_PRINCIPAL"),
    ];
    for (args, var) in cases {
        let mut child = Command::new(env!("CARGO_BIN_EXE_forms-mcp"))
            .args(&args)
            .env_remove("FORMS_ASK_PRINCIPAL")
            .env_remove("FORMS_ASK_PRINCIPAL_TOKENS")
            .env(var, bad)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A server that starts instead would never exit: give it 20 s.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if std::time::Instant::now() > deadline {
                child.kill().unwrap();
                child.wait().unwrap();
                panic!("{args:?} with {var} not UTF-8: the server started");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let mut stdout = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("{var} is not UTF-8")),
            "{args:?}: {stderr}"
        );
        assert!(
            !stderr.contains("listening") && stdout.is_empty(),
            "{stdout}{stderr}"
        );
    }
    let _ = std::fs::remove_file(&db);
}
