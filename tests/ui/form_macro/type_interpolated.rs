fn main() {
    let kind = "text";
    let _ = forms_runtime::form! {
        message: "Set up your weekly report",
        questions: [ { id: "goal", type: {kind}, title: "Goal", required: false } ],
    };
}
