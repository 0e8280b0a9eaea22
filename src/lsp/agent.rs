//! Room for the agent's editor glue (nothing here yet): `workspace/executeCommand` for
//! `grounded.askAgent`, the turn's work-done progress ([`super::server`]'s
//! `begin_progress`, bounded by `CLIENT_TIMEOUT`), and the edits the agent proposes sent
//! as `workspace/applyEdit`.
//!
//! It belongs here, not in `server`, so the protocol dispatch stays one line per
//! request: the handler in `server` calls a `Backend` method defined in this module,
//! which hands the turn to [`crate::agent`] off the request path (`spawn_blocking` or a
//! task) and mutates state only through `Backend`, like every other concern.
