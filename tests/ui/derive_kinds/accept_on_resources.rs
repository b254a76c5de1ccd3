use forms_runtime::Form;

use url::Url;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Templates
    #[form(resources, accept = [".pdf"])]
    templates: Vec<Url>,
}

fn main() {}
