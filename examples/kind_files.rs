//! A `files` question: `Vec<FileRef>` with `#[form(files)]`. The person picks offered files or
//! adds their own; `FileRef` tells an offered URI from a local path. `accept` filters the
//! picker (extensions or MIME types).
//!
//! Run with `cargo run --example kind_files`.

use forms_runtime::data::ResourceOption;
use forms_runtime::{FileRef, Form, FormError, Outcome};

#[derive(Form, Debug)]
#[form(message = "Upload your data")]
struct Upload {
    /// Sales data
    #[form(files, offered, max_items = 3, accept = [".csv", "text/csv"])]
    data: Vec<FileRef>,
}

fn main() -> Result<(), FormError> {
    let offered = vec![ResourceOption::new(
        "https://drive.example.com/files/q2-sales.csv",
        "q2-sales",
        "Spreadsheet · Q2 sales",
    )];
    let form = Upload::build(UploadParts { data: offered })?;
    println!("native request: {}", form.data().native_json());

    let response = r#"{"action":"accept","content":{"data":[
        "https://drive.example.com/files/q2-sales.csv",
        "file:///Users/me/Downloads/q3%20sales.csv"]}}"#;
    if let Outcome::Accepted(upload) = form.decode(response)? {
        for file in &upload.data {
            match file {
                FileRef::Offered(url) => println!("offered: {url}"),
                FileRef::Local { uri, path } => println!("local: {} ({uri})", path.display()),
            }
        }
    }

    // A user-added file must be a plain local `file:` URI (rule R27).
    let remote = r#"{"action":"accept","content":{"data":["file://server/share/q3.csv"]}}"#;
    if let Err(e) = form.decode(remote) {
        println!("refused: {e}");
    }
    Ok(())
}
