//! Debounced pushes from change notifications.
//!
//! [`PushDebouncer`] is the pure state machine: every change (re)arms a 2-second timer, a push
//! is due once the timer ran out and no push is in flight, and a permanent failure (an HTTP 4xx
//! other than 409 and 429) suppresses pushes until a change reports a deleted file. The async
//! [`TeamWatcher`] drives it with the host's clock.

use super::{
    PullOutcome, PushOutcome, SyncState, TeamSync, Transport, Unscoped, WriteScope, DEBOUNCE_MS,
};
use crate::error::{Error, Result};
use crate::host::{Clock, FieldValue, FileSystem, Telemetry};
use std::cell::RefCell;

/// When a failed push should stop further pushes: `Some("http_<status>")` for an HTTP 4xx
/// other than 409 (conflict) and 429 (rate limit), which retrying cannot fix.
///
/// ```
/// use memdir::{sync::watcher::permanent_failure_reason, Code, Error};
/// let mut e = Error::new(Code::Http, "forbidden");
/// e.status = Some(403);
/// assert_eq!(permanent_failure_reason(&e).as_deref(), Some("http_403"));
/// let mut e = Error::new(Code::Http, "slow down");
/// e.status = Some(429);
/// assert_eq!(permanent_failure_reason(&e), None);
/// ```
pub fn permanent_failure_reason(error: &Error) -> Option<String> {
    match error.status {
        Some(status) if (400..500).contains(&status) && status != 409 && status != 429 => {
            Some(format!("http_{status}"))
        }
        _ => None,
    }
}

/// The debounce state machine, with times in host milliseconds.
///
/// ```
/// use memdir::sync::PushDebouncer;
/// let mut d = PushDebouncer::default();
/// d.on_change(0.0, true);
/// d.on_change(1500.0, true); // re-arms
/// assert!(!d.due(3000.0));
/// assert!(d.due(3500.0));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PushDebouncer {
    deadline: Option<f64>,
    in_flight: bool,
    suppressed: Option<String>,
}

impl PushDebouncer {
    /// A file under the team directory changed at `now`; `path_exists` is false for a deletion,
    /// which also lifts a suppression (the user may have removed what the server refused).
    pub fn on_change(&mut self, now: f64, path_exists: bool) {
        if !path_exists {
            self.suppressed = None;
        }
        self.deadline = Some(now + f64::from(DEBOUNCE_MS));
    }

    /// True when a push should start now.
    pub fn due(&self, now: f64) -> bool {
        !self.in_flight && self.suppressed.is_none() && self.deadline.is_some_and(|d| now >= d)
    }

    /// When the pending push becomes due, if one is pending and pushes are not suppressed.
    pub fn next_deadline(&self) -> Option<f64> {
        self.deadline.filter(|_| self.suppressed.is_none())
    }

    /// Changes are waiting and pushes are not suppressed.
    pub fn has_pending(&self) -> bool {
        self.next_deadline().is_some()
    }

    /// A push is starting; the pending changes go with it.
    pub fn start_push(&mut self) {
        self.in_flight = true;
        self.deadline = None;
    }

    /// The push finished. Returns the suppression reason when its failure is permanent.
    pub fn on_push_result(&mut self, failure: Option<&Error>) -> Option<String> {
        self.in_flight = false;
        let reason = failure.and_then(permanent_failure_reason)?;
        self.suppressed = Some(reason.clone());
        self.deadline = None;
        Some(reason)
    }

    /// Why pushes are suppressed, if they are.
    pub fn suppressed(&self) -> Option<&str> {
        self.suppressed.as_deref()
    }

    /// A push is running.
    pub fn in_flight(&self) -> bool {
        self.in_flight
    }
}

/// Initial pull, then pushes driven by the host's change notifications.
pub struct TeamWatcher<F, T, C, M> {
    sync: TeamSync<F, T, C, M>,
    state: RefCell<SyncState>,
    debouncer: RefCell<PushDebouncer>,
}

impl<F: FileSystem, T: Transport, C: Clock, M: Telemetry> TeamWatcher<F, T, C, M> {
    /// A watcher over `sync`, starting from `state` (a fresh [`SyncState`] or one the host kept).
    pub fn new(sync: TeamSync<F, T, C, M>, state: SyncState) -> Self {
        TeamWatcher {
            sync,
            state: RefCell::new(state),
            debouncer: RefCell::new(PushDebouncer::default()),
        }
    }

    /// The initial pull; emits `team_sync_started`.
    pub async fn start(&self) -> Result<PullOutcome> {
        self.start_in(&Unscoped).await
    }

    /// [`Self::start`] with the pull's local writes run in `scope`.
    pub async fn start_in<W: WriteScope>(&self, scope: &W) -> Result<PullOutcome> {
        let mut state = self.state.take();
        let result = self.sync.pull_in(&mut state, scope).await;
        self.state.replace(state);
        let (success, written, has_content) = match &result {
            Ok(o) => (true, o.files_written, o.server_has_content),
            Err(_) => (false, 0, false),
        };
        self.sync.telemetry.emit(
            "team_sync_started",
            &[
                ("initial_pull_success", FieldValue::Bool(success)),
                ("initial_files_pulled", FieldValue::Num(written as f64)),
                ("watcher_started", FieldValue::Bool(true)),
                ("server_has_content", FieldValue::Bool(has_content)),
            ],
        );
        result
    }

    /// The host saw a change under the team directory (`path_exists` false for a deletion).
    pub fn notify(&self, path_exists: bool) {
        let now = self.sync.clock.now_ms();
        self.debouncer.borrow_mut().on_change(now, path_exists);
    }

    /// Push if one is due now; `None` when nothing was due.
    pub async fn tick(&self) -> Option<Result<PushOutcome>> {
        let now = self.sync.clock.now_ms();
        if !self.debouncer.borrow().due(now) {
            return None;
        }
        Some(self.push_now().await)
    }

    /// Pull now (without the `team_sync_started` event of [`Self::start`]).
    pub async fn pull(&self) -> Result<PullOutcome> {
        self.pull_in(&Unscoped).await
    }

    /// [`Self::pull`] with its local writes run in `scope`.
    pub async fn pull_in<W: WriteScope>(&self, scope: &W) -> Result<PullOutcome> {
        let mut state = self.state.take();
        let result = self.sync.pull_in(&mut state, scope).await;
        self.state.replace(state);
        result
    }

    /// Push now, whatever the debouncer says (a permanent failure still suppresses later
    /// debounced pushes).
    pub async fn push_now(&self) -> Result<PushOutcome> {
        self.debouncer.borrow_mut().start_push();
        // The state is taken out rather than borrowed across the await, so a notification
        // arriving mid-push never meets a held borrow.
        let mut state = self.state.take();
        let result = self.sync.push(&mut state).await;
        self.state.replace(state);
        let reason = self
            .debouncer
            .borrow_mut()
            .on_push_result(result.as_ref().err());
        if let Some(reason) = reason {
            let mut fields = vec![("reason", FieldValue::Str(reason))];
            if let Some(status) = result.as_ref().err().and_then(|e| e.status) {
                fields.push(("status", FieldValue::Num(f64::from(status))));
            }
            self.sync.telemetry.emit("team_push_suppressed", &fields);
        }
        result
    }

    /// Push pending changes now (shutdown), unless pushes are suppressed or one is running.
    pub async fn flush(&self) -> Option<Result<PushOutcome>> {
        let ready = {
            let d = self.debouncer.borrow();
            d.has_pending() && !d.in_flight()
        };
        if !ready {
            return None;
        }
        Some(self.push_now().await)
    }

    /// Drive pushes until `should_stop` says so, sleeping on the host clock between checks;
    /// then flush what is pending. Failures are reported through telemetry (and suppress
    /// pushes when permanent), not returned.
    pub async fn run(&self, should_stop: impl Fn() -> bool) {
        loop {
            if should_stop() {
                let _ = self.flush().await;
                return;
            }
            let _ = self.tick().await;
            let now = self.sync.clock.now_ms();
            let wait = match self.debouncer.borrow().next_deadline() {
                Some(deadline) => (deadline - now).clamp(1.0, f64::from(DEBOUNCE_MS)),
                None => f64::from(DEBOUNCE_MS),
            };
            self.sync.clock.sleep(wait as u32).await;
        }
    }

    /// A copy of the sync state (to persist between sessions).
    pub fn state(&self) -> SyncState {
        self.state.borrow().clone()
    }

    /// A copy of the debouncer (to inspect suppression).
    pub fn debouncer(&self) -> PushDebouncer {
        self.debouncer.borrow().clone()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::error::Code;

    fn http(status: u16) -> Error {
        Error::new(Code::Http, "x").with_status(status)
    }

    #[test]
    fn debounce_rearms_and_waits_for_the_push_in_flight() {
        let mut d = PushDebouncer::default();
        assert!(!d.due(0.0));
        d.on_change(0.0, true);
        assert!(!d.due(1999.0));
        assert!(d.due(2000.0));
        d.start_push();
        d.on_change(2100.0, true);
        assert!(!d.due(5000.0), "a push is in flight");
        assert_eq!(d.on_push_result(None), None);
        assert!(d.due(5000.0));
    }

    #[test]
    fn permanent_failures_suppress_until_a_deletion() {
        let mut d = PushDebouncer::default();
        d.on_change(0.0, true);
        d.start_push();
        assert_eq!(d.on_push_result(Some(&http(409))), None);
        d.on_change(10.0, true);
        d.start_push();
        assert_eq!(d.on_push_result(Some(&http(500))), None);
        d.on_change(20.0, true);
        d.start_push();
        assert_eq!(
            d.on_push_result(Some(&http(413))).as_deref(),
            Some("http_413")
        );
        d.on_change(30.0, true);
        assert!(!d.due(10_000.0));
        assert_eq!(d.suppressed(), Some("http_413"));
        d.on_change(40.0, false);
        assert_eq!(d.suppressed(), None);
        assert!(d.due(2040.0));
    }
}
