//! The one error type of the library, with a stable machine-readable code.
//!
//! Every failure the library reports is an [`Error`]: a [`Code`] that never changes between
//! versions (JS sees it as `error.code`), a human message, and — when a host callback failed —
//! the host's own error as [`Error::cause`], handed back to the caller unchanged.

use std::any::Any;
use std::fmt;
use std::rc::Rc;

/// The table of error codes: each row is a variant's doc, the variant, its stable string and
/// whether the caller's input caused it (`input`) or not (`other`). Everything else about codes
/// — [`Code::as_str`], [`Code::ALL`], [`Code::is_input`], the TypeScript union
/// [`MEMDIR_ERROR_CODE_TS`] — is generated from it.
macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident => $name:literal, $kind:ident;)*) => {
        /// Stable error codes. The JS `code` property is [`Code::as_str`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code {
            $($(#[$doc])* $variant,)*
        }

        impl Code {
            /// Every code, in table order.
            ///
            /// ```
            /// assert!(memdir::Code::ALL.contains(&memdir::Code::NotFound));
            /// ```
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The stable string JS sees as `error.code`.
            ///
            /// ```
            /// assert_eq!(memdir::Code::NotFound.as_str(), "NOT_FOUND");
            /// ```
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $name,)*
                }
            }

            /// True when the caller's input caused the error (a bad argument, name, path or
            /// content), false when the host, the environment or the state of the directory did.
            ///
            /// ```
            /// assert!(memdir::Code::InvalidInput.is_input());
            /// assert!(!memdir::Code::HostFs.is_input());
            /// ```
            pub fn is_input(self) -> bool {
                match self {
                    $(Code::$variant => codes!(@input $kind),)*
                }
            }
        }

        /// The TypeScript declaration of the codes: the union `MemdirErrorCode`, generated from
        /// the table (the wasm boundary appends it to the package's `.d.ts`).
        ///
        /// ```
        /// assert!(memdir::error::MEMDIR_ERROR_CODE_TS.contains(r#"| "NOT_FOUND""#));
        /// ```
        pub const MEMDIR_ERROR_CODE_TS: &str = concat!(
            "\n/** The stable `code` of a `MemdirError`. */\nexport type MemdirErrorCode =",
            $("\n  | \"", $name, "\"",)*
            ";\n"
        );
    };
    (@input input) => { true };
    (@input other) => { false };
}

codes! {
    /// An argument or option bag had the wrong shape or an out-of-range value.
    InvalidInput => "INVALID_INPUT", input;
    /// A memory name, filename or type was rejected.
    InvalidMemory => "INVALID_MEMORY", input;
    /// The memory file named does not exist.
    NotFound => "NOT_FOUND", other;
    /// A memory with that file already exists and the call did not ask to replace it.
    AlreadyExists => "ALREADY_EXISTS", input;
    /// A host filesystem call failed; `cause` holds the host's error.
    HostFs => "HOST_FS", other;
    /// The host LLM callback failed or answered something unusable; `cause` holds the host's error.
    HostLlm => "HOST_LLM", other;
    /// An HTTP adapter or transport answered with an error status.
    Http => "HTTP", other;
    /// The lock on the memory directory could not be taken in time.
    LockTimeout => "LOCK_TIMEOUT", other;
    /// The caller's `AbortSignal` fired.
    Aborted => "ABORTED", other;
    /// A host call took longer than its timeout.
    Timeout => "TIMEOUT", other;
    /// The write would put a secret into memory; the message lists rule labels, never the secret.
    SecretDetected => "SECRET_DETECTED", input;
    /// The configured mode forbids the write (`off` or `read-only`).
    WriteForbidden => "WRITE_FORBIDDEN", other;
    /// Path key contains a NUL byte.
    PathNullByte => "PATH_NULL_BYTE", input;
    /// Path key hides `..` or `/` behind URL encoding.
    PathUrlEncodedTraversal => "PATH_URL_ENCODED_TRAVERSAL", input;
    /// Path key hides traversal behind Unicode normalisation (NFKC).
    PathUnicodeTraversal => "PATH_UNICODE_TRAVERSAL", input;
    /// Path key contains a backslash.
    PathBackslash => "PATH_BACKSLASH", input;
    /// Path key is absolute.
    PathAbsolute => "PATH_ABSOLUTE", input;
    /// Path resolves outside the directory it must stay in.
    PathEscapes => "PATH_ESCAPES", input;
    /// Path escapes its directory through a symlink.
    PathSymlinkEscape => "PATH_SYMLINK_ESCAPE", other;
    /// Path crosses a symlink whose target does not exist.
    PathDanglingSymlink => "PATH_DANGLING_SYMLINK", other;
    /// Path crosses a symlink loop.
    PathSymlinkLoop => "PATH_SYMLINK_LOOP", other;
    /// Containment could not be verified (the host's realpath/lstat failed); fail closed.
    PathUnverifiable => "PATH_UNVERIFIABLE", other;
    /// A string holds an unpaired UTF-16 surrogate where a path, file name or key is formed
    /// from it (or where it cannot be carried through unambiguously).
    UnpairedSurrogate => "UNPAIRED_SURROGATE", input;
    /// A capability the call needs is missing from the host object.
    Unsupported => "UNSUPPORTED", other;
    /// The WebAssembly instance trapped (out of memory or a bug) and cannot be used again: the
    /// operation that trapped, every pending one, and every later call on it fail with this.
    InstanceLost => "INSTANCE_LOST", other;
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// An error reported by a host callback (filesystem, LLM, transport).
///
/// `code` is the host's own code when it had one (`"ENOENT"`, `"EISDIR"` …); `payload` carries the
/// original host value (on wasm, the thrown JS value) so it can be returned as `cause` unchanged.
/// The fields ([`HostErrorFields`]) are read through the error itself (`e.code`, `e.message`);
/// they are boxed so that every host call's `Result` stays one word wide on its error side.
#[derive(Clone)]
pub struct HostError(Box<HostErrorFields>);

/// What a [`HostError`] holds.
#[derive(Clone)]
pub struct HostErrorFields {
    /// The host's error code, e.g. `ENOENT`, when it gave one.
    pub code: Option<String>,
    /// The host's message.
    pub message: String,
    /// The original error value, opaque to the core.
    pub payload: Option<Rc<dyn Any>>,
}

impl HostError {
    /// A host error with a code and a message and no payload.
    ///
    /// ```
    /// let e = memdir::HostError::new(Some("ENOENT"), "no such file");
    /// assert!(e.is_not_found());
    /// ```
    pub fn new(code: Option<&str>, message: impl Into<String>) -> Self {
        HostError::from(HostErrorFields {
            code: code.map(str::to_owned),
            message: message.into(),
            payload: None,
        })
    }

    /// The error an optional capability reports when the host object lacks it.
    pub fn unsupported(capability: &str) -> Self {
        HostError::new(
            Some("UNSUPPORTED"),
            format!("the host does not provide `{capability}`"),
        )
    }

    /// True when the host code says the file or directory does not exist.
    pub fn is_not_found(&self) -> bool {
        self.code.as_deref() == Some("ENOENT")
    }

    /// True when the host code equals `code`.
    pub fn has_code(&self, code: &str) -> bool {
        self.code.as_deref() == Some(code)
    }
}

impl From<HostErrorFields> for HostError {
    fn from(fields: HostErrorFields) -> Self {
        HostError(Box::new(fields))
    }
}

impl std::ops::Deref for HostError {
    type Target = HostErrorFields;

    fn deref(&self) -> &HostErrorFields {
        &self.0
    }
}

impl fmt::Debug for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostError")
            .field("code", &self.code)
            .field("message", &self.message)
            .finish()
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.code {
            Some(code) => write!(f, "{code}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// The library's error: a stable [`Code`], a message, and the host's error when one caused it.
/// The fields ([`ErrorFields`]) are read and set through the error itself (`e.code`,
/// `e.message`); they are boxed so that every `Result` of the library stays small to move.
#[derive(Clone)]
pub struct Error(Box<ErrorFields>);

/// What an [`Error`] holds.
#[derive(Clone, Debug)]
pub struct ErrorFields {
    /// The stable code.
    pub code: Code,
    /// What went wrong, for people. Never contains a secret.
    pub message: String,
    /// The host error behind this one, if any.
    pub cause: Option<HostError>,
    /// An HTTP status, when an adapter or transport answered with one.
    pub status: Option<u16>,
}

impl Error {
    /// An error with a code and a message. Any secret the message quotes (a rejected name, type
    /// or key that holds a token) is replaced with `[REDACTED]`, so no message of the library
    /// repeats a secret; a message without one is kept as it is.
    ///
    /// ```
    /// let e = memdir::Error::new(memdir::Code::InvalidInput, "limit must be positive");
    /// assert_eq!(e.code.as_str(), "INVALID_INPUT");
    /// let token = format!("ghp_{}", "a1B2".repeat(9));
    /// let e = memdir::Error::new(memdir::Code::InvalidMemory, format!("bad type {token:?}"));
    /// assert_eq!(e.message, "bad type \"[REDACTED]\"");
    /// ```
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error::redacted(code, message.into())
    }

    /// [`Error::new`] past the conversion: one copy of the redaction, not one per message type.
    #[inline(never)]
    fn redacted(code: Code, mut message: String) -> Self {
        if !crate::secrets::scan_for_secrets(&message).is_empty() {
            message = crate::secrets::redact_secrets(&message);
        }
        Error::from(ErrorFields {
            code,
            message,
            cause: None,
            status: None,
        })
    }

    /// An error caused by a host failure; the host error is kept as `cause`.
    pub fn host(code: Code, context: impl fmt::Display, cause: HostError) -> Self {
        Error::new(code, format!("{context}: {cause}")).with_cause(cause)
    }

    /// This error with `cause` as its host cause.
    pub(crate) fn with_cause(mut self, cause: HostError) -> Self {
        self.cause = Some(cause);
        self
    }

    /// This error with an HTTP status.
    pub(crate) fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// A filesystem host failure during `action` on `path`.
    pub fn fs(action: &str, path: &str, cause: HostError) -> Self {
        Error::host(Code::HostFs, format_args!("{action} {path}"), cause)
    }
}

impl From<crate::secrets::SecretRefusal> for Error {
    fn from(refusal: crate::secrets::SecretRefusal) -> Self {
        Error::new(Code::SecretDetected, refusal.message)
    }
}

impl From<ErrorFields> for Error {
    fn from(fields: ErrorFields) -> Self {
        Error(Box::new(fields))
    }
}

impl std::ops::Deref for Error {
    type Target = ErrorFields;

    fn deref(&self) -> &ErrorFields {
        &self.0
    }
}

impl std::ops::DerefMut for Error {
    fn deref_mut(&mut self) -> &mut ErrorFields {
        &mut self.0
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("code", &self.code)
            .field("message", &self.message)
            .field("cause", &self.cause)
            .field("status", &self.status)
            .finish()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code.as_str())
    }
}

impl std::error::Error for Error {}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
