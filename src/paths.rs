//! Paths: POSIX helpers, project slugs, memory-dir validation and resolution, the enable chain
//! (reference §2).
// OWNER: paths/manifest helper.

/// Join POSIX path segments (`a` + `b/c` → `a/b/c`), without normalising.
pub fn join(base: &str, rel: &str) -> String {
    if base.ends_with('/') {
        format!("{base}{rel}")
    } else {
        format!("{base}/{rel}")
    }
}

/// The project slug (reference §2.5).
pub fn sanitize_path(name: &str) -> String {
    todo!("{name}")
}
