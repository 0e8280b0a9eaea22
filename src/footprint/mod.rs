//! `footprint`: (to be built).
