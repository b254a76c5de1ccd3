fn main() {
    let _ = forms_runtime::form! {
        message: "Set up your weekly report",
        questions: [
            { id: "sections", type: multi_select, title: "Sections", required: false, maxItems: 3,
              options: [ { id: "summary", title: "Summary" }, { id: "charts", title: "Charts" } ] },
        ],
    };
}
