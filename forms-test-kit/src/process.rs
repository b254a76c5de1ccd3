//! Spawning a built server and reading the address it prints; running a command on given
//! standard input.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// A server child process and the URL it printed (`listening on URL`); killed on drop.
pub struct Server {
    /// The process.
    pub child: Child,
    /// The URL from its first line of standard error.
    pub url: String,
}

impl Server {
    /// Starts `program --http 127.0.0.1:0 ARGS…` with `envs`, standard input and output
    /// closed, and reads the address from the first line of its standard error (the rest is
    /// drained by a thread, so the server never blocks on it).
    pub fn http(program: &Path, args: &[&str], envs: &[(&str, &str)]) -> Server {
        let mut command = Command::new(program);
        command.args(["--http", "127.0.0.1:0"]).args(args);
        for (k, v) in envs {
            command.env(k, v);
        }
        Server::start(command)
    }

    /// Starts `command` (standard input and output closed, standard error read) and reads the
    /// address it prints on its first line of standard error.
    pub fn start(mut command: Command) -> Server {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{command:?} does not start: {e}"));
        let url = read_address(&mut child);
        Server { child, url }
    }

    /// The `host:port` of the URL.
    pub fn authority(&self) -> &str {
        let rest = self.url.split_once("://").map_or(&*self.url, |(_, r)| r);
        rest.split('/').next().unwrap_or(rest)
    }

    /// The port of the URL.
    pub fn port(&self) -> u16 {
        let authority = self.authority();
        let port = authority.rsplit(':').next().unwrap_or(authority);
        port.parse()
            .unwrap_or_else(|_| panic!("no port in {}", self.url))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads `listening on URL` from the first line of `child`'s piped standard error, returns
/// the URL and keeps draining the rest in a thread.
pub fn read_address(child: &mut Child) -> String {
    let stderr = child
        .stderr
        .take()
        .expect("the child's standard error is piped");
    let mut lines = BufReader::new(stderr).lines();
    let line = lines
        .next()
        .expect("no address printed")
        .expect("standard error is readable");
    std::thread::spawn(move || for _ in lines {});
    line.strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned()
}

/// Runs `command` with `stdin` on its standard input and returns its exit status and output.
/// The input is written from a thread, so a large input cannot dead-lock against the output
/// pipes; a command may legitimately stop reading early, so a write error is ignored.
pub fn output_with_stdin(command: &mut Command, stdin: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

/// Runs `command`, which must start (else the test fails with `cannot`, what to install) and
/// succeed (else with `what` and its standard error); its output.
pub fn succeeded(command: &mut Command, cannot: &str, what: &str) -> Output {
    let output = command.stdin(Stdio::null()).output().expect(cannot);
    assert!(
        output.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Runs `command` with standard input closed and returns its exit status (a process ended by
/// a signal fails the test), standard output and standard error, as UTF-8.
pub fn run(command: &mut Command) -> (i32, String, String) {
    let out = command.stdin(Stdio::null()).output().unwrap();
    (
        out.status.code().expect("exited normally, not by a signal"),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A finished command: its exit status and its output as UTF-8.
pub struct Run {
    /// The exit status.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// The run of a finished process (one ended by a signal fails the test).
    pub fn of(output: Output) -> Run {
        Run {
            code: output
                .status
                .code()
                .expect("exited normally, not by a signal"),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }

    /// Asserts the exit status, showing both outputs when it differs.
    pub fn assert_code(&self, code: i32) {
        assert_eq!(
            self.code, code,
            "stdout: {} stderr: {}",
            self.stdout, self.stderr
        );
    }

    /// The single newline-terminated JSON line on standard output.
    pub fn json(&self) -> Value {
        assert!(
            self.stdout.ends_with('\n'),
            "output is not newline-terminated: {:?} {}",
            self.stdout,
            self.stderr
        );
        let line = self.stdout.trim_end_matches('\n');
        assert!(!line.contains('\n'), "output is not one line: {line}");
        serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Asserts exit status 0 and returns the JSON line.
    pub fn ok(&self) -> Value {
        self.assert_code(0);
        self.json()
    }

    /// Asserts exit status 1 with an `{"error": {"code", "message"}}` line of `code`, and
    /// returns the line.
    pub fn refused(&self, code: &str) -> Value {
        self.assert_code(1);
        let v = self.json();
        assert_eq!(v["error"]["code"], code, "{v}");
        assert!(v["error"]["message"].is_string(), "{v}");
        v
    }
}
