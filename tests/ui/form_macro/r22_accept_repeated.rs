fn main() {
    let _ = forms_runtime::form! {
        message: "Upload your data",
        questions: [ { id: "data", type: files, title: "Data files", required: false,
                       accept: [".csv", "text/csv", ".CSV"] } ],
    };
}
