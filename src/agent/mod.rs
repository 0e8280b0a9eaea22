//! `agent`: (to be built).
