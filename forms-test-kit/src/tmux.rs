//! A command in a real pseudo-terminal: its own detached tmux server (`tmux -L SOCKET`), keys
//! sent with `send-keys`, the screen read with `capture-pane`, its standard output and exit
//! status kept in files of a scratch folder. Needs `tmux` (`.ci/test` installs it).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `text` quoted for `sh`.
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A path quoted for `sh`.
pub fn quote_path(path: &Path) -> String {
    quote(&path.display().to_string())
}

/// One tmux server running one shell command; killed, and its folder removed, on drop.
pub struct Pane {
    /// The tmux socket name (`-L`).
    pub socket: String,
    /// The folder of the command's files (`out.json`, `rc`, …).
    pub dir: PathBuf,
    /// How long [`Pane::wait_for`] and [`Pane::exit_code`] wait.
    pub patience: Duration,
}

impl Pane {
    /// A pane named `name` over the fresh folder `dir`; nothing runs yet.
    pub fn new(name: String, dir: PathBuf, patience: Duration) -> Pane {
        Pane {
            socket: name,
            dir,
            patience,
        }
    }

    /// The path of a file of the command's folder, quoted for `sh`.
    pub fn file(&self, name: &str) -> String {
        quote_path(&self.dir.join(name))
    }

    /// Starts `command` (a `sh` command line) in a 120×50 session with the tmux
    /// configuration `config`.
    pub fn run(&self, config: &str, command: &str) {
        let file = self.dir.join("tmux.conf");
        std::fs::write(&file, config).unwrap();
        self.tmux(&[
            "-f",
            &file.display().to_string(),
            "new-session",
            "-d",
            "-x",
            "120",
            "-y",
            "50",
            command,
        ]);
    }

    /// Runs `tmux -L SOCKET ARGS…`, which must succeed; its standard output.
    pub fn tmux(&self, args: &[&str]) -> String {
        let out = crate::process::succeeded(
            Command::new("tmux")
                .arg("-L")
                .arg(&self.socket)
                .args(args)
                .env_remove("TMUX"),
            "tmux must be installed (apt-get install -y tmux)",
            &format!("tmux {args:?}"),
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The visible screen.
    pub fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p"])
    }

    /// Waits until the screen shows `text`; the screen.
    pub fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            if start.elapsed() > self.patience {
                panic!("the screen never showed {text:?}:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Sends tmux key names (`Enter`, `Up`, `C-c`, `3`, …).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// Types `text` literally.
    pub fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-l", text]);
    }

    /// Waits until the command wrote its exit status to the file `rc`; the status, or `None`
    /// after the pane's patience (`on_timeout` runs then, before the caller fails).
    pub fn exit_code(&self) -> Option<i32> {
        let rc = self.dir.join("rc");
        let start = Instant::now();
        loop {
            let text = std::fs::read_to_string(&rc).unwrap_or_default();
            if !text.trim().is_empty() {
                return Some(text.trim().parse().unwrap());
            }
            if start.elapsed() > self.patience {
                return None;
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// The text of a file of the command's folder.
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap()
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("kill-server")
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
