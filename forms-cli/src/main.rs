//! The `forms` command.

fn main() {
    eprintln!("usage: forms check|native|answer|descriptor");
    std::process::exit(2);
}
