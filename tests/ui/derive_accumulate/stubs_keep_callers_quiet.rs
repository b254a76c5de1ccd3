use forms_runtime::{Form, Outcome};

use url::Url;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Goal
    #[form(id = "the goal")]
    goal: String,
    /// Template
    #[form(resource)]
    template: Option<Url>,
}

#[derive(Form)]
#[form(message = "Pick one")]
enum Format {
    #[form(id = "")]
    Pdf,
}

fn main() {
    // The derive failed, yet these calls type-check against its stub impls: the only errors
    // are the derive's own.
    let form = Setup::build(SetupParts { template: vec![] }).unwrap();
    if let Ok(Outcome::Accepted(setup)) = form.decode("{}") {
        let _: String = setup.goal;
    }
    let _ = Format::build(());
}
