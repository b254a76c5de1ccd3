fn main() {
    let _ = forms_runtime::form! {
        message: "Choose a report template",
        questions: [ { id: "template", type: resource, title: "Template", required: false,
                       options: [ { uri: "https://example.com/t/1", name: "", title: "One" } ] } ],
    };
}
