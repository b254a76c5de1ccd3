fn main() {
    let _ = forms_runtime::form! {
        message: "Set up your weekly report",
        questions: [ { id: "9x", type: text, title: "Goal", required: false } ],
    };
}
