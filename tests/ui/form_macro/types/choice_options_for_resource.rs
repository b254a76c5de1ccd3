use forms_runtime::data::ChoiceOption;

fn main() {
    let options: Vec<ChoiceOption> = Vec::new();
    let _ = forms_runtime::form! {
        message: "Choose a report template",
        questions: [ { id: "template", type: resource, title: "Relevant report templates",
                       required: false, options: {options} } ],
    };
}
