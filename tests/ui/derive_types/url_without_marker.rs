use forms_runtime::Form;

use url::Url;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Template
    template: Url,
}

fn main() {}
