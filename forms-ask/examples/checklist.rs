//! A form that waits: a typed release checklist, answered by a second process, decoded
//! into the Rust type by the asking side after it restarted.
//!
//! ```text
//! cargo run -p forms-ask --example checklist                    # a SQLite file in a temp dir
//! cargo run -p forms-ask --example checklist -- postgres://…    # or a PostgreSQL database
//! ```
//!
//! The agent opens a question carrying the derived form `Checklist` and lets go of it (its
//! process could exit). A second process (this program again, as `ana`) first sends an
//! answer the form refuses (a third platform, over `max_items = 2`: nothing is saved), then a
//! valid host response. The agent, with a fresh engine, rebuilds the handle from the request
//! ID and the type, and prints the typed result.

use forms_ask::{AskError, Asks, ConversationId, FormRequest, NewRequest, Principal, RequestId};
use forms_runtime::{Form, Outcome, StaticForm};
use std::process::{Command, ExitCode};
use std::time::Duration;

/// The release checklist.
#[derive(Form, Debug)]
#[form(message = "Release 1.4 checklist")]
struct Checklist {
    /// Is the changelog written?
    changelog: Done,
    /// Platforms tested
    #[form(max_items = 2)]
    platforms: Vec<Platform>,
    /// Anything the release manager should know?
    #[form(max_length = 500)]
    notes: Option<String>,
}

#[derive(Form, Debug)]
enum Done {
    Yes,
    No,
}

#[derive(Form, Debug)]
#[form(rename_all = "snake_case")]
enum Platform {
    Linux,
    Mac,
    Windows,
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("checklist: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        // The person's side: `checklist answer DB ID`.
        [cmd, db, id] if cmd == "answer" => answer(db, &RequestId::new(id.as_str())?),
        [] | [_] => ask(args.first()),
        _ => Err("usage: checklist [DB-URL] | checklist answer DB ID".into()),
    }
}

/// Ana reads the request and answers with the version she read, as a host would.
fn answer(db: &str, id: &RequestId) -> Result<(), Box<dyn std::error::Error>> {
    let pid = std::process::id();
    let asks = Asks::open_location(db)?;
    let ana = asks.as_principal(&Principal::new("ana")?);
    let request = ana.show(id)?;
    println!("[ana, pid {pid}] read: {request}");
    let too_many = r#"{"action":"accept","content":{"changelog":"Yes","platforms":["linux","mac","windows"]}}"#;
    match ana.respond_form(id, request.version, too_many, "ana-1") {
        Err(AskError::Form(refused)) => {
            println!("[ana, pid {pid}] refused, nothing saved: {refused}");
        }
        other => return Err(format!("expected a refusal, got {other:?}").into()),
    }
    let response = r#"{"action":"accept","content":{"changelog":"Yes","platforms":["linux","mac"],"notes":"Windows build tomorrow"}}"#;
    let saved = ana.respond_form(id, request.version, response, "ana-2")?;
    println!("[ana, pid {pid}] saved: {saved}");
    Ok(())
}

/// The agent's side: opens the form, lets a second process answer, resumes and decodes.
fn ask(location: Option<&String>) -> Result<(), Box<dyn std::error::Error>> {
    let (db, _dir) = match location {
        Some(url) => (url.clone(), None),
        None => {
            let dir =
                std::env::temp_dir().join(format!("forms-ask-checklist-{}", std::process::id()));
            std::fs::create_dir_all(&dir)?;
            (
                dir.join("asks.db").display().to_string(),
                Some(TempDir(dir)),
            )
        }
    };
    let pid = std::process::id();
    let chat = ConversationId::new(format!("release-{pid}"))?;
    let agent = Principal::new("agent")?;
    let id = {
        let asks = Asks::open_location(&db)?;
        asks.join(&chat, &agent)?;
        asks.join(&chat, &Principal::new("ana")?)?;
        let pending = asks.as_principal(&agent).open_form(
            &chat,
            &Checklist::form(),
            NewRequest::question("When you are back, fill in the release checklist")
                .title("Release 1.4"),
            &format!("open-{pid}"),
        )?;
        println!("[agent, pid {pid}] opened: {}", pending.request());
        pending.id().clone()
        // The engine is dropped here: the request lives on in the store.
    };

    let status = Command::new(std::env::current_exe()?)
        .args(["answer", &db, id.as_str()])
        .status()?;
    if !status.success() {
        return Err("the answering process failed".into());
    }

    // A fresh engine: the handle is rebuilt from the ID and the type alone.
    let asks = Asks::open_location(&db)?;
    let me = asks.as_principal(&agent);
    let pending = FormRequest::<Checklist>::resume(&me, &id)?;
    let reply = pending.wait(&me, Duration::from_secs(10))?;
    match reply.outcome {
        Some(Outcome::Accepted(checklist)) => {
            println!("[agent, pid {pid}] decoded: {checklist:?}");
            let ready = matches!(checklist.changelog, Done::Yes) && checklist.platforms.len() == 2;
            println!(
                "[agent, pid {pid}] ready to ship: {ready}; notes: {}",
                checklist.notes.as_deref().unwrap_or("none")
            );
        }
        Some(other) => println!("[agent, pid {pid}] the person answered: {}", other.action()),
        None => println!("[agent, pid {pid}] no answer yet: {}", reply.request),
    }
    Ok(())
}

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
