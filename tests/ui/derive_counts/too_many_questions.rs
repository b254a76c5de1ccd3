use forms_runtime::Form;

#[derive(Form)]
#[form(message = "Set up your weekly report")]
struct Setup {
    /// Question 1
    q1: Option<String>,
    /// Question 2
    q2: Option<String>,
    /// Question 3
    q3: Option<String>,
    /// Question 4
    q4: Option<String>,
    /// Question 5
    q5: Option<String>,
    /// Question 6
    q6: Option<String>,
    /// Question 7
    q7: Option<String>,
    /// Question 8
    q8: Option<String>,
    /// Question 9
    q9: Option<String>,
    /// Question 10
    q10: Option<String>,
    /// Question 11
    q11: Option<String>,
    /// Question 12
    q12: Option<String>,
    /// Question 13
    q13: Option<String>,
}

fn main() {}
