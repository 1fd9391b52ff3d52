//! Near-duplicate detection: token-set Jaccard similarity over a memory's name and description.

/// Words too common to tell memories apart.
const STOP_WORDS: [&str; 16] = [
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "in", "is", "of", "on", "or", "the",
    "to",
];

/// Lower-cased words (runs of letters and digits) of `text`, stop words left out: a set, as a
/// sorted `Vec` without duplicates.
///
/// ```
/// use memdir::lint::tokens;
/// let t = tokens("Prefers TABS over spaces; the tabs!");
/// assert_eq!(t, ["over", "prefers", "spaces", "tabs"]);
/// ```
pub fn tokens(text: &str) -> Vec<String> {
    let mut words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(crate::case::to_lowercase)
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect();
    crate::sort::sort(&mut words);
    words.dedup();
    words
}

/// The number of elements two sorted, duplicate-free slices share.
fn common_count<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut count) = (0, 0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                count += 1;
                i += 1;
                j += 1;
            }
        }
    }
    count
}

/// |A ∩ B| / |A ∪ B| of two token sets (as [`tokens`] gives them: sorted, no duplicates); 0 for
/// two empty sets.
///
/// ```
/// use memdir::lint::{jaccard, tokens};
/// assert_eq!(jaccard(&tokens("x b c"), &tokens("b c d")), 0.5);
/// ```
pub fn jaccard(a: &[String], b: &[String]) -> f64 {
    let common = common_count(a, b);
    let union = a.len() + b.len() - common;
    if union == 0 {
        return 0.0;
    }
    common as f64 / union as f64
}

/// Pairs `(i, j)`, `i < j`, whose token sets have a Jaccard similarity of at least `threshold`
/// (sets of fewer than `min_tokens` tokens are skipped). Only pairs sharing a token are compared.
pub fn similar_pairs(
    sets: &[Vec<String>],
    threshold: f64,
    min_tokens: usize,
) -> Vec<(usize, usize, f64)> {
    // (token, set) for every token of every set considered, by token; each token's sets in order.
    let mut postings: Vec<(&str, usize)> = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        if set.len() >= min_tokens {
            postings.extend(set.iter().map(|token| (token.as_str(), i)));
        }
    }
    crate::sort::sort_by(&mut postings, |a, b| a.0.cmp(b.0));
    let mut pairs = Vec::new();
    for (i, set) in sets.iter().enumerate() {
        if set.len() < min_tokens {
            continue;
        }
        let mut candidates: Vec<usize> = Vec::new();
        for token in set {
            let start = postings.partition_point(|(t, _)| *t < token.as_str());
            candidates.extend(
                postings
                    .get(start..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|(t, _)| *t == token.as_str())
                    .map(|&(_, j)| j)
                    .filter(|&j| j > i),
            );
        }
        crate::sort::sort(&mut candidates);
        candidates.dedup();
        for j in candidates {
            if let Some(other) = sets.get(j) {
                let score = jaccard(set, other);
                if score >= threshold {
                    pairs.push((i, j, score));
                }
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_above_threshold_only() {
        let sets: Vec<_> = [
            "Prefers tabs over spaces in Go code",
            "prefers tabs over spaces in go",
            "Deploys happen on Fridays",
            "x",
        ]
        .iter()
        .map(|t| tokens(t))
        .collect();
        let pairs = similar_pairs(&sets, 0.7, 2);
        assert_eq!(pairs.len(), 1);
        assert_eq!((pairs[0].0, pairs[0].1), (0, 1));
        assert!((pairs[0].2 - 5.0 / 6.0).abs() < 1e-9);
    }
}
