fn main() {
    let _ = forms_runtime::form! {
        message: "Set up your weekly report",
        questions: [
            { id: "q1", type: text, title: "One", required: false },
            { id: "q2", type: text, title: "Two", required: false },
            { id: "q3", type: text, title: "Three", required: false },
            { id: "q4", type: text, title: "Four", required: false },
            { id: "q5", type: text, title: "Five", required: false },
            { id: "q6", type: text, title: "Six", required: false },
            { id: "q7", type: text, title: "Seven", required: false },
            { id: "q8", type: text, title: "Eight", required: false },
            { id: "q9", type: text, title: "Nine", required: false },
            { id: "q10", type: text, title: "Ten", required: false },
            { id: "q11", type: text, title: "Eleven", required: false },
            { id: "q12", type: text, title: "Twelve", required: false },
            { id: "q13", type: text, title: "Thirteen", required: false },
        ],
    };
}
