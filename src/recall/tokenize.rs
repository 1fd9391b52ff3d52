//! Words for the ranker: split, lower-case, drop stop words, light stemming.

/// Words too common to say anything about relevance (English function words, and words every
/// query to a coding assistant or every memory file carries).
const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
    "can", "could", "d", "did", "do", "does", "doing", "done", "down", "during", "each", "else",
    "etc", "ever", "few", "for", "from", "further", "get", "got", "had", "has", "have", "having",
    "he", "help", "her", "here", "hers", "hey", "hi", "him", "his", "how", "i", "if", "in", "into",
    "is", "it", "its", "itself", "just", "let", "like", "ll", "m", "make", "md", "me", "might",
    "more", "most", "much", "must", "my", "need", "no", "nor", "not", "now", "of", "off", "ok",
    "okay", "on", "once", "one", "only", "or", "other", "our", "ours", "out", "over", "own",
    "please", "re", "s", "same", "she", "should", "so", "some", "such", "t", "than", "thank",
    "thanks", "that", "the", "their", "them", "then", "there", "these", "they", "thing", "this",
    "those", "through", "to", "too", "under", "until", "up", "us", "use", "used", "uses", "using",
    "ve", "very", "want", "was", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "why", "will", "with", "would", "yes", "yet", "you", "your", "yours",
];

/// A word of at most 8 bytes as a number (big-endian). Words hold no NUL byte, so different
/// words give different numbers.
const fn pack(word: &[u8]) -> u64 {
    let mut value = 0u64;
    let mut i = 0;
    while i < word.len() {
        value = (value << 8) | word[i] as u64;
        i += 1;
    }
    value
}

/// [`STOP_WORDS`] packed, built at compile time (sorted, which the tests rely on to find
/// duplicates), the keys of [`STOP_TABLE`].
const STOP_KEYS: [u64; STOP_WORDS.len()] = {
    let mut keys = [0u64; STOP_WORDS.len()];
    let mut i = 0;
    while i < STOP_WORDS.len() {
        keys[i] = pack(STOP_WORDS[i].as_bytes());
        i += 1;
    }
    let mut i = 1;
    while i < keys.len() {
        let mut j = i;
        while j > 0 && keys[j - 1] > keys[j] {
            let t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
            j -= 1;
        }
        i += 1;
    }
    keys
};

/// A non-empty word of at most 8 bytes as [`pack`] gives it, or `None` for longer words.
#[inline]
pub(crate) fn packed(word: &str) -> Option<u64> {
    let bytes = word.as_bytes();
    if bytes.is_empty() || bytes.len() > 8 {
        return None;
    }
    Some(bytes.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b)))
}

/// Slots of the stop-word hash table: a power of two, under half full.
const STOP_SLOTS: usize = 512;

/// The slot a packed word hashes to (a multiplicative hash, top bits).
const fn stop_slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - STOP_SLOTS.trailing_zeros())) as usize
}

/// [`STOP_KEYS`] in an open-addressing table (linear probing, `0` = empty: no word packs to 0),
/// built at compile time: the stop-word test, the hottest step of indexing, is one or two
/// probes.
const STOP_TABLE: [u64; STOP_SLOTS] = {
    let mut table = [0u64; STOP_SLOTS];
    let mut i = 0;
    while i < STOP_KEYS.len() {
        let mut slot = stop_slot(STOP_KEYS[i]);
        while table[slot] != 0 {
            slot = (slot + 1) % STOP_SLOTS;
        }
        table[slot] = STOP_KEYS[i];
        i += 1;
    }
    table
};

/// True for a (lower-cased) stop word.
pub(crate) fn is_stop_word(word: &str) -> bool {
    let Some(key) = packed(word) else {
        return false;
    };
    let mut slot = stop_slot(key);
    loop {
        match STOP_TABLE.get(slot) {
            Some(&k) if k == key => return true,
            Some(&0) | None => return false,
            Some(_) => slot = (slot + 1) % STOP_SLOTS,
        }
    }
}

/// Fold common English inflections so `tests`, `testing`, `tested` meet `test`, in place.
/// Deliberately light: plural `s`/`es`/`ies`, `ing`, `ed`, then `ion`, then a final `e` (so
/// `release`, `releases`, `released` and `releasing` all meet at `releas`, and `migration` meets
/// `migrate`). Only on words long enough that the stem is still a word-like prefix. Input is
/// lower-case; stems are only ever compared with other stems, never shown.
pub(crate) fn stem_in_place(w: &mut String) {
    inflection_stem(w);
    if w.len() > 6 && w.as_bytes().ends_with(b"ion") {
        crate::jsstr::truncate_ascii(w, w.len() - 3);
    }
    if w.len() >= 4 && w.as_bytes().last() == Some(&b'e') {
        w.pop();
    }
}

/// The stem of `word` (see [`stem_in_place`]).
#[cfg(test)]
pub(crate) fn stem(word: &str) -> String {
    let mut w = word.to_owned();
    stem_in_place(&mut w);
    w
}

fn inflection_stem(w: &mut String) {
    let b = w.as_bytes();
    let len = b.len();
    // (bytes to cut, then append `y`, then undouble); every suffix is ASCII, so each cut lands
    // on a char boundary. The arms are tried in order, as a chain of `else if`.
    let (cut, add_y, undouble_after) = match b {
        [.., b'i', b'e', b's' | b'd'] if len > 4 => (3, true, false),
        [.., b's', b's', b'e', b's']
        | [.., b's' | b'c', b'h', b'e', b's']
        | [.., b'x' | b'z', b'e', b's'] => (2, false, false),
        [.., x, b's'] if len > 3 && !matches!(x, b's' | b'u' | b'i') => (1, false, false),
        [.., b'i', b'n', b'g'] if len >= 6 => (3, false, true),
        [.., b'e', b'd'] if len >= 5 => (2, false, true),
        _ => return,
    };
    crate::jsstr::truncate_ascii(w, len - cut);
    if add_y {
        w.push('y');
    }
    if undouble_after {
        undouble(w);
    }
}

/// `runn` -> `run`, `stopp` -> `stop`; keeps `ll`, `ss`, `zz` (`install`, `pass`).
fn undouble(stem: &mut String) {
    let b = stem.as_bytes();
    if let [.., x, y] = b {
        if b.len() >= 3 && x == y && x.is_ascii_alphabetic() && !matches!(x, b'l' | b's' | b'z') {
            stem.pop();
        }
    }
}

/// Call `f` with the stem of every non-stop word of `text`. Words are maximal runs of
/// alphanumeric characters, so `_`, `-`, `.`, `/` and punctuation separate them; they are
/// lower-cased before the stop-word test. Single characters are skipped.
pub(crate) fn for_each_term(text: &str, mut f: impl FnMut(&str)) {
    let mut word = String::new();
    let mut flush = |word: &mut String| {
        if word.chars().nth(1).is_some() && !is_stop_word(word) {
            stem_in_place(word);
            f(word);
        }
        word.clear();
    };
    let bytes = text.as_bytes();
    let mut pos = 0;
    while let Some(&b) = bytes.get(pos) {
        let word_char = if b.is_ascii_alphanumeric() {
            // A whole ASCII run at once, lower-cased in place.
            let run = bytes
                .get(pos..)
                .unwrap_or_default()
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .count();
            let start = word.len();
            word.push_str(text.get(pos..pos + run).unwrap_or_default());
            if let Some(added) = word.get_mut(start..) {
                added.make_ascii_lowercase();
            }
            pos += run;
            true
        } else if b.is_ascii() {
            pos += 1;
            false
        } else {
            let Some(c) = text.get(pos..).and_then(|rest| rest.chars().next()) else {
                break;
            };
            pos += c.len_utf8();
            if c.is_alphanumeric() {
                crate::case::push_lowercase(&mut word, c);
            }
            c.is_alphanumeric()
        };
        if !word_char && !word.is_empty() {
            flush(&mut word);
        }
    }
    if !word.is_empty() {
        flush(&mut word);
    }
}

/// The terms of `text` as a vector (see [`for_each_term`]).
#[cfg(test)]
pub(crate) fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, |t| out.push(t.to_owned()));
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn inflections_meet() {
        for group in [
            ["test", "tests", "testing", "tested"],
            ["deploy", "deploys", "deploying", "deployed"],
            ["release", "releases", "released", "releasing"],
            ["run", "runs", "running", "run"],
            ["query", "queries", "queried", "query"],
            ["branch", "branches", "branch", "branch"],
            ["issue", "issues", "issue", "issue"],
            ["pass", "passes", "passed", "passing"],
            ["note", "notes", "noted", "note"],
            ["fix", "fixes", "fixed", "fixing"],
            ["migrate", "migration", "migrations", "migrated"],
        ] {
            let stems: Vec<String> = group.iter().map(|w| stem(w)).collect();
            assert!(
                stems.iter().all(|s| s == &stems[0]),
                "{group:?} -> {stems:?}"
            );
        }
        assert_eq!(stem("install"), "install");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("class"), "class");
        assert_eq!(stem("is"), "is");
    }

    #[test]
    fn stop_words_fit_the_packed_table() {
        assert!(STOP_WORDS.iter().all(|w| w.len() <= 8 && !w.contains('\0')));
        for w in ["a", "ab", "deploy", "12345678", "été"] {
            assert_eq!(packed(w), Some(pack(w.as_bytes())), "{w}");
        }
        assert_eq!(packed(""), None);
        assert_eq!(packed("123456789"), None);
        assert!(
            STOP_KEYS.windows(2).all(|k| k[0] < k[1]),
            "duplicate stop word"
        );
        assert!(STOP_WORDS.iter().all(|w| is_stop_word(w)));
        for w in ["deploy", "abouts", "th", "", "yourselves", "whe"] {
            assert!(!is_stop_word(w), "{w}");
        }
    }

    #[test]
    fn splitting_and_stop_words() {
        assert_eq!(
            terms("How do I run the feedback_testing-policy.md/API?"),
            ["run", "feedback", "test", "policy", "api"]
        );
        assert_eq!(terms("Ünïcode ÉTÉ"), ["ünïcod", "été"]);
        assert!(terms("the a of to I").is_empty());
    }
}
