fn main() {
    let title = "Goal";
    let _ = forms_runtime::form! {
        message: "Set up your weekly report",
        questions: [ { id: "goal", type: text, title: title, required: false } ],
    };
}
