//! The subcommands of a full `forms` build, in the order its help lists them.

/// The subcommands `forms --help` lists (besides `help`).
pub const COMMANDS: [&str; 9] = [
    "check",
    "native",
    "answer",
    "descriptor",
    "preview",
    "fill",
    "ask",
    "host",
    "completions",
];
