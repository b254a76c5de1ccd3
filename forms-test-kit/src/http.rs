//! Raw HTTP/1.1 over loopback, for tests that send what no well-behaved client would: forged
//! headers, bodies longer than allowed, requests cut short.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// Sends `head` (the request line and header lines, with the blank line that ends them) and
/// then `body` over a fresh connection to 127.0.0.1:`port`, and reads the reply until the
/// server closes the connection, waiting at most `patience` for each read. Returns what was
/// read and how the reading ended (an error when the server reset the connection or went
/// quiet for longer than `patience`).
pub fn exchange(
    port: u16,
    head: &str,
    body: &[u8],
    patience: Duration,
) -> (Vec<u8>, std::io::Result<usize>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(patience)).unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut raw = Vec::new();
    let ended = stream.read_to_end(&mut raw);
    (raw, ended)
}
