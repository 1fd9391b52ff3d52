//! Metrics for the recall evaluation fixture (`tests/fixtures/recall_eval/`), independent of the
//! system being measured: [`evaluate`] takes any `FnMut(project, query) -> returned file names`,
//! so the same table can be produced for the lexical ranker, an embedder or a fusion of both.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The query kinds, in the order the tables print them.
pub const KINDS: [&str; 7] = [
    "short",
    "task",
    "code",
    "trace",
    "paraphrase",
    "typo",
    "none",
];

/// Query-length bins (in words) for recall of must-surface memories.
pub const LENGTH_BINS: [&str; 4] = ["1-3", "4-6", "7-9", "10+"];

/// How many results nDCG looks at (the ranker's default limit).
pub const NDCG_DEPTH: usize = 5;

/// One labelled query, as stored in `queries_dev.jsonl` / `queries_test.jsonl`.
#[derive(Clone, Debug, Deserialize)]
pub struct Query {
    pub id: String,
    pub project: String,
    pub query: String,
    pub kind: String,
    pub must: Vec<String>,
    pub helpful: Vec<String>,
}

impl Query {
    /// Number of whitespace-separated words.
    pub fn words(&self) -> usize {
        self.query.split_whitespace().count()
    }

    /// The length bin of [`LENGTH_BINS`].
    pub fn length_bin(&self) -> &'static str {
        match self.words() {
            0..=3 => LENGTH_BINS[0],
            4..=6 => LENGTH_BINS[1],
            7..=9 => LENGTH_BINS[2],
            _ => LENGTH_BINS[3],
        }
    }

    fn gain(&self, file: &str) -> f64 {
        if self.must.iter().any(|m| m == file) {
            2.0
        } else if self.helpful.iter().any(|h| h == file) {
            1.0
        } else {
            0.0
        }
    }
}

/// Reads a JSON Lines file of queries (JSON is parsed with the YAML parser the crate already
/// depends on: every JSON object line is a YAML flow mapping).
pub fn load_queries(path: &Path) -> Result<Vec<Query>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_yaml::from_str::<Query>(line)
                .map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))
        })
        .collect()
}

/// The scores of one query.
#[derive(Clone, Debug)]
pub struct QueryScore {
    pub id: String,
    pub kind: String,
    pub length_bin: &'static str,
    pub returned: Vec<String>,
    /// |returned ∩ (must ∪ helpful)| / |returned|; `None` when nothing was returned.
    pub precision: Option<f64>,
    /// |returned ∩ must| / |must|; `None` when `must` is empty.
    pub recall_must: Option<f64>,
    pub f1: f64,
    /// `None` when the query has no relevant memory at all.
    pub ndcg: Option<f64>,
    /// `Some(abstained)` for `none` queries.
    pub abstained: Option<bool>,
    /// Must-surface memories that were not returned.
    pub missed: Vec<String>,
}

/// Scores one query given what the system returned (file names relative to the project, best
/// first; duplicates count once).
pub fn score_query(q: &Query, returned: Vec<String>) -> QueryScore {
    let mut seen = Vec::new();
    for r in returned {
        if !seen.contains(&r) {
            seen.push(r);
        }
    }
    let returned = seen;
    let relevant_hits = returned.iter().filter(|r| q.gain(r) > 0.0).count();
    let must_hits = q.must.iter().filter(|m| returned.contains(m)).count();
    let precision = (!returned.is_empty()).then(|| relevant_hits as f64 / returned.len() as f64);
    let recall_must = (!q.must.is_empty()).then(|| must_hits as f64 / q.must.len() as f64);
    let f1 = if q.kind == "none" {
        if returned.is_empty() {
            1.0
        } else {
            0.0
        }
    } else {
        let p = precision.unwrap_or(1.0);
        let r = recall_must.unwrap_or(1.0);
        if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        }
    };
    let ndcg = if q.must.is_empty() && q.helpful.is_empty() {
        None
    } else {
        let discount = |i: usize| 1.0 / (i as f64 + 2.0).log2();
        let dcg: f64 = returned
            .iter()
            .take(NDCG_DEPTH)
            .enumerate()
            .map(|(i, r)| q.gain(r) * discount(i))
            .sum();
        let ideal: Vec<f64> = std::iter::repeat_n(2.0, q.must.len())
            .chain(std::iter::repeat_n(1.0, q.helpful.len()))
            .take(NDCG_DEPTH)
            .collect();
        let idcg: f64 = ideal.iter().enumerate().map(|(i, g)| g * discount(i)).sum();
        Some(dcg / idcg)
    };
    let abstained = (q.kind == "none").then_some(returned.is_empty());
    let missed = q
        .must
        .iter()
        .filter(|m| !returned.contains(m))
        .cloned()
        .collect();
    QueryScore {
        id: q.id.clone(),
        kind: q.kind.clone(),
        length_bin: q.length_bin(),
        returned,
        precision,
        recall_must,
        f1,
        ndcg,
        abstained,
        missed,
    }
}

/// A mean and how many values it is over.
#[derive(Clone, Copy, Debug, Default)]
pub struct Mean {
    pub sum: f64,
    pub n: usize,
}

impl Mean {
    fn add(&mut self, v: Option<f64>) {
        if let Some(v) = v {
            self.sum += v;
            self.n += 1;
        }
    }

    /// The mean, `None` over nothing.
    pub fn value(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }

    fn cell(&self) -> String {
        match self.value() {
            Some(v) => format!("{v:.3} (n={})", self.n),
            None => "- (n=0)".to_owned(),
        }
    }
}

/// The aggregate metrics of one split.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub queries: Vec<QueryScore>,
    pub f1: Mean,
    pub precision: Mean,
    pub recall_must: Mean,
    pub ndcg: Mean,
    pub abstain: Mean,
    pub recall_by_length: BTreeMap<&'static str, Mean>,
    pub f1_by_kind: BTreeMap<String, Mean>,
}

/// Runs `system(project, query)` on every query and aggregates the scores.
pub fn evaluate<'a, F>(queries: impl IntoIterator<Item = &'a Query>, mut system: F) -> Report
where
    F: FnMut(&str, &str) -> Vec<String>,
{
    let mut report = Report::default();
    for q in queries {
        let s = score_query(q, system(&q.project, &q.query));
        report.f1.add(Some(s.f1));
        report.precision.add(s.precision);
        report.recall_must.add(s.recall_must);
        report.ndcg.add(s.ndcg);
        report
            .abstain
            .add(s.abstained.map(|a| if a { 1.0 } else { 0.0 }));
        report
            .recall_by_length
            .entry(s.length_bin)
            .or_default()
            .add(s.recall_must);
        report
            .f1_by_kind
            .entry(s.kind.clone())
            .or_default()
            .add(Some(s.f1));
        report.queries.push(s);
    }
    report
}

impl Report {
    /// A compact text table.
    pub fn table(&self, title: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "== {title}: {} queries", self.queries.len());
        let _ = writeln!(out, "  F1 (per query)     {}", self.f1.cell());
        let _ = writeln!(out, "  precision          {}", self.precision.cell());
        let _ = writeln!(out, "  recall of must     {}", self.recall_must.cell());
        let _ = writeln!(out, "  nDCG@{NDCG_DEPTH}             {}", self.ndcg.cell());
        let _ = writeln!(out, "  abstain accuracy   {}", self.abstain.cell());
        let _ = write!(out, "  recall of must by words:");
        for bin in LENGTH_BINS {
            let m = self.recall_by_length.get(bin).copied().unwrap_or_default();
            let _ = write!(out, "  {bin}: {}", m.cell());
        }
        let _ = writeln!(out);
        let _ = write!(out, "  F1 by kind:");
        for kind in KINDS {
            let m = self.f1_by_kind.get(kind).copied().unwrap_or_default();
            let _ = write!(out, "  {kind}: {}", m.cell());
        }
        let _ = writeln!(out);
        out
    }

    /// One line per query that lost F1: what came back and which must-surface memories were
    /// missed (meant for the dev half only).
    pub fn misses(&self) -> String {
        let mut out = String::new();
        for s in self.queries.iter().filter(|s| s.f1 < 1.0) {
            let _ = writeln!(
                out,
                "  {} [{}] f1 {:.2} returned {:?} missed {:?}",
                s.id, s.kind, s.f1, s.returned, s.missed
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(kind: &str, must: &[&str], helpful: &[&str]) -> Query {
        Query {
            id: "x-1".into(),
            project: "p".into(),
            query: "one two three four".into(),
            kind: kind.into(),
            must: must.iter().map(|s| (*s).to_owned()).collect(),
            helpful: helpful.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    fn v(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn precision_recall_f1_ndcg_by_hand() {
        let query = q("task", &["a.md", "b.md"], &["c.md"]);
        // returned: c (helpful), x (irrelevant), a (must)
        let s = score_query(&query, v(&["c.md", "x.md", "a.md"]));
        assert!((s.precision.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert!((s.recall_must.unwrap() - 0.5).abs() < 1e-12);
        let f1 = 2.0 * (2.0 / 3.0) * 0.5 / (2.0 / 3.0 + 0.5);
        assert!((s.f1 - f1).abs() < 1e-12);
        let dcg = 1.0 / 2f64.log2() + 2.0 / 4f64.log2();
        let idcg = 2.0 / 2f64.log2() + 2.0 / 3f64.log2() + 1.0 / 4f64.log2();
        assert!((s.ndcg.unwrap() - dcg / idcg).abs() < 1e-12);
        assert_eq!(s.missed, v(&["b.md"]));
        assert_eq!(s.length_bin, "4-6");
    }

    #[test]
    fn empty_results_and_none_queries() {
        let s = score_query(&q("short", &["a.md"], &[]), Vec::new());
        assert_eq!(s.precision, None);
        assert_eq!(s.recall_must, Some(0.0));
        assert_eq!(s.f1, 0.0);
        assert_eq!(s.ndcg, Some(0.0));
        let none = q("none", &[], &[]);
        let quiet = score_query(&none, Vec::new());
        assert_eq!(
            (quiet.f1, quiet.abstained, quiet.ndcg),
            (1.0, Some(true), None)
        );
        let loud = score_query(&none, v(&["a.md"]));
        assert_eq!(
            (loud.f1, loud.abstained, loud.precision),
            (0.0, Some(false), Some(0.0))
        );
    }

    #[test]
    fn duplicates_count_once_and_report_aggregates() {
        let queries = [q("short", &["a.md"], &[]), q("none", &[], &[])];
        let report = evaluate(&queries, |_, _| v(&["a.md", "a.md"]));
        assert_eq!(report.queries[0].precision, Some(1.0));
        assert_eq!(report.f1.value(), Some(0.5));
        assert_eq!(report.abstain.value(), Some(0.0));
        assert_eq!(report.recall_must.n, 1);
        assert_eq!(report.precision.value(), Some(0.5));
        assert!(report.table("t").contains("abstain accuracy   0.000 (n=1)"));
    }
}
