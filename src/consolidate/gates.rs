//! Whether consolidation is due: enough hours since the last
//! run, and enough sessions touched since. Pure.

use serde::Serialize;

/// Default hours between consolidations.
pub const DEFAULT_MIN_HOURS: f64 = 24.0;
/// Default sessions needed since the last consolidation.
pub const DEFAULT_MIN_SESSIONS: usize = 5;

/// The thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsolidationGates {
    /// Hours since the last consolidation (a non-finite or non-positive value means the
    /// default, as the reference treats a bad override).
    pub min_hours: f64,
    /// Sessions modified since the last consolidation (0 means the default).
    pub min_sessions: usize,
}

impl Default for ConsolidationGates {
    fn default() -> Self {
        ConsolidationGates {
            min_hours: DEFAULT_MIN_HOURS,
            min_sessions: DEFAULT_MIN_SESSIONS,
        }
    }
}

/// A session transcript the host knows of.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    /// The session id.
    pub id: String,
    /// When its transcript last changed, ms.
    pub mtime_ms: f64,
}

/// The gates' verdict.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "decision", rename_all = "kebab-case")]
pub enum GateDecision {
    /// Due: the sessions to review.
    Open {
        /// Hours since the last consolidation.
        hours_since: f64,
        /// Ids of the sessions since then.
        sessions: Vec<String>,
    },
    /// Too soon.
    TooSoon {
        /// Hours since the last consolidation.
        hours_since: f64,
    },
    /// Not enough sessions.
    TooFewSessions {
        /// Sessions since the last consolidation.
        count: usize,
        /// How many are needed.
        needed: usize,
    },
}

/// Evaluate the gates at `now_ms` for a last consolidation at `last_at_ms` (0 = never):
/// sessions count when modified after it, the current session excluded.
///
/// ```
/// use memdir::consolidate::{evaluate_gates, ConsolidationGates, GateDecision, SessionInfo};
/// let hour = 3_600_000.0;
/// let s = |id: &str, t: f64| SessionInfo { id: id.into(), mtime_ms: t };
/// let gates = ConsolidationGates { min_hours: 24.0, min_sessions: 2 };
/// let sessions = [s("a", 30.0 * hour), s("b", 31.0 * hour), s("old", hour), s("me", 32.0 * hour)];
/// match evaluate_gates(&gates, 40.0 * hour, 10.0 * hour, &sessions, Some("me")) {
///     GateDecision::Open { sessions, .. } => assert_eq!(sessions, ["a", "b"]),
///     other => panic!("{other:?}"),
/// }
/// assert!(matches!(
///     evaluate_gates(&gates, 20.0 * hour, 10.0 * hour, &sessions, None),
///     GateDecision::TooSoon { .. }
/// ));
/// ```
pub fn evaluate_gates(
    gates: &ConsolidationGates,
    now_ms: f64,
    last_at_ms: f64,
    sessions: &[SessionInfo],
    current_session: Option<&str>,
) -> GateDecision {
    let min_hours = if gates.min_hours.is_finite() && gates.min_hours > 0.0 {
        gates.min_hours
    } else {
        DEFAULT_MIN_HOURS
    };
    let needed = if gates.min_sessions > 0 {
        gates.min_sessions
    } else {
        DEFAULT_MIN_SESSIONS
    };
    let hours_since = (now_ms - last_at_ms) / 3_600_000.0;
    if hours_since < min_hours {
        return GateDecision::TooSoon { hours_since };
    }
    let recent: Vec<String> = sessions
        .iter()
        .filter(|s| s.mtime_ms > last_at_ms && Some(s.id.as_str()) != current_session)
        .map(|s| s.id.clone())
        .collect();
    if recent.len() < needed {
        return GateDecision::TooFewSessions {
            count: recent.len(),
            needed,
        };
    }
    GateDecision::Open {
        hours_since,
        sessions: recent,
    }
}
