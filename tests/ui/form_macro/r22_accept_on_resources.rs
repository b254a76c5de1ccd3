fn main() {
    let _ = forms_runtime::form! {
        message: "Choose report templates",
        questions: [ { id: "templates", type: resources, title: "Templates", required: false,
                       accept: [".pdf"],
                       options: [ { uri: "https://example.com/t/1", name: "one", title: "One" } ] } ],
    };
}
