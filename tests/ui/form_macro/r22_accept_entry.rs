fn main() {
    let _ = forms_runtime::form! {
        message: "Set up your weekly report",
        questions: [ { id: "data", type: files, title: "Upload your data", required: false,
                       accept: [".csv", "csv"] } ],
    };
}
