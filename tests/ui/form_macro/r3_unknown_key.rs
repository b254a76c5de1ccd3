fn main() {
    let _ = forms_runtime::form! {
        message: "Set up your weekly report",
        questions: [ { id: "goal", type: text, title: "Goal", required: false, max_length: 200 } ],
    };
}
