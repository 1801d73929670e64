//! Lost changelog: did a commit's changelog never become durable?

/// A commit whose changelog was lost: its APPEND snapshot is durable, its COMPACT half (which
/// carried the changelog) never was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LostChangelog {
    /// The durable APPEND snapshot.
    pub snapshot: i64,
    /// Its commit user.
    pub commit_user: String,
    /// Its commit identifier.
    pub commit_identifier: i64,
}
