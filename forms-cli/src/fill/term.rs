//! The terminal of `forms fill`: raw mode and key reading through `crossterm`, and the
//! screen, written to `/dev/tty` (standard error when that cannot be opened).
//!
//! Keys are read from the terminal on standard input. `crossterm` tells a lone Esc from the
//! start of an escape sequence by whether more bytes came with it, so Esc never waits for,
//! or swallows, the key that follows it.

use super::{visible, FillError};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use std::io::Write;
use std::time::Duration;

/// A key read from the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Key {
    Char(char),
    Enter,
    Backspace,
    Up,
    Down,
    Left,
    Right,
    /// Ctrl-C.
    Interrupt,
    /// Ctrl-D.
    Decline,
    /// Any other key (Esc, Tab, function keys, other Ctrl and Alt chords…).
    Other,
}

impl Key {
    /// The key of a `crossterm` key event; `None` for a key release.
    fn of(event: KeyEvent) -> Option<Key> {
        if event.kind == KeyEventKind::Release {
            return None;
        }
        let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
        let alt = event.modifiers.contains(KeyModifiers::ALT);
        Some(match event.code {
            KeyCode::Char('c') if ctrl => Key::Interrupt,
            KeyCode::Char('d') if ctrl => Key::Decline,
            // Ctrl-J and Ctrl-M are line feed and carriage return; Ctrl-H is the old
            // backspace.
            KeyCode::Char('j' | 'm') if ctrl => Key::Enter,
            KeyCode::Char('h') if ctrl => Key::Backspace,
            KeyCode::Char(_) if ctrl || alt => Key::Other,
            KeyCode::Char(c) => Key::Char(c),
            KeyCode::Enter => Key::Enter,
            KeyCode::Backspace => Key::Backspace,
            KeyCode::Up => Key::Up,
            KeyCode::Down => Key::Down,
            KeyCode::Left => Key::Left,
            KeyCode::Right => Key::Right,
            _ => Key::Other,
        })
    }
}

/// A screen being composed. The program's own text and escape sequences (bold, colors, the
/// cursor) are `'static` literals, added with [`Screen::code`]; everything else (the form's
/// text, typed text, file names, error messages, counts) is added with [`Screen::text`],
/// which passes it through [`visible`]. No other text reaches the terminal.
#[derive(Debug, Default)]
pub(super) struct Screen(pub(super) String);

impl Screen {
    /// This program's own text or escape sequence.
    pub(super) fn code(&mut self, ours: &'static str) -> &mut Screen {
        self.0.push_str(ours);
        self
    }

    /// Any other text, neutralized.
    pub(super) fn text(&mut self, foreign: &str) -> &mut Screen {
        self.0.push_str(&visible(foreign));
        self
    }

    /// A one-line screen of this program's own words.
    pub(super) fn of(ours: &'static str) -> Screen {
        let mut s = Screen::default();
        s.code(ours);
        s
    }
}

/// The terminal in raw mode; the screen is written to `/dev/tty` or standard error. Raw mode
/// ends when it is dropped.
pub(super) struct Terminal {
    raw: bool,
    out: Box<dyn Write>,
}

impl Terminal {
    /// Puts the terminal in raw mode (no echo, no line editing, Ctrl-C and Ctrl-D read as
    /// keys).
    pub(super) fn open() -> Result<Terminal, FillError> {
        let out: Box<dyn Write> = match std::fs::OpenOptions::new().write(true).open("/dev/tty") {
            Ok(f) => Box::new(f),
            Err(_) => Box::new(std::io::stderr()),
        };
        crossterm::terminal::enable_raw_mode()
            .map_err(|e| FillError(format!("cannot put the terminal in raw mode: {e}")))?;
        Ok(Terminal { raw: true, out })
    }

    /// Leaves raw mode and shows the cursor again.
    pub(super) fn restore(&mut self) {
        if std::mem::take(&mut self.raw) {
            // Best effort: the answer is already decided.
            let _ = crossterm::terminal::disable_raw_mode();
            let _ = self.out.write_all(b"\x1b[?25h");
            let _ = self.out.flush();
        }
    }

    /// Waits for the next key. A terminal that hung up or cannot be read is an error, never a
    /// key: the person did not answer.
    pub(super) fn key(&mut self) -> Result<Key, FillError> {
        loop {
            // `crossterm` keeps re-reading a terminal that hung up (each read returns nothing)
            // instead of failing, so standard input is looked at before it reads: it is only
            // asked for events while the terminal is still there.
            input_ready(Some(&Timespec {
                tv_sec: 0,
                tv_nsec: 0,
            }))?;
            let pending = crossterm::event::poll(Duration::ZERO).map_err(gone)?;
            if !pending {
                input_ready(None)?;
                continue;
            }
            if let Event::Key(event) = crossterm::event::read().map_err(gone)? {
                if let Some(key) = Key::of(event) {
                    return Ok(key);
                }
            }
        }
    }

    /// Clears the terminal and draws `screen`.
    pub(super) fn draw(&mut self, screen: &Screen) -> Result<(), FillError> {
        let text = format!("\x1b[2J\x1b[H{}", screen.0.replace('\n', "\r\n"));
        self.out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|e| FillError(format!("cannot write to the terminal: {e}")))
    }
}

/// The error of a terminal that went away.
fn gone(e: std::io::Error) -> FillError {
    FillError(format!("the terminal went away: {e}"))
}

/// Waits (at most `timeout`; `None`: as long as it takes) until standard input, the terminal
/// keys are read from, has something to read. A hang-up or an error of the terminal is an
/// error.
fn input_ready(timeout: Option<&Timespec>) -> Result<(), FillError> {
    let stdin = std::io::stdin();
    let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
    loop {
        match poll(&mut fds, timeout) {
            Ok(_) => break,
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(gone(e.into())),
        }
    }
    let events = fds
        .first()
        .map(PollFd::revents)
        .unwrap_or_else(PollFlags::empty);
    if events.intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL) {
        return Err(FillError("the terminal went away".into()));
    }
    Ok(())
}

impl Drop for Terminal {
    fn drop(&mut self) {
        self.restore();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_from_crossterm_events() {
        let key = |code, modifiers| Key::of(KeyEvent::new(code, modifiers));
        let none = KeyModifiers::NONE;
        let ctrl = KeyModifiers::CONTROL;
        assert_eq!(key(KeyCode::Char('c'), ctrl), Some(Key::Interrupt));
        assert_eq!(key(KeyCode::Char('d'), ctrl), Some(Key::Decline));
        assert_eq!(key(KeyCode::Char('j'), ctrl), Some(Key::Enter));
        assert_eq!(key(KeyCode::Char('h'), ctrl), Some(Key::Backspace));
        assert_eq!(key(KeyCode::Char('x'), ctrl), Some(Key::Other));
        assert_eq!(key(KeyCode::Char('x'), KeyModifiers::ALT), Some(Key::Other));
        assert_eq!(key(KeyCode::Char('é'), none), Some(Key::Char('é')));
        assert_eq!(
            key(KeyCode::Char('X'), KeyModifiers::SHIFT),
            Some(Key::Char('X'))
        );
        assert_eq!(key(KeyCode::Esc, none), Some(Key::Other));
        assert_eq!(key(KeyCode::Left, none), Some(Key::Left));
        let release = KeyEvent::new_with_kind(KeyCode::Enter, none, KeyEventKind::Release);
        assert_eq!(Key::of(release), None);
    }
}
