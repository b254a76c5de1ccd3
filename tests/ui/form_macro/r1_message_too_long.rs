fn main() {
    let _ = forms_runtime::form! {
        message: "Please tell us everything you would like the weekly report to cover, in full detail",
        questions: [ { id: "goal", type: text, title: "Goal", required: false } ],
    };
}
