use forms_runtime::Form;
use url::Url;

/// Where to go
#[derive(Form)]
#[form(message = "Plan the trip")]
struct Trip {
    /// Destination
    #[form(resource)]
    destination: Url,
}

fn main() {
    let _form = Trip::form();
}
