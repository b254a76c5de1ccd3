// A misspelt key gets a suggestion, and the key it stands for is not also reported missing.
fn main() {
    let _ = forms_runtime::form! {
        message: "Set up your weekly report",
        questions: [
            { id: "goal", type: text, titel: "Goal", required: false },
            { id: "format", type: single_select, title: "Format", required: true,
              option: [ { id: "pdf", title: "PDF" } ] },
        ],
    };
}
