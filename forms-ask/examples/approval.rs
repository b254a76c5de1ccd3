//! An approval that outlives the process that asked for it.
//!
//! ```text
//! cargo run -p forms-ask --example approval                    # a SQLite file in a temp dir
//! cargo run -p forms-ask --example approval -- postgres://…    # or a PostgreSQL database
//! ```
//!
//! The agent opens an approval and exits. A second process (this program again, as `ana`)
//! approves it. A third (as `bob`, who read the request before ana answered) responds late
//! with the version he saw: he gets a conflict carrying the winner's state, and nothing is
//! overwritten.

use forms_ask::{AskError, Asks, ConversationId, NewRequest, Outcome, Principal, RequestId};
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("approval: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        // The responders: `approval respond DB WHO OUTCOME ID VERSION`.
        [cmd, db, who, outcome, id, version] if cmd == "respond" => {
            let asks = Asks::open_location(db)?;
            let me = Principal::new(who.as_str())?;
            let outcome = Outcome::parse(outcome).ok_or("unknown outcome")?;
            let id = RequestId::new(id.as_str())?;
            let key = format!("{who}-responds-to-{id}");
            match asks
                .as_principal(&me)
                .respond(&id, version.parse()?, outcome, None, &key)
            {
                Ok(r) => println!("[{who}, pid {}] recorded: {r}", std::process::id()),
                Err(AskError::Conflict { latest }) => println!(
                    "[{who}, pid {}] conflict, nothing overwritten; the latest state is: {latest}",
                    std::process::id()
                ),
                Err(e) => return Err(e.into()),
            }
            Ok(())
        }
        [] | [_] => {
            let (db, _dir) = match args.first() {
                Some(url) => (url.clone(), None),
                None => {
                    let dir = std::env::temp_dir()
                        .join(format!("forms-ask-example-{}", std::process::id()));
                    std::fs::create_dir_all(&dir)?;
                    (
                        dir.join("asks.db").display().to_string(),
                        Some(TempDir(dir)),
                    )
                }
            };
            let run_id = std::process::id();
            let chat = ConversationId::new(format!("release-{run_id}"))?;
            let asks = Asks::open_location(&db)?;
            let [agent, ana, bob] = ["agent", "ana", "bob"].map(Principal::new);
            let (agent, ana, bob) = (agent?, ana?, bob?);
            for p in [&agent, &ana, &bob] {
                asks.join(&chat, p)?;
            }
            let request = asks.as_principal(&agent).open(
                &chat,
                NewRequest::approval("Deploy release 1.4 to staging?").title("Staging deploy"),
                &format!("open-{run_id}"),
            )?;
            println!("[agent, pid {run_id}] opened: {request}");
            drop(asks); // the agent's process could exit here: the request is on disk

            let me = std::env::current_exe()?;
            let respond = |who: &str, outcome: &str| -> Result<(), Box<dyn std::error::Error>> {
                let status = Command::new(&me)
                    .args(["respond", &db, who, outcome, request.id.as_str(), "1"])
                    .status()?;
                if status.success() {
                    Ok(())
                } else {
                    Err(format!("the {who} process failed").into())
                }
            };
            respond("ana", "approved")?; // a second process approves
            respond("bob", "denied")?; // a third, late, with the version he read

            let asks = Asks::open_location(&db)?;
            let done = asks.as_principal(&agent).show(&request.id)?;
            println!("[agent, pid {run_id}] final: {done}");
            for e in asks
                .as_principal(&agent)
                .log(&request.id, None, 200)?
                .events
            {
                let actor = e.actor.as_ref().map_or("engine", |p| p.as_str());
                println!(
                    "  audit: {} {:?} by {actor} -> {} v{}",
                    e.at, e.event, e.state, e.version
                );
            }
            Ok(())
        }
        _ => Err("usage: approval [DB-URL] | approval respond DB WHO OUTCOME ID VERSION".into()),
    }
}

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
