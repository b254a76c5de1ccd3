fn main() {
    let max: i64 = 200;
    let _ = forms_runtime::form! {
        message: "Set up your weekly report",
        questions: [ { id: "goal", type: text, title: "Goal", required: false, maxLength: {max} } ],
    };
}
