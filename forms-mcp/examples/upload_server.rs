//! An rmcp tool server whose form a core form cannot carry whole: a `files` question, a
//! resource card with a picture and choices with pictures and descriptions. On a host with
//! the extension the form is asked natively; on a host with core URL-mode elicitation only
//! (protocol 2025-11-25) it is asked on the person's page, served by this process on
//! 127.0.0.1 ([`forms_mcp::FormAsker::with_url_mode`], on by default). The tool answers with
//! what it got: the format, the template and each added file's path and size.
//!
//! ```text
//! cargo run -p forms-mcp --example upload_server
//! ```

use forms_mcp::{error_response, Asked, FormAsker, FormCall};
use forms_runtime::data::{Image, ResourceOption};
use forms_runtime::{FileRef, Form, Outcome, Url};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, ProtocolVersion};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use std::borrow::Cow;

/// The quarter's data the tool asks for.
#[derive(Form, Debug)]
#[form(message = "Send the quarter's data")]
struct Upload {
    #[form(title = "Report format")]
    format: Format,
    #[form(resource, title = "Report template")]
    template: Option<Url>,
    #[form(files, title = "The quarter's data", accept = [".csv", "text/csv"], required)]
    data: Vec<FileRef>,
}

/// Report format
#[derive(Form, Debug, Clone, Copy)]
enum Format {
    #[form(
        title = "PDF",
        description = "Printable, paginated",
        thumbnail = "https://example.com/pictures/pdf.png"
    )]
    Pdf,
    #[form(title = "Web page", description = "Interactive charts")]
    Html,
}

#[derive(Clone)]
struct UploadServer {
    forms: FormAsker,
    tool_router: ToolRouter<UploadServer>,
}

fn text(text: String) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text)]).into()
}

#[tool_router]
impl UploadServer {
    /// Asks for the quarter's data and says what arrived.
    #[tool]
    async fn send_data(&self, ask: FormCall) -> CallToolResponse {
        let mut review = ResourceOption::new(
            "https://example.com/templates/review",
            "review",
            "Business review",
        );
        review.description = Some("Slides for the quarterly review".into());
        review.thumbnail = Some(Image::new("https://example.com/pictures/review.png"));
        let form = match Upload::build(UploadParts {
            template: vec![review],
        }) {
            Ok(form) => form,
            Err(error) => return error_response(&error),
        };
        let upload = match self.forms.ask_typed(&form, &ask).await {
            Asked::InputRequired(result) => return result.into(),
            Asked::Done(Ok(Outcome::Accepted(upload))) => upload,
            Asked::Done(Ok(outcome)) => {
                return text(serde_json::json!({"outcome": format!("{outcome:?}")}).to_string())
            }
            Asked::Done(Err(error)) => return error_response(&error),
        };
        let files: Vec<serde_json::Value> = upload
            .data
            .iter()
            .map(|file| {
                let path = file.local_path().map(|p| p.display().to_string());
                serde_json::json!({"uri": file.uri(), "path": path})
            })
            .collect();
        text(
            serde_json::json!({
                "format": format!("{:?}", upload.format),
                "template": upload.template.map(|t| t.to_string()),
                "files": files,
            })
            .to_string(),
        )
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for UploadServer {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        rmcp::model::ServerConfig::new(
            rmcp::model::ServerCapabilities::builder()
                .enable_tools()
                .build(),
        )
        .with_server_info(rmcp::model::Implementation::new(
            "upload-example",
            env!("CARGO_PKG_VERSION"),
        ))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let forms = FormAsker::new(forms_mcp::config::timeout_from_env()?);
    UploadServer {
        forms,
        tool_router: UploadServer::tool_router(),
    }
    .serve(forms_mcp::transport::keep(rmcp::transport::stdio()))
    .await?
    .waiting()
    .await?;
    Ok(())
}
