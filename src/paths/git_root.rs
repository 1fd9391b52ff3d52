//! The canonical git root: all worktrees of a repository share one memory dir.

use super::style::PathStyle;
use crate::host::{EntryKind, FileSystem};
use crate::jsstr::js_trim;

/// The nearest directory at or above `start` holding a `.git` entry that is a directory or a
/// file (the filesystem root included). `start` should be absolute; a relative one is taken
/// from `/`. Host errors count as "no `.git` here". A Windows path (`C:\\repo\\src`,
/// `\\\\server\\share\\repo`) is walked with the Windows rules, up to its drive or share root. Unlike the reference the result is not NFC
/// normalised (no tables in this crate); it is the path as the host spells it.
///
/// ```
/// use memdir::{future::block_on, paths::find_git_root, MemFs};
/// let fs = MemFs::new();
/// fs.insert_file("/repo/.git/HEAD", "ref: refs/heads/main\n");
/// fs.insert_file("/repo/src/lib.rs", "");
/// assert_eq!(block_on(find_git_root(&fs, "/repo/src")).as_deref(), Some("/repo"));
/// assert_eq!(block_on(find_git_root(&fs, "/elsewhere")), None);
/// ```
pub async fn find_git_root<F: FileSystem>(fs: &F, start: &str) -> Option<String> {
    let style = PathStyle::of_dir(start);
    let mut current = style.resolve(&style.sep().to_string(), start);
    loop {
        if has_git_entry(fs, style, &current).await {
            return Some(current);
        }
        let parent = style.dirname(&current);
        if parent == current {
            return None;
        }
        current = parent;
    }
}

async fn has_git_entry<F: FileSystem>(fs: &F, style: PathStyle, dir: &str) -> bool {
    matches!(
        fs.stat(&style.join(&[dir, ".git"])).await,
        Ok(stat) if matches!(stat.kind, EntryKind::Dir | EntryKind::File)
    )
}

/// [`find_git_root`], then, when that root is a linked worktree, the main repository's root.
///
/// A `.git` **file** reading `gitdir: <worktree git dir>` is followed to the worktree's
/// `commondir`; the main root is accepted only when (a) the worktree git dir sits directly in
/// `<common dir>/worktrees/` and (b) the worktree's `gitdir` back-link, resolved, equals
/// `<resolved root>/.git` (so a crafted `.git` file cannot borrow another repository's memory).
/// Resolution uses the host's `realpath` when it has one, else lexical normalisation. A bare
/// repository's worktrees map to the common dir itself. Submodules (no `commondir`) and any
/// error fall back to the worktree root.
///
/// ```
/// use memdir::{future::block_on, paths::find_canonical_git_root, MemFs};
/// let fs = MemFs::new();
/// fs.insert_file("/repo/.git/HEAD", "");
/// fs.insert_file("/repo/.git/worktrees/wt/commondir", "../..\n");
/// fs.insert_file("/repo/.git/worktrees/wt/gitdir", "/wt/.git\n");
/// fs.insert_file("/wt/.git", "gitdir: /repo/.git/worktrees/wt\n");
/// assert_eq!(block_on(find_canonical_git_root(&fs, "/wt")).as_deref(), Some("/repo"));
/// ```
pub async fn find_canonical_git_root<F: FileSystem>(fs: &F, start: &str) -> Option<String> {
    let root = find_git_root(fs, start).await?;
    Some(main_worktree_root(fs, &root).await.unwrap_or(root))
}

/// The main repository root for the worktree at `root`, or `None` to keep `root`.
async fn main_worktree_root<F: FileSystem>(fs: &F, root: &str) -> Option<String> {
    let style = PathStyle::of_dir(root);
    let join_all = |segments: &[&str]| style.join(segments);
    let resolve = |base: &str, rel: &str| style.resolve(base, rel);
    let dot_git = fs.read_file(&join_all(&[root, ".git"])).await.ok()?;
    let pointer = js_trim(&dot_git).strip_prefix("gitdir:")?;
    let worktree_git_dir = resolve(root, js_trim(pointer));
    let commondir = fs
        .read_file(&join_all(&[&worktree_git_dir, "commondir"]))
        .await
        .ok()?;
    let common_dir = resolve(&worktree_git_dir, js_trim(&commondir));
    if !style.same(
        &style.dirname(&worktree_git_dir),
        &join_all(&[&common_dir, "worktrees"]),
    ) {
        return None;
    }
    let backlink = fs
        .read_file(&join_all(&[&worktree_git_dir, "gitdir"]))
        .await
        .ok()?;
    let backlink = real_path(fs, style, &resolve(&worktree_git_dir, js_trim(&backlink))).await?;
    let root_real = real_path(fs, style, root).await?;
    if !style.same(&backlink, &join_all(&[&root_real, ".git"])) {
        return None;
    }
    if !style.same(&style.basename(&common_dir), ".git") {
        return Some(common_dir);
    }
    Some(style.dirname(&common_dir))
}

/// The host's `realpath` when it has one (its failure is an error), else the lexical form.
async fn real_path<F: FileSystem>(fs: &F, style: PathStyle, path: &str) -> Option<String> {
    if fs.capabilities().realpath {
        fs.realpath(path).await.ok().map(|p| style.normalize(&p))
    } else {
        Some(style.normalize(path))
    }
}
