//! `check`: the eight families of findings, one file each, decided against the corpus.

pub mod finding;

pub use finding::{Code, Finding, Fix, Related, Severity, Span};
