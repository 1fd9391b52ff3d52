//! A tiny backtracking matcher for the fixed token shapes of the secret rules.
//!
//! Each rule is a short sequence of [`Node`]s — literals, bounded repetitions of an ASCII class,
//! alternations, optional parts, word boundaries — matched with the same leftmost, greedy,
//! backtracking order a JavaScript regex uses, so the matched span (and therefore what
//! redaction replaces) is the one the reference's regex would find. There is no regex crate and
//! no compilation step: the node lists are `static` data.
//!
//! JavaScript semantics kept on purpose: `\b`, `\w` and `\d` are ASCII-only;
//! `\s` is the JS whitespace set (Unicode spaces and U+FEFF included).

use crate::jsstr::is_js_whitespace;

/// One step of a token shape.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Node {
    /// These exact bytes.
    Lit(&'static str),
    /// These bytes, ASCII case-insensitively.
    LitNoCase(&'static str),
    /// Between `min` and `max` bytes of a class, greedily (backtracking toward `min`).
    Rep(fn(u8) -> bool, usize, usize),
    /// The first branch that lets the rest of the pattern match.
    Alt(&'static [&'static [Node]]),
    /// The nodes, or nothing (greedy: with the nodes first).
    Opt(&'static [Node]),
    /// `\b`: a change between an ASCII word byte and anything else.
    WordBoundary,
}

/// Unbounded repetition (`*`, `+`) as a `Rep` maximum.
pub(crate) const MANY: usize = usize::MAX;

/// ASCII `\w`.
pub(crate) fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The JS whitespace character starting at byte `pos`, if any; its UTF-8 length.
pub(crate) fn js_space_at(text: &str, pos: usize) -> Option<usize> {
    let c = text.get(pos..)?.chars().next()?;
    is_js_whitespace(c).then(|| c.len_utf8())
}

/// The JS whitespace character ending at byte `pos`, if any; its UTF-8 length.
pub(crate) fn js_space_before(text: &str, pos: usize) -> Option<usize> {
    let c = text.get(..pos)?.chars().next_back()?;
    is_js_whitespace(c).then(|| c.len_utf8())
}

/// Does `\b` hold at byte `pos`?
pub(crate) fn word_boundary_at(bytes: &[u8], pos: usize) -> bool {
    let before = pos
        .checked_sub(1)
        .and_then(|i| bytes.get(i))
        .is_some_and(|&b| is_word(b));
    let after = bytes.get(pos).is_some_and(|&b| is_word(b));
    before != after
}

/// Match `nodes` at byte `pos`, then call `rest` with each end position the nodes can reach, in
/// backtracking order; true as soon as `rest` accepts one.
pub(crate) fn match_nodes(
    bytes: &[u8],
    nodes: &[Node],
    pos: usize,
    rest: &mut dyn FnMut(usize) -> bool,
) -> bool {
    let Some((first, tail)) = nodes.split_first() else {
        return rest(pos);
    };
    match *first {
        Node::Lit(lit) => {
            let end = pos + lit.len();
            bytes.get(pos..end) == Some(lit.as_bytes()) && match_nodes(bytes, tail, end, rest)
        }
        Node::LitNoCase(lit) => {
            let end = pos + lit.len();
            bytes
                .get(pos..end)
                .is_some_and(|got| got.eq_ignore_ascii_case(lit.as_bytes()))
                && match_nodes(bytes, tail, end, rest)
        }
        Node::Rep(class, min, max) => {
            let run = bytes
                .get(pos..)
                .unwrap_or_default()
                .iter()
                .take(max)
                .take_while(|&&b| class(b))
                .count();
            (min..=run)
                .rev()
                .any(|count| match_nodes(bytes, tail, pos + count, rest))
        }
        Node::Alt(branches) => {
            for branch in branches {
                if match_nodes(bytes, branch, pos, &mut |end| {
                    match_nodes(bytes, tail, end, rest)
                }) {
                    return true;
                }
            }
            false
        }
        Node::Opt(inner) => {
            match_nodes(bytes, inner, pos, &mut |end| {
                match_nodes(bytes, tail, end, rest)
            }) || match_nodes(bytes, tail, pos, rest)
        }
        Node::WordBoundary => word_boundary_at(bytes, pos) && match_nodes(bytes, tail, pos, rest),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn digit(b: u8) -> bool {
        b.is_ascii_digit()
    }

    fn end_of(nodes: &[Node], text: &str) -> Option<usize> {
        let mut found = None;
        match_nodes(text.as_bytes(), nodes, 0, &mut |end| {
            found = Some(end);
            true
        });
        found
    }

    #[test]
    fn greedy_repetition_backtracks_to_let_the_rest_match() {
        // [0-9]{1,5}9 on "12399": greedy takes 5, backs off to 4 so the literal 9 matches.
        let nodes = [Node::Rep(digit, 1, 5), Node::Lit("9")];
        assert_eq!(end_of(&nodes, "12399"), Some(5));
        assert_eq!(end_of(&nodes, "1238"), None);
    }

    #[test]
    fn alternation_tries_branches_in_order() {
        let nodes = [
            Node::Alt(&[&[Node::Lit("ab")], &[Node::Lit("a")]]),
            Node::Lit("c"),
        ];
        assert_eq!(end_of(&nodes, "ac"), Some(2));
        assert_eq!(end_of(&nodes, "abc"), Some(3));
    }

    #[test]
    fn word_boundary_is_ascii_only() {
        assert!(word_boundary_at(b"a b", 1));
        assert!(!word_boundary_at(b"ab", 1));
        // A non-ASCII letter is not a word character for JS `\b`.
        assert!(word_boundary_at("é1".as_bytes(), 2));
        assert!(js_space_at("x\u{FEFF}", 1).is_some());
        assert_eq!(js_space_before("\u{3000}a", 3), Some(3));
    }
}
