//! `dryrun`: (to be built).
