fn main() {
    let _ = forms_runtime::form! {
        message: "Set up your weekly report",
        questions: [ { id: "data", type: files, title: "Upload your data", required: false,
                       minItems: 3, maxItems: 2 } ],
    };
}
