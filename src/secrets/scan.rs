//! Finding rule matches: one pass over the text looking for anchors, then the full shape at
//! each anchor. Match spans follow JavaScript regex semantics (leftmost start, greedy,
//! backtracking), so redaction replaces what the reference would.

use super::pattern::{js_space_at, js_space_before, match_nodes, word_boundary_at};
use super::rules::{
    Anchor, Lead, Rule, Shape, Tail, PEM_BEGIN, PEM_END, PEM_MIN_BODY_UNITS, RULES,
};
use std::cell::OnceCell;
use std::ops::Range;
use std::sync::OnceLock;

/// One match of one rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Match {
    /// The whole match, delimiters included.
    pub(crate) span: Range<usize>,
    /// What redaction replaces.
    pub(crate) secret: Range<usize>,
}

/// The text being scanned, with what is worth computing at most once per text.
pub(crate) struct Haystack<'a> {
    text: &'a str,
    /// Start and end of every valid PEM footer, in order (for the private-key rule).
    pem_footers: OnceCell<Vec<(usize, usize)>>,
}

impl<'a> Haystack<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Haystack {
            text,
            pem_footers: OnceCell::new(),
        }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }
}

/// Does `anchor` occur at byte `pos`?
fn anchor_at(bytes: &[u8], anchor: &Anchor, pos: usize) -> bool {
    let Some(got) = bytes.get(pos..pos + anchor.text.len()) else {
        return false;
    };
    if anchor.no_case {
        got.eq_ignore_ascii_case(anchor.text.as_bytes())
    } else {
        got == anchor.text.as_bytes()
    }
}

/// Bytes of the lead delimiter before `body_start` (0 for none), or `None` when the lead fails.
fn lead_len(hay: &Haystack<'_>, lead: Lead, body_start: usize) -> Option<usize> {
    let bytes = hay.bytes();
    match lead {
        Lead::Any => Some(0),
        Lead::WordBoundary => word_boundary_at(bytes, body_start).then_some(0),
        Lead::Delimited => {
            if body_start == 0 {
                return Some(0);
            }
            let prev = *bytes.get(body_start - 1)?;
            if b"\\'\"`>=:(,)".contains(&prev) {
                return Some(1);
            }
            js_space_before(hay.text, body_start)
        }
    }
}

/// Bytes the tail consumes after `end` (0 for none), or `None` when it fails.
fn tail_len(hay: &Haystack<'_>, tail: Tail, end: usize) -> Option<usize> {
    let bytes = hay.bytes();
    let next = bytes.get(end).copied();
    match tail {
        Tail::Any => Some(0),
        Tail::WordBoundary => word_boundary_at(bytes, end).then_some(0),
        Tail::TokenEnd => match next {
            None => Some(0),
            Some(b'`' | b'\'' | b'"' | b';') => Some(1),
            Some(b'\\') => matches!(bytes.get(end + 1), Some(b'n' | b'r')).then_some(2),
            Some(_) => js_space_at(hay.text, end),
        },
        Tail::Delimited => match next {
            None => Some(0),
            Some(b'\\' | b'\'' | b'"' | b'`' | b'<' | b')' | b',') => Some(1),
            Some(_) => js_space_at(hay.text, end),
        },
    }
}

/// The match of `rule` whose token body starts at `body_start`, if there is one.
pub(crate) fn match_at(hay: &Haystack<'_>, rule: &Rule, body_start: usize) -> Option<Match> {
    match rule.shape {
        Shape::Token {
            lead,
            body,
            tail,
            body_only,
        } => {
            let before = lead_len(hay, lead, body_start)?;
            let mut found = None;
            match_nodes(
                hay.bytes(),
                body,
                body_start,
                &mut |end| match tail_len(hay, tail, end) {
                    Some(after) => {
                        found = Some((end, after));
                        true
                    }
                    None => false,
                },
            );
            let (end, after) = found?;
            let span = body_start - before..end + after;
            let secret = if body_only {
                body_start..end
            } else {
                span.clone()
            };
            Some(Match { span, secret })
        }
        Shape::PrivateKey => private_key_at(hay, body_start),
    }
}

fn private_key_at(hay: &Haystack<'_>, start: usize) -> Option<Match> {
    let footers = hay.pem_footers.get_or_init(|| pem_footers(hay.bytes()));
    let mut found = None;
    match_nodes(hay.bytes(), &PEM_BEGIN, start, &mut |header_end| {
        // The body is lazy: the first footer at least 64 UTF-16 units after the header.
        let Some(earliest) = advance_utf16(hay.text, header_end, PEM_MIN_BODY_UNITS) else {
            return false;
        };
        let first = footers.partition_point(|&(footer_start, _)| footer_start < earliest);
        match footers.get(first) {
            Some(&(_, footer_end)) => {
                found = Some(footer_end);
                true
            }
            None => false,
        }
    });
    let end = found?;
    Some(Match {
        span: start..end,
        secret: start..end,
    })
}

/// Every position where a PEM footer matches, with the end of that footer.
fn pem_footers(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (pos, &b) in bytes.iter().enumerate() {
        let is_footer_start = b == b'-'
            && bytes
                .get(pos..pos + 8)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"-----END"));
        if !is_footer_start {
            continue;
        }
        let mut end = None;
        match_nodes(bytes, &PEM_END, pos, &mut |e| {
            end = Some(e);
            true
        });
        if let Some(end) = end {
            out.push((pos, end));
        }
    }
    out
}

/// The byte position `units` UTF-16 code units after `from`, if the text is that long.
fn advance_utf16(text: &str, from: usize, units: usize) -> Option<usize> {
    let mut counted = 0;
    let mut pos = from;
    let mut chars = text.get(from..)?.chars();
    while counted < units {
        let c = chars.next()?;
        counted += c.len_utf16();
        pos += c.len_utf8();
    }
    Some(pos)
}

/// Where anchors may start: the set of their first two bytes (both cases for case-insensitive
/// anchors), and for each first byte the (rule, anchor) pairs to try.
struct AnchorIndex {
    bigrams: Vec<u64>,
    by_first: Vec<Vec<(usize, usize)>>,
}

fn anchor_index() -> &'static AnchorIndex {
    static INDEX: OnceLock<AnchorIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index = AnchorIndex {
            bigrams: vec![0; 65536 / 64],
            by_first: vec![Vec::new(); 256],
        };
        for (rule_index, rule) in RULES.iter().enumerate() {
            for (anchor_index, anchor) in rule.anchors.iter().enumerate() {
                let (Some(&b0), Some(&b1)) = (
                    anchor.text.as_bytes().first(),
                    anchor.text.as_bytes().get(1),
                ) else {
                    continue;
                };
                let cases = |b: u8| {
                    if anchor.no_case {
                        vec![b.to_ascii_lowercase(), b.to_ascii_uppercase()]
                    } else {
                        vec![b]
                    }
                };
                for first in cases(b0) {
                    if let Some(slot) = index.by_first.get_mut(usize::from(first)) {
                        if !slot.contains(&(rule_index, anchor_index)) {
                            slot.push((rule_index, anchor_index));
                        }
                    }
                    for second in cases(b1) {
                        let key = usize::from(first) << 8 | usize::from(second);
                        if let Some(word) = index.bigrams.get_mut(key / 64) {
                            *word |= 1 << (key % 64);
                        }
                    }
                }
            }
        }
        index
    })
}

/// For every rule, the positions where its token body may start (ascending, no duplicates):
/// one pass over the text, filtered on the anchors' first two bytes.
fn candidate_starts(text: &str) -> Vec<Vec<usize>> {
    let index = anchor_index();
    let bytes = text.as_bytes();
    let mut starts: Vec<Vec<usize>> = vec![Vec::new(); RULES.len()];
    for (pos, pair) in bytes.windows(2).enumerate() {
        let (first, second) = match pair {
            [a, b] => (usize::from(*a), usize::from(*b)),
            _ => continue,
        };
        let key = first << 8 | second;
        let hit = index
            .bigrams
            .get(key / 64)
            .is_some_and(|word| word & (1 << (key % 64)) != 0);
        if !hit {
            continue;
        }
        for &(rule_index, anchor_index) in index.by_first.get(first).into_iter().flatten() {
            let (Some(rule), Some(list)) = (RULES.get(rule_index), starts.get_mut(rule_index))
            else {
                continue;
            };
            let Some(anchor) = rule.anchors.get(anchor_index) else {
                continue;
            };
            if !anchor_at(bytes, anchor, pos) {
                continue;
            }
            if let Some(start) = pos.checked_sub(anchor.offset) {
                if list.last() != Some(&start) {
                    list.push(start);
                }
            }
        }
    }
    starts
}

/// Which rules match anywhere in `text`, as flags in rule order.
pub(crate) fn rules_matching(text: &str) -> [bool; RULES.len()] {
    let hay = Haystack::new(text);
    let starts = candidate_starts(text);
    let mut found = [false; RULES.len()];
    for ((rule, flag), list) in RULES.iter().zip(found.iter_mut()).zip(&starts) {
        *flag = list
            .iter()
            .any(|&start| match_at(&hay, rule, start).is_some());
    }
    found
}

/// Every non-overlapping match of each rule, left to right, as a global JS regex finds them,
/// for the text as it stands, for the rules from index `from_rule` on.
pub(crate) fn all_matches(text: &str, from_rule: usize) -> Vec<(usize, Vec<Match>)> {
    let hay = Haystack::new(text);
    let starts = candidate_starts(text);
    let mut out = Vec::new();
    for (rule_index, (rule, list)) in RULES.iter().zip(starts).enumerate().skip(from_rule) {
        let mut matches: Vec<Match> = Vec::new();
        let mut next_start = 0;
        for body_start in list {
            if body_start < next_start {
                continue;
            }
            if let Some(m) = match_at(&hay, rule, body_start) {
                if m.span.start >= next_start {
                    next_start = m.span.end.max(m.span.start + 1);
                    matches.push(m);
                }
            }
        }
        if !matches.is_empty() {
            out.push((rule_index, matches));
        }
    }
    out
}
