//! The terminal of `forms fill`: raw mode and key reading through `crossterm`, and the
//! screen, written to `/dev/tty` (standard error when that cannot be opened).
//!
//! Keys are read from the terminal on standard input. `crossterm` tells a lone Esc from the
//! start of an escape sequence by whether more bytes came with it, so Esc never waits for,
//! or swallows, the key that follows it.

use super::{visible, FillError};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use std::io::Write;

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
    /// The terminal is gone.
    End,
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

    /// Waits for the next key.
    pub(super) fn key(&mut self) -> Key {
        loop {
            match crossterm::event::read() {
                Ok(Event::Key(event)) => {
                    if let Some(key) = Key::of(event) {
                        return key;
                    }
                }
                Ok(_) => {}
                Err(_) => return Key::End,
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
