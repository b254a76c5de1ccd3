//! `forms-mcp`: serves the Data form tool `form_elicitation_v2_request` over MCP.

use forms_mcp::config::timeout_from_env;
use forms_mcp::{http, FormsServer};
use rmcp::ServiceExt;
use std::net::SocketAddr;
use std::process::ExitCode;

const HELP: &str = "\
forms-mcp: serves the MCP tool form_elicitation_v2_request, which asks the user a native
form through the host (openai/elicitation/create) and returns the checked answer.

Usage:
  forms-mcp                       serve over stdio (newline-delimited JSON-RPC)
  forms-mcp --http 127.0.0.1:PORT serve streamable HTTP at http://127.0.0.1:PORT/mcp
                                  (PORT 0 picks a free port; the address is printed on
                                  stderr as `listening on http://127.0.0.1:PORT/mcp`)
  forms-mcp --help                this text
  forms-mcp --version             the version

Environment:
  DATA_FORMS_TIMEOUT_MS  how long a call waits for the submission, an integer from 1 to
                         1500000 milliseconds; default 900000 (15 minutes). An invalid
                         value stops the server at start.
  FORMS_STATE_KEY        the key sealing multi-round-trip request states (protocol
                         2026-07-28), at least 32 bytes written in hex; instances behind
                         one load balancer need the same key. Default: random per process.

The client must advertise capabilities.extensions[\"openai/elicitation\"].form; the server
speaks MCP protocol versions up to 2026-07-28 (multi-round-trip requests from 2026-07-28,
mid-call openai/elicitation/create requests before).
";

enum Mode {
    Stdio,
    Http(SocketAddr),
    Help,
    Version,
}

fn parse_args(args: &[String]) -> Result<Mode, String> {
    match args {
        [] => Ok(Mode::Stdio),
        [flag] if flag == "--help" || flag == "-h" => Ok(Mode::Help),
        [flag] if flag == "--version" || flag == "-V" => Ok(Mode::Version),
        [flag, addr] if flag == "--http" => addr
            .parse()
            .map(Mode::Http)
            .map_err(|_| format!("`--http` takes an address such as 127.0.0.1:8080, got {addr:?}")),
        [flag] if flag == "--http" => {
            Err("`--http` takes an address such as 127.0.0.1:8080".to_owned())
        }
        [other, ..] => Err(format!(
            "unexpected argument {other:?}; see `forms-mcp --help`"
        )),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = match parse_args(&args) {
        Ok(mode) => mode,
        Err(message) => {
            eprintln!("forms-mcp: {message}");
            return ExitCode::from(2);
        }
    };
    match mode {
        Mode::Help => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Mode::Version => {
            println!("forms-mcp {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Mode::Stdio | Mode::Http(_) => {}
    }
    let timeout = match timeout_from_env() {
        Ok(timeout) => timeout,
        Err(error) => {
            eprintln!("forms-mcp: {error}");
            return ExitCode::from(2);
        }
    };
    let server = match forms_mcp::state::state_key_from_env()
        .and_then(|key| FormsServer::with_state_key(timeout, &key))
    {
        Ok(server) => server,
        Err(error) => {
            eprintln!("forms-mcp: {error}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("forms-mcp: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        match mode {
            Mode::Http(addr) => run_http(server, addr).await,
            _ => run_stdio(server).await,
        }
    })
}

async fn run_stdio(server: FormsServer) -> ExitCode {
    let running = match server.serve(rmcp::transport::stdio()).await {
        Ok(running) => running,
        Err(error) => {
            eprintln!("forms-mcp: the client did not initialize: {error}");
            return ExitCode::FAILURE;
        }
    };
    match running.waiting().await {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("forms-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run_http(server: FormsServer, addr: SocketAddr) -> ExitCode {
    let listener = match http::bind(addr).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("forms-mcp: cannot listen on {addr}: {error}");
            return ExitCode::FAILURE;
        }
    };
    let local = listener.local_addr().unwrap_or(addr);
    eprintln!("listening on http://{local}{}", http::ENDPOINT);
    let shutdown = tokio_util::sync::CancellationToken::new();
    let on_signal = shutdown.clone();
    tokio::spawn(async move {
        let _ = tokio::signal::ctrl_c().await;
        on_signal.cancel();
    });
    match http::serve(server, listener, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("forms-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}
