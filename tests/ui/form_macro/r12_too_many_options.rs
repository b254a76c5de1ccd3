fn main() {
    let _ = forms_runtime::form! {
        message: "Pick a letter",
        questions: [ { id: "letter", type: single_select, title: "Letter", required: true,
                       options: [ { id: "a", title: "A" }, { id: "b", title: "B" }, { id: "c", title: "C" }, { id: "d", title: "D" }, { id: "e", title: "E" }, { id: "f", title: "F" }, { id: "g", title: "G" }, { id: "h", title: "H" }, { id: "i", title: "I" }, { id: "j", title: "J" }, { id: "k", title: "K" }, { id: "l", title: "L" }, { id: "m", title: "M" }, { id: "n", title: "N" }, { id: "o", title: "O" }, { id: "p", title: "P" }, { id: "q", title: "Q" }, { id: "r", title: "R" }, { id: "s", title: "S" }, { id: "t", title: "T" }, { id: "u", title: "U" }, { id: "v", title: "V" }, { id: "w", title: "W" }, { id: "x", title: "X" }, { id: "y", title: "Y" } ] } ],
    };
}
