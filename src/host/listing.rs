//! A directory level as one packed listing: every name in one string, each entry a kind and a
//! range of it (no `String` per entry), and what the host adapter kept on its side to answer
//! later calls about the entries by their position ([`super::FileSystem::stat_listed`]): the
//! JS adapter keeps the names it read, so a scan's stats cross the boundary as positions, not
//! as paths built in wasm and decoded again in JS.

use super::answers::KIND_NAMES;
use super::{DirEntry, EntryKind, FileStat, FileSystem};
use std::any::Any;

/// One directory level: its entries' kinds and names, in the host's order.
///
/// ```
/// use memdir::host::listing::Listing;
/// use memdir::host::{DirEntry, EntryKind};
/// let listing = Listing::from_entries(vec![
///     DirEntry { name: "a.md".into(), kind: EntryKind::File },
///     DirEntry { name: "team".into(), kind: EntryKind::Dir },
/// ]);
/// assert_eq!(listing.len(), 2);
/// assert_eq!(listing.entry(1), Some((EntryKind::Dir, "team")));
/// assert_eq!(listing.entry(2), None);
/// ```
#[derive(Default)]
pub struct Listing {
    /// The text the names are cut from.
    names: String,
    /// Each entry's kind and where its name starts and ends in `names`.
    entries: Vec<(EntryKind, u32, u32)>,
    /// Whatever the adapter kept to answer by position; never looked into by the core.
    kept: Option<Box<dyn Any>>,
}

impl std::fmt::Debug for Listing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Listing {
    /// The listing of `entries`, in order.
    ///
    /// ```
    /// use memdir::host::listing::Listing;
    /// use memdir::host::{DirEntry, EntryKind};
    /// let listing = Listing::from_entries(vec![DirEntry { name: "x".into(), kind: EntryKind::File }]);
    /// assert_eq!(listing.iter().collect::<Vec<_>>(), [(EntryKind::File, "x")]);
    /// ```
    pub fn from_entries(entries: Vec<DirEntry>) -> Listing {
        let mut listing = Listing {
            names: String::with_capacity(entries.iter().map(|e| e.name.len()).sum()),
            entries: Vec::with_capacity(entries.len()),
            kept: None,
        };
        for entry in entries {
            let start = listing.names.len();
            listing.names.push_str(&entry.name);
            // A listing past 4 GiB of names is cut there (no host lists that much).
            let (Ok(start), Ok(end)) = (u32::try_from(start), u32::try_from(listing.names.len()))
            else {
                break;
            };
            listing.entries.push((entry.kind, start, end));
        }
        listing
    }

    /// The listing the JS adapter packs: for each entry its kind's code (its place in
    /// [`KIND_NAMES`] plus one, as one ASCII digit), its name, then a NUL. `None` when the text
    /// is not of that form (a kind outside the list, a last entry without its NUL).
    ///
    /// ```
    /// use memdir::host::listing::Listing;
    /// use memdir::host::EntryKind;
    /// let listing = Listing::from_packed("1a.md\u{0}2team\u{0}4link\u{0}".to_owned()).unwrap();
    /// assert_eq!(listing.entry(2), Some((EntryKind::Symlink, "link")));
    /// assert!(Listing::from_packed("5x\u{0}".to_owned()).is_none());
    /// assert!(Listing::from_packed("1x".to_owned()).is_none());
    /// ```
    pub fn from_packed(packed: String) -> Option<Listing> {
        let bytes = packed.as_bytes();
        let mut entries = Vec::new();
        let mut at = 0;
        while let Some(&code) = bytes.get(at) {
            let &(_, kind) = KIND_NAMES.get(usize::from(code.checked_sub(b'1')?))?;
            let len = bytes.get(at + 1..)?.iter().position(|&b| b == 0)?;
            let start = u32::try_from(at + 1).ok()?;
            let end = u32::try_from(at + 1 + len).ok()?;
            entries.push((kind, start, end));
            at += len + 2;
        }
        Some(Listing {
            names: packed,
            entries,
            kept: None,
        })
    }

    /// This listing with `kept`: what the adapter needs to answer by position (see
    /// [`Listing::kept`]).
    ///
    /// ```
    /// use memdir::host::listing::Listing;
    /// let listing = Listing::default().keeping(Box::new(7_u32));
    /// assert_eq!(listing.kept().and_then(|k| k.downcast_ref::<u32>()), Some(&7));
    /// ```
    pub fn keeping(mut self, kept: Box<dyn Any>) -> Listing {
        self.kept = Some(kept);
        self
    }

    /// What the adapter kept with this listing, if anything.
    ///
    /// ```
    /// use memdir::host::listing::Listing;
    /// assert!(Listing::default().kept().is_none());
    /// ```
    pub fn kept(&self) -> Option<&dyn Any> {
        self.kept.as_deref()
    }

    /// How many entries.
    ///
    /// ```
    /// assert_eq!(memdir::host::listing::Listing::default().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    ///
    /// ```
    /// assert!(memdir::host::listing::Listing::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entry `i`: its kind and name.
    ///
    /// ```
    /// use memdir::host::listing::Listing;
    /// assert_eq!(Listing::default().entry(0), None);
    /// ```
    pub fn entry(&self, i: usize) -> Option<(EntryKind, &str)> {
        let &(kind, start, end) = self.entries.get(i)?;
        Some((kind, self.names.get(start as usize..end as usize)?))
    }

    /// The entries in order, each its kind and name.
    ///
    /// ```
    /// use memdir::host::listing::Listing;
    /// assert_eq!(Listing::default().iter().count(), 0);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (EntryKind, &str)> {
        self.entries.iter().map(|&(kind, start, end)| {
            (
                kind,
                self.names.get(start as usize..end as usize).unwrap_or(""),
            )
        })
    }

    /// The entries as [`DirEntry`] values (a `String` each).
    ///
    /// ```
    /// use memdir::host::listing::Listing;
    /// use memdir::host::{DirEntry, EntryKind};
    /// let entries = vec![DirEntry { name: "b".into(), kind: EntryKind::Dir }];
    /// assert_eq!(Listing::from_entries(entries.clone()).into_entries(), entries);
    /// ```
    pub fn into_entries(self) -> Vec<DirEntry> {
        self.iter()
            .map(|(kind, name)| DirEntry {
                name: name.to_owned(),
                kind,
            })
            .collect()
    }
}

/// [`FileSystem::stat_listed`] through paths: `dir` and each entry's name, stat'ed with
/// [`FileSystem::stat_many`] (what the method does unless an adapter answers by position). A
/// position past the listing is not asked about and reads as missing.
///
/// ```
/// use memdir::host::listing::stat_by_paths;
/// use memdir::{future::block_on, FileSystem, MemFs};
/// let fs = MemFs::new();
/// fs.insert_file("/m/a.md", "hi");
/// let listing = block_on(fs.read_dir_listing("/m/")).unwrap();
/// let stats = block_on(stat_by_paths(&fs, "/m/", &listing, &[0, 9]));
/// assert_eq!((stats[0].map(|s| s.size), stats[1]), (Some(2.0), None));
/// ```
pub async fn stat_by_paths<F: FileSystem + ?Sized>(
    fs: &F,
    dir: &str,
    listing: &Listing,
    entries: &[u32],
) -> Vec<Option<FileStat>> {
    let paths: Vec<Option<String>> = entries
        .iter()
        .map(|&i| {
            let (_, name) = listing.entry(i as usize)?;
            let mut path = String::with_capacity(dir.len() + name.len());
            path.push_str(dir);
            path.push_str(name);
            Some(path)
        })
        .collect();
    let asked: Vec<&str> = paths.iter().filter_map(|p| p.as_deref()).collect();
    let mut stats = fs.stat_many(&asked).await.into_iter();
    paths
        .iter()
        .map(|path| path.as_ref().and_then(|_| stats.next().flatten()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_listings_read_back_as_their_entries() {
        let entries = vec![
            DirEntry {
                name: "é b.md".into(),
                kind: EntryKind::File,
            },
            DirEntry {
                name: "d".into(),
                kind: EntryKind::Dir,
            },
            DirEntry {
                name: "x".into(),
                kind: EntryKind::Symlink,
            },
        ];
        let packed = "1é b.md\u{0}2d\u{0}4x\u{0}".to_owned();
        let listing = Listing::from_packed(packed).unwrap();
        assert_eq!(listing.len(), 3);
        assert_eq!(listing.into_entries(), entries);
        // `directory` (code 3) is a directory.
        let dir = Listing::from_packed("3d\u{0}".to_owned()).unwrap();
        assert_eq!(dir.entry(0), Some((EntryKind::Dir, "d")));
        assert!(Listing::from_packed(String::new()).unwrap().is_empty());
        // An empty name is a name (the walk refuses it, not the listing).
        assert_eq!(
            Listing::from_packed("1\u{0}".to_owned()).unwrap().entry(0),
            Some((EntryKind::File, ""))
        );
        for bad in ["0x\u{0}", "9x\u{0}", "x\u{0}", "1x", "1x\u{0}2", "\u{0}"] {
            assert!(Listing::from_packed(bad.to_owned()).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn entries_and_iteration_agree() {
        let names = ["a", "", "ccc", "dé"];
        let listing = Listing::from_entries(
            names
                .iter()
                .map(|&name| DirEntry {
                    name: name.into(),
                    kind: EntryKind::File,
                })
                .collect(),
        );
        let by_index: Vec<_> = (0..listing.len())
            .filter_map(|i| listing.entry(i))
            .collect();
        assert_eq!(by_index, listing.iter().collect::<Vec<_>>());
        assert_eq!(by_index.iter().map(|&(_, n)| n).collect::<Vec<_>>(), names);
    }
}
