use forms_runtime::{Form, StaticForm};
use url::Url;

/// Where to go
#[derive(Form)]
#[form(message = "Plan the trip")]
struct Trip {
    /// Destination
    #[form(resource)]
    destination: Url,
}

/// What `FormAsker::ask::<T>` asks of `T`.
fn ask<T: StaticForm>() {}

fn main() {
    ask::<Trip>();
}
