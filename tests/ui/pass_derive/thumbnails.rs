//! Thumbnails the contract accepts: HTTPS URLs, raster data URIs, and the signed-image host
//! exception for `sig` (R25, R26).
#![deny(warnings)]

use forms_runtime::{Form, FormChoice};

/// Pictures.
#[derive(Form, Debug)]
pub enum Picture {
    /// HTTPS
    #[form(thumbnail = "https://example.com/a.png")]
    Https,
    /// PNG data
    #[form(thumbnail = "data:image/png;base64,iVBORw0KGgo=")]
    Png,
    /// Signed image host
    #[form(thumbnail = "https://sdmntprwestus.oaiusercontent.com/files/a.png?sig=abc")]
    Signed,
}

fn main() {
    assert_eq!(
        Picture::Signed.meta().and_then(|m| m.thumbnail),
        Some("https://sdmntprwestus.oaiusercontent.com/files/a.png?sig=abc")
    );
}
