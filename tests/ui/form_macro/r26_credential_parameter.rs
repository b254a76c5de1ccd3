fn main() {
    let _ = forms_runtime::form! {
        message: "Choose a report template",
        questions: [
            { id: "template", type: resource, title: "Relevant report templates", required: false,
              options: [ { uri: "https://example.com/t?api_key=123", name: "review",
                           title: "Document · Review" } ] },
        ],
    };
}
