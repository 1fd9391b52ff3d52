//! [`StrMap`]: a map with `String` keys (and `String` values unless told otherwise), kept as a
//! sorted `Vec`.
//!
//! It stands in for `BTreeMap<String, String>` (environment variables, prompt section overrides,
//! sync checksums, team files): the maps here are small or read in one pass, and the B-tree's
//! node code is large in wasm. Iteration is in key order, as with a `BTreeMap`.

use std::fmt;

/// A map from `String` to `V` (by default `String`), iterated in key order (byte order, as
/// `BTreeMap<String, V>`).
///
/// ```
/// use memdir::str_map::StrMap;
/// let mut m = StrMap::new();
/// m.insert("b".to_owned(), "2".to_owned());
/// m.insert("a".to_owned(), "1".to_owned());
/// assert_eq!(m.get("a").map(String::as_str), Some("1"));
/// assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "b"]);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct StrMap<V = String> {
    /// Sorted by key, keys distinct.
    pairs: Vec<(String, V)>,
}

impl<V> Default for StrMap<V> {
    fn default() -> Self {
        StrMap { pairs: Vec::new() }
    }
}

impl<V> StrMap<V> {
    /// An empty map.
    ///
    /// ```
    /// let m: memdir::str_map::StrMap = memdir::str_map::StrMap::new();
    /// assert!(m.is_empty());
    /// ```
    pub fn new() -> Self {
        StrMap { pairs: Vec::new() }
    }

    /// Where `key` is (`Ok`) or would go (`Err`).
    fn find(&self, key: &str) -> Result<usize, usize> {
        self.pairs.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    /// The value for `key`.
    ///
    /// ```
    /// use memdir::str_map::StrMap;
    /// let m = StrMap::from([("k".to_owned(), "v".to_owned())]);
    /// assert_eq!(m.get("k").map(String::as_str), Some("v"));
    /// assert_eq!(m.get("x"), None);
    /// ```
    pub fn get(&self, key: &str) -> Option<&V> {
        let i = self.find(key).ok()?;
        self.pairs.get(i).map(|(_, v)| v)
    }

    /// Whether `key` has a value.
    ///
    /// ```
    /// use memdir::str_map::StrMap;
    /// assert!(StrMap::from([("k".to_owned(), String::new())]).contains_key("k"));
    /// ```
    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_ok()
    }

    /// Set `key` to `value`; the previous value, if any. Each insert shifts the keys after it:
    /// build a large map with `collect` or `extend` instead.
    ///
    /// ```
    /// use memdir::str_map::StrMap;
    /// let mut m = StrMap::new();
    /// assert_eq!(m.insert("k".to_owned(), "1".to_owned()), None);
    /// assert_eq!(m.insert("k".to_owned(), "2".to_owned()), Some("1".to_owned()));
    /// ```
    pub fn insert(&mut self, key: String, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => self
                .pairs
                .get_mut(i)
                .map(|(_, v)| std::mem::replace(v, value)),
            Err(i) => {
                self.pairs.insert(i, (key, value));
                None
            }
        }
    }

    /// Take `key` out; its value, if any.
    ///
    /// ```
    /// use memdir::str_map::StrMap;
    /// let mut m = StrMap::from([("k".to_owned(), "v".to_owned())]);
    /// assert_eq!(m.remove("k"), Some("v".to_owned()));
    /// assert!(m.is_empty());
    /// ```
    pub fn remove(&mut self, key: &str) -> Option<V> {
        let i = self.find(key).ok()?;
        Some(self.pairs.remove(i).1)
    }

    /// The number of keys.
    ///
    /// ```
    /// use memdir::str_map::StrMap;
    /// assert_eq!(StrMap::from([("a".to_owned(), String::new())]).len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether there are no keys.
    ///
    /// ```
    /// let m: memdir::str_map::StrMap<usize> = Default::default();
    /// assert!(m.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Remove every key.
    ///
    /// ```
    /// use memdir::str_map::StrMap;
    /// let mut m = StrMap::from([("a".to_owned(), String::new())]);
    /// m.clear();
    /// assert!(m.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.pairs.clear();
    }

    /// Keep only the first `len` keys (in key order).
    ///
    /// ```
    /// use memdir::str_map::StrMap;
    /// let mut m: StrMap = [("b", "2"), ("a", "1"), ("c", "3")]
    ///     .into_iter()
    ///     .map(|(k, v)| (k.to_owned(), v.to_owned()))
    ///     .collect();
    /// m.truncate(2);
    /// assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    pub fn truncate(&mut self, len: usize) {
        self.pairs.truncate(len);
    }

    /// Keep the entries for which `keep` returns true, visited in key order.
    ///
    /// ```
    /// use memdir::str_map::StrMap;
    /// let mut m = StrMap::from([("a".to_owned(), "x".to_owned()), ("b".to_owned(), "y".to_owned())]);
    /// m.retain(|_, v| v == "y");
    /// assert_eq!(m.keys().collect::<Vec<_>>(), ["b"]);
    /// ```
    pub fn retain(&mut self, mut keep: impl FnMut(&String, &mut V) -> bool) {
        self.pairs.retain_mut(|(k, v)| keep(k, v));
    }

    /// The entries in key order.
    ///
    /// ```
    /// use memdir::str_map::StrMap;
    /// let m = StrMap::from([("b".to_owned(), "2".to_owned()), ("a".to_owned(), "1".to_owned())]);
    /// let pairs: Vec<(&String, &String)> = m.iter().collect();
    /// assert_eq!(pairs[0].0, "a");
    /// ```
    pub fn iter(&self) -> Iter<'_, V> {
        Iter {
            inner: self.pairs.iter(),
        }
    }

    /// The keys in order.
    ///
    /// ```
    /// use memdir::str_map::StrMap;
    /// let m = StrMap::from([("b".to_owned(), String::new()), ("a".to_owned(), String::new())]);
    /// assert_eq!(m.keys().collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.pairs.iter().map(|(k, _)| k)
    }
}

/// The entries of a [`StrMap`] in key order (see [`StrMap::iter`]).
#[derive(Clone, Debug)]
pub struct Iter<'a, V = String> {
    inner: std::slice::Iter<'a, (String, V)>,
}

impl<'a, V> Iterator for Iter<'a, V> {
    type Item = (&'a String, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(|(k, v)| (k, v))
    }
}

impl<V> FromIterator<(String, V)> for StrMap<V> {
    /// As `BTreeMap`: sorted by key, the last value given for a key wins.
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        let mut pairs: Vec<(String, V)> = iter.into_iter().collect();
        crate::sort::sort_by(&mut pairs, |a, b| a.0.cmp(&b.0));
        // Equal keys are adjacent in the order given; keep the last of each run.
        let mut deduped: Vec<(String, V)> = Vec::with_capacity(pairs.len());
        for pair in pairs {
            match deduped.last_mut() {
                Some(last) if last.0 == pair.0 => *last = pair,
                _ => deduped.push(pair),
            }
        }
        StrMap { pairs: deduped }
    }
}

impl<V, const N: usize> From<[(String, V); N]> for StrMap<V> {
    fn from(pairs: [(String, V); N]) -> Self {
        pairs.into_iter().collect()
    }
}

impl<V> Extend<(String, V)> for StrMap<V> {
    /// All at once (one sort, not an insertion each): the values given win over those held.
    fn extend<I: IntoIterator<Item = (String, V)>>(&mut self, iter: I) {
        let held = std::mem::take(&mut self.pairs);
        *self = held.into_iter().chain(iter).collect();
    }
}

impl<V> IntoIterator for StrMap<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.pairs.into_iter()
    }
}

impl<'a, V> IntoIterator for &'a StrMap<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = Iter<'a, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<V: fmt::Debug> fmt::Debug for StrMap<V> {
    /// As `BTreeMap`: `{"key": "value"}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<V: serde::Serialize> serde::Serialize for StrMap<V> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> serde::Deserialize<'de> for StrMap {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor;
        impl<'de> serde::de::Visitor<'de> for MapVisitor {
            type Value = StrMap;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of strings")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<StrMap, A::Error> {
                // Collected first and sorted once: inserting one by one is quadratic.
                let mut pairs = Vec::new();
                while let Some(pair) = map.next_entry::<String, String>()? {
                    pairs.push(pair);
                }
                Ok(pairs.into_iter().collect())
            }
        }
        deserializer.deserialize_map(MapVisitor)
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // std is the oracle the map is checked against
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn extend_lets_the_new_values_win_and_stays_sorted() {
        let mut m = StrMap::from([("b".to_owned(), 1), ("d".to_owned(), 2)]);
        m.extend([
            ("c".to_owned(), 3),
            ("b".to_owned(), 4),
            ("a".to_owned(), 5),
            ("c".to_owned(), 6),
        ]);
        let pairs: Vec<(&str, i32)> = m.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(pairs, [("a", 5), ("b", 4), ("c", 6), ("d", 2)]);
    }

    #[test]
    fn behaves_like_a_btree_map() {
        let input = [
            ("b", "1"),
            ("a", "2"),
            ("b", "3"),
            ("", "4"),
            ("ä", "5"),
            ("B", "6"),
        ];
        let ours: StrMap = input
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let theirs: BTreeMap<String, String> = input
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert!(ours.iter().eq(theirs.iter()));
        let mut ours2 = StrMap::new();
        let mut theirs2 = BTreeMap::new();
        for (k, v) in input {
            assert_eq!(
                ours2.insert(k.to_owned(), v.to_owned()),
                theirs2.insert(k.to_owned(), v.to_owned())
            );
        }
        assert!(ours2.iter().eq(theirs2.iter()));
        assert_eq!(ours2, ours);
    }

    #[test]
    fn serde_round_trip() {
        let m = StrMap::from([("x".to_owned(), "1".to_owned())]);
        let yaml = serde_yaml::to_string(&m).unwrap();
        assert_eq!(yaml, "x: '1'\n");
        let back: StrMap = serde_yaml::from_str(&yaml).unwrap();
        assert_eq!(back, m);
    }
}
