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
    // Contractions split at the apostrophe (`don't` → `don`, `t`) and chit-chat.
    "aren", "couldn", "didn", "doesn", "don", "hasn", "haven", "isn", "shouldn", "wasn", "weren",
    "won", "wouldn", "anything", "awesome", "cool", "fine", "good", "gonna", "great", "hello",
    "know", "maybe", "nice", "perfect", "really", "sure", "tell", "think", "wanna", "worked",
    "works",
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
    let len = bytes.len();
    if len == 0 || len > 8 {
        return None;
    }
    // Right-aligned in 8 bytes, read big-endian: the fold of `pack`, without a loop.
    let mut buf = [0u8; 8];
    buf.get_mut(8 - len..)?.copy_from_slice(bytes);
    Some(u64::from_be_bytes(buf))
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
        // `string`, `spring` keep their `ing`: what is left must hold a vowel.
        [stem @ .., b'i', b'n', b'g'] if len >= 6 && has_vowel(stem) => (3, false, true),
        // `speed`, `proceed` and `embed` keep their `ed`.
        [.., x, b'e', b'd']
            if len >= 5
                && *x != b'e'
                && has_vowel(b.get(..len - 2).unwrap_or_default())
                && b != b"embed" =>
        {
            (2, false, true)
        }
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

/// True if `stem` holds an ASCII vowel (or `y`).
fn has_vowel(stem: &[u8]) -> bool {
    stem.iter()
        .any(|b| matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y'))
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

/// How [`for_each_identifier`] sees a byte: outside identifiers, an ASCII alphanumeric, a
/// joiner (the characters that join the parts of one identifier: `snake_case`, `kebab-case`,
/// dotted names, paths, `std::io`, `user@host`), or part of a non-ASCII character (decoded).
const OUTSIDE: u8 = 0;
const ALNUM: u8 = 1;
const JOINER: u8 = 2;
const NON_ASCII: u8 = 3;

/// [`OUTSIDE`], [`ALNUM`], [`JOINER`] or [`NON_ASCII`] by byte.
const BYTE_CLASS: [u8; 256] = {
    let mut table = [NON_ASCII; 256];
    let mut b = 0u8;
    while b < 128 {
        table[b as usize] = if b.is_ascii_alphanumeric() {
            ALNUM
        } else if matches!(b, b'_' | b'-' | b'.' | b'/' | b'\\' | b':' | b'@') {
            JOINER
        } else {
            OUTSIDE
        };
        b += 1;
    }
    table
};

/// Reusable buffers of [`identifier_terms`].
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    /// `(start, end)` byte ranges of the current identifier's parts.
    parts: Vec<(usize, usize)>,
    word: String,
    raw: String,
}

/// Call `f` with every term of `text`, in order. Text is cut into identifiers: maximal runs of
/// alphanumeric characters and joiners (`_ - . / \ : @`), trimmed of joiners at both ends. An
/// identifier made of one word (`Deploy`, `ECONNREFUSED`, `E0502`, `404`) gives that word,
/// lower-cased, unless it is a stop word, then stemmed (see [`stem_in_place`]). An identifier of
/// several parts (`camelCase`, `HTTPServer`, `snake_case`, `kebab-case`, `src/auth/token.ts`,
/// `foo.bar.baz`, `v1.2.3`) gives the whole identifier lower-cased with `_` and `-` removed (so
/// `snake_case`, `snakeCase` and `snake-case` meet), for a path also its last segment, and then
/// each part as a word. Single characters are skipped; letters and digits are never split apart
/// (`TS2345`, `oauth2`, `base64` stay whole). (The ranker indexes through
/// [`for_each_identifier`] and [`identifier_terms`]; this is their composition.)
#[cfg(test)]
pub(crate) fn for_each_term(text: &str, mut f: impl FnMut(&str)) {
    for_each_term_raw(text, |term, _| f(term));
}

/// [`for_each_term`], also giving each term's word before stemming (for a whole identifier,
/// the term itself).
#[cfg(test)]
pub(crate) fn for_each_term_raw(text: &str, mut f: impl FnMut(&str, &str)) {
    let mut scratch = Scratch::default();
    for_each_identifier_keyed(text, |ident, _| {
        identifier_terms(ident, &mut scratch, &mut f)
    });
}

/// Call `f` with every identifier of `text` (see [`for_each_term`]), in order, trimmed of
/// joiners, never empty. Its terms are [`identifier_terms`]'s: a function of the identifier's
/// text alone, which is what lets the ranker keep them per identifier.
#[cfg(test)]
pub(crate) fn for_each_identifier(text: &str, mut f: impl FnMut(&str)) {
    for_each_identifier_keyed(text, |ident, _| f(ident));
}

/// [`for_each_identifier`], also giving each identifier's [`packed`] value (`0` for one longer
/// than 8 bytes): the word is packed as it is scanned, so the ranker's look-up needs no second
/// pass over it.
pub(crate) fn for_each_identifier_keyed(text: &str, mut f: impl FnMut(&str, u64)) {
    let bytes = text.as_bytes();
    let class_at = |pos: usize| -> Option<u8> {
        bytes
            .get(pos)
            .map(|&b| BYTE_CLASS.get(usize::from(b)).copied().unwrap_or(NON_ASCII))
    };
    // The current run of identifier characters, trimmed of joiners as it goes: where its first
    // alphanumeric starts and where its last one ends (`None`: none yet).
    let mut first: Option<usize> = None;
    let mut last_end = 0;
    let mut pos = 0;
    while let Some(class) = class_at(pos) {
        match class {
            ALNUM => {
                let start = pos;
                // The rest of an ASCII word, packed as it goes, in a tight loop.
                let mut key = 0u64;
                while let Some(&b) = bytes.get(pos) {
                    if BYTE_CLASS.get(usize::from(b)) != Some(&ALNUM) {
                        break;
                    }
                    key = (key << 8) | u64::from(b);
                    pos += 1;
                }
                last_end = pos;
                match first {
                    // A whole identifier of one ASCII word: its key is known.
                    None if class_at(pos).is_none_or(|c| c == OUTSIDE) => {
                        let ident = text.get(start..pos).unwrap_or_default();
                        f(ident, if pos - start <= 8 { key } else { 0 });
                        if pos < bytes.len() {
                            pos += 1; // the byte outside
                        }
                    }
                    None => first = Some(start),
                    Some(_) => {}
                }
            }
            JOINER => pos += 1,
            OUTSIDE => {
                if let Some(s) = first.take() {
                    emit_identifier(text, s, last_end, &mut f);
                }
                pos += 1;
            }
            _ => {
                let Some(c) = text.get(pos..).and_then(|rest| rest.chars().next()) else {
                    break;
                };
                let width = c.len_utf8();
                if c.is_alphanumeric() {
                    if first.is_none() {
                        first = Some(pos);
                    }
                    last_end = pos + width;
                } else if let Some(s) = first.take() {
                    emit_identifier(text, s, last_end, &mut f);
                }
                pos += width;
            }
        }
    }
    if let Some(s) = first {
        emit_identifier(text, s, last_end, &mut f);
    }
}

/// `text[start..end]` and its key, to `f`.
fn emit_identifier(text: &str, start: usize, end: usize, f: &mut impl FnMut(&str, u64)) {
    let ident = text.get(start..end).unwrap_or_default();
    f(ident, packed(ident).unwrap_or(0));
}

/// Emit the terms of one identifier (trimmed, as [`for_each_identifier`] gives it; see
/// [`for_each_term`]), each with its word before stemming.
pub(crate) fn identifier_terms(ident: &str, scratch: &mut Scratch, f: &mut impl FnMut(&str, &str)) {
    // The common case: one lower-case ASCII word.
    if ident
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        scratch.word.clear();
        scratch.word.push_str(ident);
        emit_word(&mut scratch.word, &mut scratch.raw, f);
        return;
    }
    split_parts(ident, &mut scratch.parts);
    let word = &mut scratch.word;
    if scratch.parts.len() > 1 {
        whole(ident, word);
        if word.chars().nth(1).is_some() {
            f(word, word);
        }
        let segment = ident
            .rfind(['/', '\\'])
            .and_then(|cut| ident.get(cut + 1..))
            .unwrap_or_default();
        if segment.contains(|c: char| !c.is_alphanumeric()) {
            whole(segment, word);
            f(word, word);
        }
    }
    for &(s, e) in &scratch.parts {
        word.clear();
        for c in ident.get(s..e).unwrap_or_default().chars() {
            crate::case::push_lowercase(word, c);
        }
        emit_word(word, &mut scratch.raw, f);
    }
}

/// `text` lower-cased without `_` and `-`, into `out`.
fn whole(text: &str, out: &mut String) {
    out.clear();
    for c in text.chars().filter(|&c| c != '_' && c != '-') {
        crate::case::push_lowercase(out, c);
    }
}

/// A lower-cased word: skipped if a single character or a stop word, else stemmed and emitted
/// (with a copy of the word before stemming, kept in `raw`).
fn emit_word(word: &mut String, raw: &mut String, f: &mut impl FnMut(&str, &str)) {
    if word.chars().nth(1).is_some() && !is_stop_word(word) {
        raw.clear();
        raw.push_str(word);
        stem_in_place(word);
        f(word, raw);
    }
}

/// The byte ranges of the parts of `ident`: runs of alphanumerics, split where the (ASCII) case
/// turns (`camelCase` → `camel`, `Case`; `HTTPServer` → `HTTP`, `Server`), never between a letter
/// and a digit.
fn split_parts(ident: &str, parts: &mut Vec<(usize, usize)>) {
    parts.clear();
    let mut start: Option<usize> = None;
    let mut chars = ident.char_indices().peekable();
    let mut prev: Option<char> = None;
    while let Some((i, c)) = chars.next() {
        if !c.is_alphanumeric() {
            if let Some(s) = start.take() {
                parts.push((s, i));
            }
            prev = None;
            continue;
        }
        if let (Some(s), Some(p)) = (start, prev) {
            // `camelCase`, `HTTPServer`, `base64Encode`; not `I2C`, `2FA`. ASCII only (code
            // identifiers; and no Unicode case tables in the module for it).
            let next_lower = chars.peek().is_some_and(|&(_, n)| n.is_ascii_lowercase());
            let turn = c.is_ascii_uppercase()
                && (p.is_ascii_lowercase()
                    || ((p.is_ascii_uppercase() || p.is_ascii_digit()) && next_lower));
            if turn {
                parts.push((s, i));
                start = Some(i);
            }
        }
        if start.is_none() {
            start = Some(i);
        }
        prev = Some(c);
    }
    if let Some(s) = start {
        parts.push((s, ident.len()));
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
#[path = "tokenize_equiv.rs"]
mod equiv;

#[cfg(test)]
mod tests {
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
            [
                "run",
                "feedbacktestingpolicy.md/api",
                "feedback",
                "test",
                "policy",
                "api"
            ]
        );
        assert_eq!(terms("Ünïcode ÉTÉ"), ["ünïcod", "été"]);
        assert!(terms("the a of to I").is_empty());
        assert!(terms("hello! don't you think so? thanks, that's great").is_empty());
        assert!(terms("... -- / :: _").is_empty());
    }

    #[test]
    fn identifiers_give_the_whole_and_its_parts() {
        let cases: &[(&str, &[&str])] = &[
            ("getUserName", &["getusername", "user", "nam"]),
            ("HTTPServer", &["httpserver", "http", "server"]),
            (
                "snake_case_words",
                &["snakecasewords", "snak", "cas", "word"],
            ),
            ("kebab-case", &["kebabcase", "kebab", "cas"]),
            (
                "`src/auth/token.ts`,",
                &[
                    "src/auth/token.ts",
                    "token.ts",
                    "src",
                    "auth",
                    "token",
                    "ts",
                ],
            ),
            ("foo.bar.baz", &["foo.bar.baz", "foo", "bar", "baz"]),
            ("std::io::Error", &["std::io::error", "std", "io", "error"]),
            ("error[E0502]:", &["error", "e0502"]),
            ("ECONNREFUSED", &["econnrefus"]),
            ("TS2345", &["ts2345"]),
            ("HTTP 404s", &["http", "404"]),
            ("v1.2.3", &["v1.2.3", "v1"]),
            ("Node 18.04.", &["nod", "18.04", "18", "04"]),
            ("base64Encode", &["base64encode", "base64", "encod"]),
            ("--no-verify", &["noverify", "verify"]),
            ("I2C and 2FA", &["i2c", "2fa"]),
        ];
        for (text, want) in cases {
            assert_eq!(terms(text), *want, "{text}");
        }
        // The conventions meet on the whole identifier.
        let whole = |t: &str| terms(t)[0].clone();
        assert_eq!(whole("snakeCase"), whole("snake_case"));
        assert_eq!(whole("snake-case"), whole("SnakeCase"));
    }

    #[test]
    fn stemming_is_conservative() {
        for (word, want) in [
            ("string", "string"),
            ("spring", "spring"),
            ("speed", "speed"),
            ("embed", "embed"),
            ("embedded", "embed"),
            ("embedding", "embed"),
            ("logging", "log"),
            ("fixed", "fix"),
            ("redis", "redis"),
            ("https", "http"),
        ] {
            assert_eq!(stem(word), want, "{word}");
        }
    }
}
