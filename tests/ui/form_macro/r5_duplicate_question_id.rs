fn main() {
    let _ = forms_runtime::form! {
        message: "Set up your weekly report",
        questions: [
            { id: "goal", type: text, title: "Goal", required: false },
            { id: "goal", type: text, title: "Another goal", required: false },
        ],
    };
}
