//! memdir — a portable, file-based memory for LLM agents.
//!
//! A memory directory holds `MEMORY.md` (an index of one-line pointers) and one markdown file per
//! memory with YAML frontmatter (`name`, `description`, `type`). This crate is a pure,
//! synchronous core (truncation, frontmatter, prompts, manifest, ages, paths, secret scanning,
//! ranking) plus async orchestration over host traits ([`FileSystem`], [`Llm`], [`Telemetry`],
//! [`Clock`]). On wasm32, `src/wasm/` adapts JS host objects to those traits.
//!
//! Layers, bottom to top (`tests/layers.rs` checks that no import runs up or in a circle): the
//! pure modules; [`store`] (one directory: reads, writes, the lock); the features that borrow a
//! [`Store`] (`recall::find`, `prompt::load`, [`lint`], [`memory_tool`], [`extract`],
//! [`consolidate`], [`sync`]); the [`Memdir`] façade; the JS boundary.
//!
//! ```
//! use memdir::{truncate_entrypoint, TruncateOptions};
//! let t = truncate_entrypoint("- [A](a.md) — hook\n", &TruncateOptions::default());
//! assert_eq!(t.content, "- [A](a.md) — hook");
//! ```

pub mod age;
pub mod case;
pub mod consolidate;
pub mod entrypoint;
pub mod error;
pub mod extract;
pub mod find;
pub mod frontmatter;
pub mod future;
pub mod host;
pub mod index_entry;
pub mod json;
pub mod jsstr;
pub mod library_files;
pub mod lint;
pub mod lone_surrogates;
pub mod manifest;
pub mod mem_fs;
pub mod memdir;
pub mod memory_tool;
pub mod path_key;
pub mod paths;
pub mod prompt;
pub mod recall;
pub mod secrets;
pub mod size;
pub mod sort;
pub mod store;
pub mod str_map;
pub mod sync;
#[cfg(test)]
mod test_host;
#[cfg(test)]
mod test_rng;
pub mod types;

#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod wasm;

pub use age::{memory_age, memory_age_days, memory_freshness_text, memory_header};
pub use entrypoint::{truncate_entrypoint, EntrypointTruncation, TruncateOptions};
pub use error::{Code, Error, ErrorFields, HostError, HostErrorFields, Result};
pub use frontmatter::{format_memory_file, parse_frontmatter, MemoryFields, ParsedFrontmatter};
pub use host::{
    Clock, DirEntry, Embedder, EntryKind, FieldValue, FileStat, FileSystem, FsCapabilities, Llm,
    LlmMessage, LlmPurpose, LlmRequest, NoEmbedder, NoLlm, NoTelemetry, Role, Telemetry,
};
pub use index_entry::{format_index_entry, parse_index_entry, IndexEntry};
pub use manifest::format_manifest;
pub use mem_fs::MemFs;
pub use memdir::{Memdir, MemdirConfig};
pub use paths::sanitize_path;
pub use size::format_file_size;
pub use store::{Store, WriteMode};
pub use types::{MemoryHeader, MemoryType};
