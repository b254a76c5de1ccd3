//! The host answer both benchmarks read (the 12-question answer of `decode.rs`'s form), and
//! the plain struct of `String`s it is read into when nothing is checked.

use serde::Deserialize;

/// An accepted answer to `decode.rs`'s form.
pub const ANSWER: &str = r#"{"action":"accept","content":{"goal":"Why did churn rise in EMEA during the second quarter, and which segments drove it?","notes":"Please compare against the same quarter last year and call out any pricing changes. The board meets on Thursday, so the summary must fit on one slide.","audience":"Leadership team and regional sales leads","format":"slides","tone":"formal","sections":["executive_summary","churn","retention_cohorts","outlook"],"regions":["emea","north-america"],"template":"https://docs.example.com/templates/board-pack","dashboard":"https://sites.example.com/churn-dashboard","examples":["https://docs.example.com/reports/2024-w03","https://docs.example.com/reports/2024-w05"],"data":["https://drive.example.com/files/q2-sales.csv","file:///Users/me/Downloads/q2%20churn%20by%20segment.csv"],"appendix":["file:///Users/me/Documents/pricing-changes.pdf"]}}"#;

/// The same answer, read with no checks at all.
#[derive(Deserialize)]
#[allow(dead_code)]
pub struct PlainResponse {
    pub action: String,
    pub content: PlainContent,
}

#[derive(Deserialize)]
#[allow(dead_code)]
pub struct PlainContent {
    pub goal: String,
    pub notes: Option<String>,
    pub audience: String,
    pub format: String,
    pub tone: Option<String>,
    pub sections: Vec<String>,
    pub regions: Vec<String>,
    pub template: Option<String>,
    pub dashboard: String,
    pub examples: Vec<String>,
    pub data: Vec<String>,
    pub appendix: Vec<String>,
}
