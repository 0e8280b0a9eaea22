//! The `grounded` binary: parses the command line and hands over to [`grounded::cli`].

fn main() {
    std::process::exit(grounded::cli::main());
}
