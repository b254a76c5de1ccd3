//! The AsyncRead tee: a reader that hands its bytes on and looks at each line as rmcp frames it.

use super::kept::Answers;
use super::scan::{find, Found};
use rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};

/// A reader that hands its bytes on unchanged and looks at each complete line (framed as
/// rmcp frames it: up to `\n`, without a final `\r` or a leading byte order mark).
pub(super) struct LineTee<R> {
    pub(super) inner: R,
    pub(super) line: Vec<u8>,
    /// The current line is longer than rmcp's limit; rmcp drops it, and so does this.
    pub(super) overflow: bool,
    pub(super) answers: Arc<Answers>,
}

impl<R> LineTee<R> {
    pub(super) fn look(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let end = bytes.iter().position(|b| *b == b'\n');
            let (part, rest) = match end {
                Some(at) => (bytes.get(..at).unwrap_or_default(), bytes.get(at + 1..)),
                None => (bytes, None),
            };
            if !self.overflow {
                if self.line.len().saturating_add(part.len()) >= DEFAULT_MAX_LINE_LENGTH {
                    self.overflow = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(part);
                }
            }
            match rest {
                Some(rest) => {
                    if !self.overflow {
                        self.read_line();
                    }
                    self.line.clear();
                    self.overflow = false;
                    bytes = rest;
                }
                None => break,
            }
        }
    }

    pub(super) fn read_line(&self) {
        let line = self.line.strip_suffix(b"\r").unwrap_or(&self.line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        // A response is kept only while an ask waits on the connection, and an input only
        // from a line that can name `inputResponses`: any other line is not read at all (a
        // call's arguments, the largest lines, arrive while no ask waits).
        if !may_hold_input(line) && !self.answers.waits_on("") {
            return;
        }
        match find(line) {
            Found::Result(id, result) => {
                self.answers.keep_result("", id, result);
            }
            Found::Input(id, input) => self.answers.keep_input(id, input),
            Found::Nothing => {}
        }
    }
}

/// Whether the JSON text `line` can have a member named `inputResponses`: it holds that
/// name as written, or a backslash (a key may spell the name with escapes, which rmcp's
/// reading decodes).
pub(super) fn may_hold_input(line: &[u8]) -> bool {
    const NAME: &[u8] = b"inputResponses";
    // `R` is the name's one capital: look for the name only where one stands.
    line.iter().enumerate().any(|(at, byte)| match byte {
        b'\\' => true,
        b'R' => at
            .checked_sub(5)
            .and_then(|start| line.get(start..))
            .is_some_and(|rest| rest.starts_with(NAME)),
        _ => false,
    })
}

impl<R: AsyncRead + Unpin> AsyncRead for LineTee<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = poll {
            let read = buf.filled().get(before..).unwrap_or_default();
            this.look(read);
        }
        poll
    }
}

#[cfg(test)]
mod tests {
    use super::super::kept::Capture;
    use super::*;
    use rmcp::model::{ClientResult, RequestId};

    #[test]
    fn looks_at_lines_as_rmcp_frames_them() {
        let answers = Arc::new(Answers::default());
        let mut tee = LineTee {
            inner: tokio::io::empty(),
            line: Vec::new(),
            overflow: false,
            answers: answers.clone(),
        };
        let capture = Capture {
            answers: answers.clone(),
            connection: Arc::from(""),
            typed: false,
        };
        // Nothing is kept while no ask waits.
        tee.look(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"cancel\"}}\n");
        assert!(answers.connections().is_empty());
        let waiting = capture.wait();
        // A line in pieces, with a carriage return and a byte order mark.
        tee.look(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":2,");
        tee.look(b"\"result\":{\"action\":\"decline\",\"extra\":true}}\r\n{\"jsonrpc\"");
        let delivered: ClientResult =
            serde_json::from_str(r#"{"action":"decline","extra":true}"#).unwrap();
        let raw = waiting.take(&RequestId::Number(2), &delivered).unwrap();
        assert_eq!(raw.get(), r#"{"action":"decline","extra":true}"#);
        // Taken once.
        assert!(waiting.take(&RequestId::Number(2), &delivered).is_none());
        // A kept result is handed out only for what rmcp delivered from it.
        tee.look(b":\"2.0\",\"id\":4,\"result\":{\"action\":\"accept\",\"content\":null}}\n");
        let other: ClientResult = serde_json::from_str(r#"{"action":"decline"}"#).unwrap();
        assert!(waiting.take(&RequestId::Number(4), &other).is_none());
        // rmcp delivers `{"action":"accept"}` for it; the text kept is the one sent.
        let same: ClientResult = serde_json::from_str(r#"{"action":"accept"}"#).unwrap();
        assert!(waiting.take(&RequestId::Number(5), &same).is_none());
        assert_eq!(
            waiting.take(&RequestId::Number(4), &same).unwrap().get(),
            r#"{"action":"accept","content":null}"#
        );
        drop(waiting);
        assert!(answers.connections().is_empty());
    }

    #[test]
    fn reads_every_line_that_can_name_input_responses() {
        for line in [
            r#"{"params":{"inputResponses":{}}}"#,
            r#"{"params":{"input\u0052esponses":{}}}"#,
            r#"{"params":{"\u0069nputResponses":{}}}"#,
            r#"{"a":"\n"}"#,
            "inputResponses",
        ] {
            assert!(may_hold_input(line.as_bytes()), "{line}");
        }
        for line in [
            r#"{"params":{"arguments":{"title":"Report format"}}}"#,
            r#"{"params":{"inputresponses":{},"Responses":1}}"#,
            "nputResponses",
            "R",
            "",
        ] {
            assert!(!may_hold_input(line.as_bytes()), "{line}");
        }
        // An escaped key is read as rmcp reads it, with no ask waiting.
        let answers = Arc::new(Answers::default());
        let mut tee = LineTee {
            inner: tokio::io::empty(),
            line: Vec::new(),
            overflow: false,
            answers: answers.clone(),
        };
        tee.look(
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","input\u0052esponses":{"form":{"action":"cancel"}}}}"#,
        );
        tee.look(b"\n");
        assert_eq!(
            answers.take_input(&RequestId::Number(7)).unwrap().get(),
            r#"{"action":"cancel"}"#
        );
    }
}
