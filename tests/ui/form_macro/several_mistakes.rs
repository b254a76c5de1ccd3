fn main() {
    let _ = forms_runtime::form! {
        message: "",
        questions: [
            { id: "9x", type: text, title: "Goal", required: false, maxLength: 0 },
            { id: "format", type: single_select, title: "Report format",
              options: [ { id: "pdf", title: "PDF" }, { id: "pdf", title: "Also PDF" } ] },
            { id: "data", type: files, title: "Upload your data", required: false,
              accept: [], default: [] },
        ],
        extra: true,
    };
}
