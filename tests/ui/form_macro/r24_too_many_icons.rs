fn main() {
    let _ = forms_runtime::form! {
        message: "Choose a report template",
        questions: [
            { id: "template", type: resource, title: "Relevant report templates", required: false,
              options: [ { uri: "https://example.com/t", name: "review", title: "Document · Review",
                           icons: [ { src: "https://example.com/1.png" },
                                    { src: "https://example.com/2.png" },
                                    { src: "https://example.com/3.png" } ] } ] },
        ],
    };
}
