//! Secrets written and compared: the one hex encoder and the one constant-time comparison of
//! this crate and of the host's page server.

/// `bytes` as lowercase hex.
///
/// ```
/// assert_eq!(forms_mcp::secret::hex(&[0x00, 0xab, 0x7f]), "00ab7f");
/// ```
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut text = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        // Writing into a String cannot fail.
        let _ = write!(text, "{b:02x}");
    }
    text
}

/// `N` random bytes from the system's source, as lowercase hex.
pub fn random_hex<const N: usize>() -> std::io::Result<String> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(std::io::Error::other)?;
    Ok(hex(&bytes))
}

/// Whether two byte strings are equal, in a time that depends on their lengths only, not on
/// where they differ.
///
/// ```
/// use forms_mcp::secret::same;
/// assert!(same(b"secret", b"secret"));
/// assert!(!same(b"secret", b"secreT"));
/// assert!(!same(b"secret", b"secrets"));
/// ```
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
