fn main() {
    let _ = forms_runtime::form! {
        message: "Choose a report template",
        questions: [
            { id: "template", type: resource, title: "Relevant report templates", required: false,
              options: [ { uri: "https://example.com/t/1", name: "one", title: "Document · One" },
                         { uri: "https://example.com/t/1", name: "two", title: "Document · Two" } ] },
        ],
    };
}
