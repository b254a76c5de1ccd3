fn main() {
    let _ = forms_runtime::form! {
        message: "Set up your weekly report",
        questions: [ { id: "format", type: single_select, title: "Report format", required: true,
                       options: [ { id: "pdf", title: "PDF",
                                    thumbnail: { src: "https://me:secret@example.com/p.png" } } ] } ],
    };
}
