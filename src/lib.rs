//! The guide's code, compiled: README.md and every chapter of `docs/` are doctests of this
//! crate (`cargo test --doc -p forms-examples`), so their Rust blocks cannot drift from the
//! crates they show. The package holds the workspace's runnable examples and cross-crate
//! tests; it is never published.

/// README.md's Rust examples.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// docs/01-forms-as-types.md.
#[cfg(doctest)]
#[doc = include_str!("../docs/01-forms-as-types.md")]
pub struct FormsAsTypes;

/// docs/02-answers-and-refusals.md.
#[cfg(doctest)]
#[doc = include_str!("../docs/02-answers-and-refusals.md")]
pub struct AnswersAndRefusals;

/// docs/03-the-forms-command.md.
#[cfg(doctest)]
#[doc = include_str!("../docs/03-the-forms-command.md")]
pub struct TheFormsCommand;

/// docs/04-mcp-serving-and-asking.md.
#[cfg(doctest)]
#[doc = include_str!("../docs/04-mcp-serving-and-asking.md")]
pub struct McpServingAndAsking;

/// docs/05-requested-replies.md.
#[cfg(doctest)]
#[doc = include_str!("../docs/05-requested-replies.md")]
pub struct RequestedReplies;

/// docs/06-security.md.
#[cfg(doctest)]
#[doc = include_str!("../docs/06-security.md")]
pub struct Security;

/// docs/07-replicas-on-postgresql.md.
#[cfg(doctest)]
#[doc = include_str!("../docs/07-replicas-on-postgresql.md")]
pub struct ReplicasOnPostgresql;

/// docs/08-limits.md.
#[cfg(doctest)]
#[doc = include_str!("../docs/08-limits.md")]
pub struct Limits;

/// docs/09-working-on-forms.md.
#[cfg(doctest)]
#[doc = include_str!("../docs/09-working-on-forms.md")]
pub struct WorkingOnForms;
