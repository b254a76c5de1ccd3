fn main() {
    let _ = forms_runtime::form! {
        message: "Set up your weekly report",
        questions: [ { id: "goal", type: textarea, title: "Goal", required: false } ],
    };
}
