//! One small stable sort shared by every call site.
//!
//! `slice::sort_by` and its relatives are generic: every element type and comparator gets its own
//! copy of the standard library's driftsort, a few KB of wasm each. Here the sorting itself runs
//! once, on positions, through a `dyn` comparator (a plain bottom-up merge sort); the only code
//! made per element type is the final sequence of swaps. The result is exactly that of
//! `slice::sort_by`: stable, equal elements keep their order.

use std::cmp::Ordering;

/// Sort `items` stably by `compare`; the same result as `items.sort_by(compare)`.
///
/// ```
/// use memdir::sort::sort_by;
/// let mut v = [(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd')];
/// sort_by(&mut v, |a, b| a.0.cmp(&b.0));
/// assert_eq!(v, [(1, 'b'), (1, 'd'), (2, 'a'), (2, 'c')]);
/// ```
pub fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    // One `dyn` callback per element type does both jobs (one vtable, not two).
    sort_through(items.len(), &mut |a, b, swap| {
        if swap {
            // `a < b` (see `rearrange`); both are positions of `items`.
            if let Some((head, tail)) = items.split_at_mut_checked(b) {
                if let (Some(x), Some(y)) = (head.get_mut(a), tail.first_mut()) {
                    std::mem::swap(x, y);
                }
            }
            return Ordering::Equal;
        }
        // Positions come from `0..items.len()`: both are always there.
        match (items.get(a), items.get(b)) {
            (Some(x), Some(y)) => compare(x, y),
            _ => Ordering::Equal,
        }
    });
}

/// Sort positions `0..len` through `op(a, b, false)` (compare) and then move the elements
/// through `op(a, b, true)` (swap; the result is ignored).
fn sort_through(len: usize, op: &mut dyn FnMut(usize, usize, bool) -> Ordering) {
    let order = stable_order(len, &mut |a, b| op(a, b, false));
    rearrange(&order, &mut |a, b| {
        op(a, b, true);
    });
}

/// Sort `items` stably by the key `key` gives; the same result as `items.sort_by_key(key)`.
///
/// ```
/// use memdir::sort::sort_by_key;
/// let mut v = ["ccc", "a", "bb", "d"];
/// sort_by_key(&mut v, |s| s.len());
/// assert_eq!(v, ["a", "d", "bb", "ccc"]);
/// ```
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sort `items` in ascending order; the same result as `items.sort()`.
///
/// ```
/// use memdir::sort::sort;
/// let mut v = vec!["b", "c", "a"];
/// sort(&mut v);
/// assert_eq!(v, ["a", "b", "c"]);
/// ```
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// For each position of `keys`, the first earlier position that holds an equal key: `None` for
/// the first of each key and where there is no key. Takes O(n log n), through the shared sort.
///
/// ```
/// use memdir::sort::earlier_equal;
/// let keys = [Some("a"), Some("b"), None, Some("a"), Some("a")];
/// assert_eq!(earlier_equal(&keys), [None, None, None, Some(0), Some(0)]);
/// ```
pub fn earlier_equal<K: Ord>(keys: &[Option<K>]) -> Vec<Option<usize>> {
    let mut order: Vec<usize> = (0..keys.len())
        .filter(|&i| keys.get(i).is_some_and(Option::is_some))
        .collect();
    // Stable: equal keys keep ascending positions, so each run starts with its first.
    sort_by(&mut order, |&a, &b| keys.get(a).cmp(&keys.get(b)));
    let mut out = vec![None; keys.len()];
    let mut run: Option<(usize, &Option<K>)> = None;
    for i in order {
        let (Some(key), Some(slot)) = (keys.get(i), out.get_mut(i)) else {
            continue; // never: `i` is a position of `keys`
        };
        match run {
            Some((first, run_key)) if run_key == key => *slot = Some(first),
            _ => run = Some((i, key)),
        }
    }
    out
}

/// The positions `0..len` in stably sorted order: `order[k]` is the position of the element
/// that belongs at `k`. A bottom-up merge sort; on ties the left run wins, which keeps it stable.
fn stable_order(len: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    let mut merged: Vec<usize> = Vec::with_capacity(len);
    let mut width = 1;
    while width < len {
        merged.clear();
        let mut start = 0;
        while start < len {
            let mid = start.saturating_add(width).min(len);
            let end = mid.saturating_add(width).min(len);
            // `start <= mid <= end <= len`: both runs are always there.
            let left = order.get(start..mid).unwrap_or_default();
            let right = order.get(mid..end).unwrap_or_default();
            let (mut i, mut j) = (0, 0);
            while let (Some(&a), Some(&b)) = (left.get(i), right.get(j)) {
                if compare(b, a) == Ordering::Less {
                    merged.push(b);
                    j += 1;
                } else {
                    merged.push(a);
                    i += 1;
                }
            }
            merged.extend_from_slice(left.get(i..).unwrap_or_default());
            merged.extend_from_slice(right.get(j..).unwrap_or_default());
            start = end;
        }
        std::mem::swap(&mut order, &mut merged);
        width = width.saturating_mul(2);
    }
    order
}

/// Rearrange a slice into `order` (see [`stable_order`]) through `swap(a, b)` calls.
fn rearrange(order: &[usize], swap: &mut dyn FnMut(usize, usize)) {
    // `at[p]`: the original position of the element now at `p`; `now[o]`: where original `o` is.
    let mut at: Vec<usize> = (0..order.len()).collect();
    let mut now = at.clone();
    // Every position and original index is below `order.len()`, so each `get` finds its slot.
    for (target, &wanted) in order.iter().enumerate() {
        let Some(&from) = now.get(wanted) else {
            continue;
        };
        if from != target {
            // Positions before `target` are final, so `from > target`.
            swap(target, from);
            let Some(&displaced) = at.get(target) else {
                continue;
            };
            // `at[target]` (now `wanted`) is never read again: later targets are higher.
            if let Some(slot) = at.get_mut(from) {
                *slot = displaced;
            }
            if let Some(slot) = now.get_mut(displaced) {
                *slot = from;
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // std is the oracle the merge sort is checked against
mod tests {
    use super::*;

    /// A small deterministic generator: no dependency, the same cases every run.
    fn pseudo_random(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        *seed >> 33
    }

    #[test]
    fn matches_the_standard_stable_sort() {
        let mut seed = 7;
        for len in 0..70 {
            for modulus in [1, 2, 3, 10, 1000] {
                let items: Vec<(u64, usize)> = (0..len)
                    .map(|i| (pseudo_random(&mut seed) % modulus, i))
                    .collect();
                let mut ours = items.clone();
                sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
                let mut std_sorted = items.clone();
                std_sorted.sort_by_key(|a| a.0);
                assert_eq!(ours, std_sorted);
                let mut by_key = items.clone();
                sort_by_key(&mut by_key, |x| std::cmp::Reverse(x.0));
                std_sorted.sort_by_key(|x| std::cmp::Reverse(x.0));
                assert_eq!(by_key, std_sorted);
            }
        }
    }

    #[test]
    fn earlier_equal_matches_a_first_seen_map() {
        let mut seed = 3;
        for len in 0..60 {
            let keys: Vec<Option<u64>> = (0..len)
                .map(|_| Some(pseudo_random(&mut seed) % 7).filter(|k| *k != 0))
                .collect();
            let mut first_seen = std::collections::HashMap::new();
            let expected: Vec<Option<usize>> = keys
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    let k = (*k)?;
                    let first = *first_seen.entry(k).or_insert(i);
                    Some(first).filter(|&f| f != i)
                })
                .collect();
            assert_eq!(earlier_equal(&keys), expected);
        }
    }

    #[test]
    fn sorts_owned_values() {
        let mut v: Vec<String> = ["b", "a", "c", "a"].iter().map(|s| s.to_string()).collect();
        sort(&mut v);
        assert_eq!(v, ["a", "a", "b", "c"]);
    }
}
