fn main() {
    let count = 3;
    let _ = forms_runtime::form! {
        message: "Set up your weekly report",
        questions: [ { id: "goal", type: text, title: {count}, required: false } ],
    };
}
