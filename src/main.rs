//! The `grounded` binary: parses the command line and hands over to [`grounded::cli`].

fn main() {
    // `grounded check ... | head` must end quietly like any Unix filter, not panic on a
    // closed pipe: restore the default SIGPIPE action that Rust's runtime ignores.
    #[cfg(unix)]
    // SAFETY: called once at start-up, before any thread exists; SIG_DFL is always valid.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(grounded::cli::main());
}
