//! What a host's answers mean, decided here for every adapter: the names a host may give an
//! entry's kind, how the paths of a batched call travel (one string), how a batch of stats comes
//! back (numbers), and how long a file a host may return. The JS adapter (`src/wasm/host.rs`)
//! only converts values to and from these forms.

use super::{EntryKind, FileStat, HostResult};
use crate::error::HostError;
use crate::types::MAX_HOST_FILE_LEN;

/// The names a host may give an entry's kind (`directory` is accepted for `dir`). A batch of
/// stats carries a kind as its position in this list plus one, 0 for none of them.
pub const KIND_NAMES: [(&str, EntryKind); 4] = [
    ("file", EntryKind::File),
    ("dir", EntryKind::Dir),
    ("directory", EntryKind::Dir),
    ("symlink", EntryKind::Symlink),
];

/// The kind a host means by `name`, if it is one of [`KIND_NAMES`].
///
/// ```
/// use memdir::host::{answers::kind_named, EntryKind};
/// assert_eq!(kind_named("directory"), Some(EntryKind::Dir));
/// assert_eq!(kind_named("File"), None);
/// ```
pub fn kind_named(name: &str) -> Option<EntryKind> {
    KIND_NAMES
        .iter()
        .find(|(known, _)| *known == name)
        .map(|&(_, kind)| kind)
}

/// The paths of a batched host call as one string, NUL between paths. A path holding a NUL
/// (no real file's path does) is sent empty: the adapter does not ask the host about an empty
/// path, and its answer reads as missing.
///
/// ```
/// use memdir::host::answers::joined_paths;
/// assert_eq!(joined_paths(&["/m/a.md", "/m/b\0.md", "/m/c.md"]), "/m/a.md\0\0/m/c.md");
/// ```
pub fn joined_paths(paths: &[&str]) -> String {
    let mut joined = String::new();
    for path in paths {
        if !path.contains('\0') {
            joined.push_str(path);
        }
        joined.push('\0');
    }
    // No separator after the last path.
    joined.pop();
    joined
}

/// Numbers per path in a batch of stats: the kind's code (see [`KIND_NAMES`]), `size`,
/// `mtimeMs`, then [`SIZE_IS_NUMBER`] and [`MTIME_IS_NUMBER`] added up.
pub const STAT_FIELDS: usize = 4;
/// Flag: the host's `size` was a number.
pub const SIZE_IS_NUMBER: f64 = 1.0;
/// Flag: the host's `mtimeMs` was a number.
pub const MTIME_IS_NUMBER: f64 = 2.0;

/// [`KIND_NAMES`]' names as the adapter sends them (NUL between names), so that it codes a
/// kind by the same list.
///
/// ```
/// use memdir::host::answers::{joined_paths, KIND_NAMES, KIND_NAMES_JOINED};
/// assert_eq!(KIND_NAMES_JOINED, joined_paths(&KIND_NAMES.map(|(name, _)| name)));
/// ```
pub const KIND_NAMES_JOINED: &str = "file\0dir\0directory\0symlink";

/// The stat in one record of [`STAT_FIELDS`] numbers the adapter copied out of a host's answer
/// (all zero for an answer that was not an object). A stat needs a known kind and a numeric
/// `mtimeMs`; a `size` that is not a number reads as 0.
///
/// ```
/// use memdir::host::answers::stat_of_record;
/// use memdir::host::{EntryKind, FileStat};
/// let file = FileStat { kind: EntryKind::File, size: 5.0, mtime_ms: 9.0 };
/// assert_eq!(stat_of_record(&[1.0, 5.0, 9.0, 3.0]), Some(file));
/// assert_eq!(stat_of_record(&[1.0, 5.0, 9.0, 1.0]), None); // mtimeMs not a number
/// assert_eq!(stat_of_record(&[0.0, 5.0, 9.0, 3.0]), None); // an unknown kind
/// ```
pub fn stat_of_record(record: &[f64]) -> Option<FileStat> {
    let &[code, size, mtime_ms, flags] = record.first_chunk()?;
    let flags = flags as u8;
    if flags & MTIME_IS_NUMBER as u8 == 0 || code.fract() != 0.0 || code < 1.0 {
        return None;
    }
    let &(_, kind) = KIND_NAMES.get(code as usize - 1)?;
    let size = if flags & SIZE_IS_NUMBER as u8 != 0 {
        size
    } else {
        0.0
    };
    Some(FileStat {
        kind,
        size,
        mtime_ms,
    })
}

/// The stats of a batch of `count` paths: a [`stat_of_record`] record each ([`STAT_FIELDS`]
/// numbers a path; all zero for a path the host could not stat, or a batch cut short).
///
/// ```
/// use memdir::host::answers::stats_of_batch;
/// use memdir::host::{EntryKind, FileStat};
/// let stats = stats_of_batch(&[1.0, 5.0, 9.0, 3.0, 0.0, 0.0, 0.0, 0.0, 4.0, 0.0, 7.0, 2.0], 3);
/// assert_eq!(stats[0], Some(FileStat { kind: EntryKind::File, size: 5.0, mtime_ms: 9.0 }));
/// assert_eq!(stats[1], None);
/// assert_eq!(stats[2], Some(FileStat { kind: EntryKind::Symlink, size: 0.0, mtime_ms: 7.0 }));
/// ```
pub fn stats_of_batch(values: &[f64], count: usize) -> Vec<Option<FileStat>> {
    (0..count)
        .map(|i| stat_of_record(values.get(i * STAT_FIELDS..)?))
        .collect()
}

/// The byte count of one head in a packed batch of heads (the adapter's `lengths`): a whole
/// number of bytes, or `None` for a failed read (-1), an answer read on its own (-2) or
/// anything else.
///
/// ```
/// use memdir::host::answers::packed_count;
/// assert_eq!(packed_count(12.0), Some(12));
/// assert_eq!(packed_count(-1.0), None);
/// assert_eq!(packed_count(1.5), None);
/// ```
pub fn packed_count(n: f64) -> Option<usize> {
    (n >= 0.0 && n.fract() == 0.0 && n <= u32::MAX as f64).then_some(n as usize)
}

/// The size of the buffer a batch of heads is packed into, when the host's `lengths` and
/// `total` agree: each count whole and at most its read's `max_bytes` (or -1, -2, see
/// [`packed_count`]), their sum `total`. `None` otherwise: the heads are then read one by one.
///
/// ```
/// use memdir::host::answers::packed_len;
/// let max = [8.0; 4];
/// assert_eq!(packed_len(&[3.0, -1.0, 5.0, -2.0], 8.0, &max), Some(8));
/// assert_eq!(packed_len(&[3.0, 5.0], 9.0, &max), None); // the sum disagrees
/// assert_eq!(packed_len(&[9.0], 9.0, &max), None); // longer than asked
/// ```
pub fn packed_len(lengths: &[f64], total: f64, max_bytes: &[f64]) -> Option<usize> {
    let mut sum = 0usize;
    for (i, &n) in lengths.iter().enumerate() {
        match packed_count(n) {
            Some(n) if n as f64 <= *max_bytes.get(i)? => sum = sum.checked_add(n)?,
            None if n == -1.0 || n == -2.0 => {}
            _ => return None,
        }
    }
    (packed_count(total) == Some(sum)).then_some(sum)
}

/// One read of a packed batch of heads ([`unpack_heads`]).
#[derive(Debug, PartialEq)]
pub enum PackedHead<'a> {
    /// Its bytes, cut from the packed buffer.
    Bytes(&'a [u8]),
    /// The read failed (-1).
    Failed,
    /// The answer was not a byte array (-2): the adapter reads it on its own.
    Alone,
}

/// The heads of a packed batch: `bytes` (of [`packed_len`]'s size) cut by the `lengths` in
/// order; a count that is not a whole number of bytes within what is left reads as failed.
///
/// ```
/// use memdir::host::answers::{unpack_heads, PackedHead};
/// let heads = unpack_heads(b"abcdefgh", &[3.0, -1.0, 5.0, -2.0]);
/// assert_eq!(heads, [PackedHead::Bytes(b"abc"), PackedHead::Failed, PackedHead::Bytes(b"defgh"), PackedHead::Alone]);
/// ```
pub fn unpack_heads<'a>(bytes: &'a [u8], lengths: &[f64]) -> Vec<PackedHead<'a>> {
    let mut at = 0usize;
    lengths
        .iter()
        .map(|&n| match packed_count(n) {
            Some(n) => match bytes.get(at..at.saturating_add(n)) {
                Some(head) => {
                    at += n;
                    PackedHead::Bytes(head)
                }
                None => PackedHead::Failed,
            },
            None if n == -2.0 => PackedHead::Alone,
            None => PackedHead::Failed,
        })
        .collect()
}

/// Refuse a whole-file answer of `len` units (UTF-16 units of a string, bytes of a byte array)
/// past [`MAX_HOST_FILE_LEN`] with `EFBIG`, before it is copied in. `what` names the call.
///
/// ```
/// use memdir::host::answers::check_file_len;
/// use memdir::types::MAX_HOST_FILE_LEN;
/// assert!(check_file_len(MAX_HOST_FILE_LEN, "readFile").is_ok());
/// let err = check_file_len(MAX_HOST_FILE_LEN + 1, "readFile").unwrap_err();
/// assert!(err.has_code("EFBIG"));
/// ```
pub fn check_file_len(len: usize, what: &str) -> HostResult<()> {
    if len <= MAX_HOST_FILE_LEN {
        return Ok(());
    }
    Err(HostError::new(
        Some("EFBIG"),
        format!("the host returned {len} units from {what}; the limit is {MAX_HOST_FILE_LEN}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_batch_needs_whole_counts_within_the_ask_that_add_up() {
        let max = [8.0; 3];
        assert_eq!(packed_len(&[], 0.0, &max), Some(0));
        assert_eq!(packed_len(&[-1.0, -2.0], 0.0, &max), Some(0));
        assert_eq!(packed_len(&[8.0, 0.0, 2.0], 10.0, &max), Some(10));
        // Each within its own ask.
        assert_eq!(packed_len(&[4.0, 4.0], 8.0, &[4.0, 3.0]), None);
        assert_eq!(packed_len(&[4.0], 4.0, &[]), None);
        for (lengths, total) in [
            (vec![1.0, 2.0], 4.0),
            (vec![1.0, 2.0], -1.0),
            (vec![1.0, -3.0], 1.0),
            (vec![0.5, 0.5], 1.0),
            (vec![f64::NAN], 0.0),
            (vec![9.0], 9.0),
            (vec![1.0], f64::INFINITY),
        ] {
            assert_eq!(
                packed_len(&lengths, total, &max),
                None,
                "{lengths:?} {total}"
            );
        }
    }

    #[test]
    fn every_kind_code_round_trips_and_others_are_refused() {
        for (i, &(name, kind)) in KIND_NAMES.iter().enumerate() {
            assert_eq!(kind_named(name), Some(kind));
            let values = [(i + 1) as f64, 3.0, 4.0, SIZE_IS_NUMBER + MTIME_IS_NUMBER];
            let stat = stats_of_batch(&values, 1)[0].expect(name);
            assert_eq!((stat.kind, stat.size, stat.mtime_ms), (kind, 3.0, 4.0));
        }
        for code in [0.0, 5.0, -1.0, 1.5, f64::NAN, f64::INFINITY] {
            assert_eq!(stats_of_batch(&[code, 1.0, 1.0, 3.0], 1), [None], "{code}");
        }
        assert_eq!(kind_named(""), None);
    }

    #[test]
    fn a_stat_needs_a_numeric_mtime_and_a_size_may_be_missing() {
        let without_mtime = stats_of_batch(&[1.0, 2.0, 0.0, SIZE_IS_NUMBER], 1);
        assert_eq!(without_mtime, [None]);
        let without_size = stats_of_batch(&[1.0, 2.0, 8.0, MTIME_IS_NUMBER], 1);
        assert_eq!(without_size[0].map(|s| s.size), Some(0.0));
        // NaN is a number to JS: kept, as a single `stat` keeps it.
        let nan = stats_of_batch(&[1.0, 2.0, f64::NAN, 3.0], 1);
        assert!(nan[0].is_some_and(|s| s.mtime_ms.is_nan()));
    }

    #[test]
    fn a_short_batch_reads_as_missing_past_its_end() {
        let stats = stats_of_batch(&[1.0, 2.0, 3.0, 3.0, 1.0], 3);
        assert!(stats[0].is_some());
        assert_eq!(stats[1..], [None, None]);
        assert_eq!(stats_of_batch(&[], 2), [None, None]);
    }

    #[test]
    fn joined_paths_split_back_into_the_paths_with_nul_paths_empty() {
        let paths = ["/a", "", "/b\0c", "/d/é"];
        let joined = joined_paths(&paths);
        let back: Vec<&str> = joined.split('\0').collect();
        assert_eq!(back, ["/a", "", "", "/d/é"]);
        assert_eq!(joined_paths(&[]), "");
    }
}
