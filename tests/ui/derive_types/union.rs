use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
union Setup {
    a: u32,
    b: f32,
}

fn main() {}
