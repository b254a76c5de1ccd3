use forms_runtime::Form;

use url::Url;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Templates
    #[form(resources)]
    templates: Option<Url>,
}

fn main() {}
