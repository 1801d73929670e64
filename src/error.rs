//! Errors that name the file, the place inside it and what was expected.
//!
//! Every error the core produces about the user's input carries the artifact path of the file it
//! concerns (when there is one), a short trail of context (`"manifest entry 3"`, `"field _FILE"`),
//! and what went wrong. Errors are values: the analysis turns them into `unreadable-file`
//! findings and carries on with the rest of the artifact.

use std::fmt;

/// What kind of problem an [`Error`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The host could not deliver bytes (I/O error, truncated file, short read).
    Io,
    /// The bytes are not what the format requires (bad JSON, bad Avro, bad zip structure).
    Format,
    /// A resource limit was reached (see [`crate::limits::Limits`]); the limit's name is in the
    /// message.
    Limit,
    /// Valid but not supported (an unknown codec, an encrypted zip entry).
    Unsupported,
    /// Something the analysis needs is not in the artifact.
    Missing,
    /// The artifact's copy of a file could not be extracted intact (a zip entry whose CRC or
    /// size does not match, whose local header or compressed stream is broken): the copy is
    /// damaged, which says nothing of the warehouse's own file.
    Damaged,
}

impl ErrorKind {
    /// A stable lower-case name, used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Io => "io",
            ErrorKind::Format => "format",
            ErrorKind::Limit => "limit",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Missing => "missing",
            ErrorKind::Damaged => "damaged copy",
        }
    }

    /// Whether an error of this kind is in the file's own bytes, as any reader of the same file
    /// finds them (malformed or incomplete content): only then may a finding say that Paimon's
    /// readers fail too. An I/O error, a limit, something this tool does not decode and a
    /// damaged copy leave the file's content unknown.
    pub fn is_in_content(self) -> bool {
        matches!(self, ErrorKind::Format | ErrorKind::Missing)
    }
}

/// An error about the input, with the file it concerns and where inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    file: Option<String>,
    context: Vec<String>,
    message: String,
}

/// The core's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error of `kind` with a message saying what was expected and what was found.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            file: None,
            context: Vec::new(),
            message: message.into(),
        }
    }

    /// Malformed input.
    pub fn format(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Format, message)
    }

    /// The host could not deliver the bytes.
    pub fn io(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Io, message)
    }

    /// A limit was reached. `limit` is the limit's name as in [`crate::limits::Limits`] and on
    /// the command line.
    pub fn limit(limit: &str, message: impl Into<String>) -> Self {
        Self::new(
            ErrorKind::Limit,
            format!("{} (limit {limit})", message.into()),
        )
    }

    /// Valid input the tool does not support.
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unsupported, message)
    }

    /// Something needed is absent.
    pub fn missing(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Missing, message)
    }

    /// This error, raised while extracting the artifact's copy of a file, as a [`ErrorKind::Damaged`]
    /// copy where it said the bytes were malformed; other kinds are kept.
    #[must_use]
    pub fn in_copy(mut self) -> Self {
        if self.kind == ErrorKind::Format {
            self.kind = ErrorKind::Damaged;
        }
        self
    }

    /// Sets the file this error is about (an artifact path), unless one is already set.
    #[must_use]
    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        if self.file.is_none() {
            self.file = Some(file.into());
        }
        self
    }

    /// Adds a step of context, outermost last (`"entry 3"`, then `"manifest"`).
    #[must_use]
    pub fn context(mut self, what: impl Into<String>) -> Self {
        self.context.push(what.into());
        self
    }

    /// The kind of problem.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The file this error is about, if known.
    pub fn file(&self) -> Option<&str> {
        self.file.as_deref()
    }

    /// What went wrong, with the context trail but without the file name.
    pub fn problem(&self) -> String {
        let mut s = String::new();
        for c in self.context.iter().rev() {
            s.push_str(c);
            s.push_str(": ");
        }
        s.push_str(&self.message);
        s
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        f.write_str(&self.problem())
    }
}

impl std::error::Error for Error {}

/// Adds context to results, so call sites stay short.
pub trait ResultExt<T> {
    /// Sets the file on the error, unless one is already set.
    fn in_file(self, file: &str) -> Result<T>;
    /// Adds a step of context to the error.
    fn context(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T> ResultExt<T> for Result<T> {
    fn in_file(self, file: &str) -> Result<T> {
        self.map_err(|e| e.in_file(file))
    }

    fn context(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| e.context(what()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_file_context_and_problem() {
        let e = Error::format("expected int, found end of block")
            .context("field _BUCKET")
            .context("entry 3")
            .in_file("db.db/t/manifest/manifest-1");
        assert_eq!(
            e.to_string(),
            "db.db/t/manifest/manifest-1: entry 3: field _BUCKET: expected int, found end of block"
        );
        assert_eq!(e.kind(), ErrorKind::Format);
    }

    #[test]
    fn first_file_wins() {
        let e = Error::io("short read").in_file("inner").in_file("outer");
        assert_eq!(e.file(), Some("inner"));
    }

    #[test]
    fn limit_names_the_limit() {
        let e = Error::limit("max-json-bytes", "snapshot is 80 MiB");
        assert!(e.to_string().contains("limit max-json-bytes"));
    }
}
