//! Near-duplicate detection: token-set Jaccard similarity over a memory's name and description,
//! grouped into clusters with bounded work.
//!
//! Candidates come from shared *rare* tokens (prefix filtering): each set's tokens are ordered
//! by how few sets hold them, and two sets whose Jaccard similarity reaches the threshold `t`
//! must share one of the first `|s| − ⌈t·|s|⌉ + 1` tokens of either. Each set is compared with at
//! most [`MAX_CANDIDATES_PER_SET`] earlier sets found through those tokens (the most recent
//! first, at most [`MAX_POSTINGS_PER_SET`] entries looked at), skipping sets already in its
//! cluster, so the work per set is bounded however alike the sets are: 10,000 identical headers
//! cost about 10,000 comparisons, not 50 million. Pairs that reach the threshold join their clusters
//! (union-find); a cluster is reported once.

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
/// (sets of fewer than `min_tokens` tokens are skipped). Only pairs sharing a token are compared,
/// but all of those are: for many alike sets use [`near_duplicate_clusters`], whose work is
/// bounded.
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

/// Most earlier sets one set is compared with ([`near_duplicate_clusters`]).
pub const MAX_CANDIDATES_PER_SET: usize = 32;
/// Most posting-list entries one set looks at (candidates already in its cluster included).
pub const MAX_POSTINGS_PER_SET: usize = 256;

/// Union-find over `0..n` with path halving; the root of a cluster is its smallest member.
pub(crate) struct Clusters {
    parent: Vec<usize>,
}

impl Clusters {
    /// `n` singletons.
    pub(crate) fn new(n: usize) -> Self {
        Clusters {
            parent: (0..n).collect(),
        }
    }

    /// The root of `i`'s cluster.
    pub(crate) fn find(&mut self, mut i: usize) -> usize {
        while let Some(&p) = self.parent.get(i) {
            if p == i {
                break;
            }
            let grand = self.parent.get(p).copied().unwrap_or(p);
            if let Some(slot) = self.parent.get_mut(i) {
                *slot = grand;
            }
            i = grand;
        }
        i
    }

    /// Merge the clusters of `a` and `b`.
    pub(crate) fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        let (keep, join) = if ra <= rb { (ra, rb) } else { (rb, ra) };
        if let Some(slot) = self.parent.get_mut(join) {
            *slot = keep;
        }
    }

    /// The clusters of two or more members, each sorted, in the order of their smallest member.
    pub(crate) fn groups(&mut self) -> Vec<Vec<usize>> {
        let n = self.parent.len();
        let mut by_root: Vec<Vec<usize>> = vec![Vec::new(); n];
        for i in 0..n {
            let root = self.find(i);
            if let Some(group) = by_root.get_mut(root) {
                group.push(i);
            }
        }
        by_root.into_iter().filter(|g| g.len() > 1).collect()
    }
}

/// Near-duplicate clusters and the work done to find them.
#[derive(Clone, Debug, PartialEq)]
pub struct NearDuplicates {
    /// Each cluster's members (indexes into the sets), sorted; clusters in the order of their
    /// first member. Every member reaches the threshold with at least one other member.
    pub clusters: Vec<Vec<usize>>,
    /// Jaccard similarities computed: at most `sets.len() × MAX_CANDIDATES_PER_SET`.
    pub comparisons: usize,
    /// Posting-list entries looked at: at most `sets.len() × MAX_POSTINGS_PER_SET`.
    pub visited: usize,
}

/// Group the sets whose Jaccard similarity reaches `threshold` into clusters, comparing only
/// candidates that share a rare token (see the module docs); sets of fewer than `min_tokens`
/// tokens take no part. `joined` pre-merges sets already known to belong together (exact
/// duplicates): they are not compared again.
///
/// ```
/// use memdir::lint::{near_duplicate_clusters, tokens};
/// let sets: Vec<_> = ["Prefers tabs in Go code", "prefers tabs in go", "Deploys on Fridays"]
///     .iter().map(|t| tokens(t)).collect();
/// let found = near_duplicate_clusters(&sets, 0.7, 2);
/// assert_eq!(found.clusters, [vec![0, 1]]);
/// ```
pub fn near_duplicate_clusters(
    sets: &[Vec<String>],
    threshold: f64,
    min_tokens: usize,
) -> NearDuplicates {
    let mut clusters = Clusters::new(sets.len());
    let (comparisons, visited) = cluster_near(sets, threshold, min_tokens, &mut clusters);
    NearDuplicates {
        clusters: clusters.groups(),
        comparisons,
        visited,
    }
}

/// The work of [`near_duplicate_clusters`] on a given union-find; the comparisons made and the
/// posting entries visited.
pub(crate) fn cluster_near(
    sets: &[Vec<String>],
    threshold: f64,
    min_tokens: usize,
    clusters: &mut Clusters,
) -> (usize, usize) {
    // Document frequency of every token, over the sets that take part.
    let mut all: Vec<&str> = sets
        .iter()
        .filter(|s| s.len() >= min_tokens)
        .flat_map(|s| s.iter().map(String::as_str))
        .collect();
    crate::sort::sort(&mut all);
    let mut df: Vec<(&str, usize)> = Vec::new();
    for token in all {
        match df.last_mut() {
            Some((t, n)) if *t == token => *n += 1,
            _ => df.push((token, 1)),
        }
    }
    let id_of = |token: &str| df.binary_search_by(|(t, _)| (*t).cmp(token)).ok();
    // Per token id, the sets seen so far whose prefix holds it.
    let mut postings: Vec<Vec<usize>> = vec![Vec::new(); df.len()];
    let threshold = if threshold.is_finite() {
        threshold.clamp(0.0, 1.0)
    } else {
        1.0
    };
    let (mut comparisons, mut visited) = (0, 0);
    for (i, set) in sets.iter().enumerate() {
        if set.len() < min_tokens {
            continue;
        }
        // Rarest first (ties by token), then the prefix that must be shared.
        let mut ids: Vec<(usize, usize)> = set
            .iter()
            .filter_map(|t| id_of(t).map(|id| (df.get(id).map_or(0, |d| d.1), id)))
            .collect();
        crate::sort::sort(&mut ids);
        let keep = (threshold * set.len() as f64).ceil() as usize;
        let prefix = (set.len() + 1)
            .saturating_sub(keep.max(1))
            .clamp(1, ids.len().max(1));
        let mut compared: Vec<usize> = Vec::new();
        let mut looked = 0;
        'tokens: for &(_, id) in ids.iter().take(prefix) {
            let Some(list) = postings.get(id) else {
                continue;
            };
            for &j in list.iter().rev() {
                if compared.len() >= MAX_CANDIDATES_PER_SET || looked >= MAX_POSTINGS_PER_SET {
                    break 'tokens;
                }
                looked += 1;
                if compared.contains(&j) || clusters.find(j) == clusters.find(i) {
                    continue;
                }
                compared.push(j);
                comparisons += 1;
                if sets
                    .get(j)
                    .is_some_and(|other| jaccard(set, other) >= threshold)
                {
                    clusters.union(i, j);
                }
            }
        }
        visited += looked;
        for &(_, id) in ids.iter().take(prefix) {
            if let Some(list) = postings.get_mut(id) {
                list.push(i);
            }
        }
    }
    (comparisons, visited)
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
        let found = near_duplicate_clusters(&sets, 0.7, 2);
        assert_eq!(found.clusters, [vec![0, 1]]);
    }

    #[test]
    fn clusters_chain_and_work_is_bounded() {
        // a~b and b~c join one cluster even if a and c are further apart.
        let sets: Vec<_> = [
            "alpha beta gamma delta epsilon",
            "alpha beta gamma delta epsilon zeta",
            "alpha beta gamma delta epsilon zeta eta",
            "unrelated words here",
        ]
        .iter()
        .map(|t| tokens(t))
        .collect();
        let found = near_duplicate_clusters(&sets, 0.8, 2);
        assert_eq!(found.clusters, [vec![0, 1, 2]]);
        // 2,000 identical sets: one cluster, about one comparison each.
        let same: Vec<_> = (0..2000)
            .map(|_| tokens("deploy the api to staging"))
            .collect();
        let found = near_duplicate_clusters(&same, 0.7, 2);
        assert_eq!(found.clusters.len(), 1);
        assert_eq!(found.clusters[0].len(), 2000);
        assert!(found.comparisons <= 2000, "{}", found.comparisons);
        assert!(found.visited <= 2000 * MAX_POSTINGS_PER_SET);
    }
}
