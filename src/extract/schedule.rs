//! When extraction runs: the cursor, the every-N-turns throttle, the "the conversation already
//! wrote memories" skip and the coalescing of overlapping calls. Pure state, no I/O.

use super::ConversationMessage;
use crate::paths::is_auto_mem_path;
use std::cell::RefCell;

/// How far extraction has read: the id of the last message processed, and the number of
/// messages processed (used when messages carry no ids).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    /// Id of the last processed message, when it had one.
    pub id: Option<String>,
    /// How many messages had been seen when the cursor moved.
    pub count: usize,
}

#[derive(Debug, Default)]
struct State {
    cursor: Option<Cursor>,
    turns_since: u32,
    in_flight: bool,
    pending: Option<Vec<ConversationMessage>>,
}

/// The extraction state of one conversation: cursor, throttle counter, and the in-flight flag
/// with the stashed context of a call that arrived meanwhile (latest wins). Keep one per
/// conversation; drive it with [`Extractor::run`].
#[derive(Debug)]
pub struct Extractor {
    every_n: u32,
    state: RefCell<State>,
}

/// True when any message calls a write tool (`write_tools`, e.g. `Write` and `Edit`) on a file
/// inside `memory_dir`: the conversation saved memories itself, so extraction leaves that range
/// alone.
///
/// ```
/// use memdir::extract::{wrote_memories_directly, ConversationMessage};
/// let m = [ConversationMessage::assistant("saved").with_tool_use("Write", "/m/user_role.md")];
/// assert!(wrote_memories_directly(&m, "/m/", &["Write", "Edit"]));
/// assert!(!wrote_memories_directly(&m, "/other/", &["Write", "Edit"]));
/// ```
pub fn wrote_memories_directly(
    messages: &[ConversationMessage],
    memory_dir: &str,
    write_tools: &[&str],
) -> bool {
    messages.iter().any(|m| {
        m.tool_uses.iter().any(|t| {
            write_tools.contains(&t.name.as_str())
                && t.file_path
                    .as_deref()
                    .is_some_and(|p| is_auto_mem_path(p, memory_dir))
        })
    })
}

impl Extractor {
    /// A fresh state that runs every `every_n` eligible turns (0 counts as 1).
    pub fn new(every_n: u32) -> Self {
        Extractor {
            every_n: every_n.max(1),
            state: RefCell::new(State::default()),
        }
    }

    /// The run frequency.
    pub fn every_n(&self) -> u32 {
        self.every_n
    }

    /// The cursor, `None` before the first run.
    pub fn cursor(&self) -> Option<Cursor> {
        self.state.borrow().cursor.clone()
    }

    /// The messages after the cursor: after the message with the cursor's id; when the cursor
    /// has no id, after its count of messages; all of them before the first run or when the
    /// cursor is no longer found (the conversation was compacted).
    ///
    /// ```
    /// use memdir::extract::{ConversationMessage, Extractor};
    /// let x = Extractor::new(1);
    /// let m = vec![ConversationMessage::user("a"), ConversationMessage::assistant("b")];
    /// x.advance_cursor(&m[..1]);
    /// assert_eq!(x.new_messages(&m).len(), 1);
    /// ```
    pub fn new_messages<'a>(
        &self,
        messages: &'a [ConversationMessage],
    ) -> &'a [ConversationMessage] {
        let state = self.state.borrow();
        let Some(cursor) = &state.cursor else {
            return messages;
        };
        let start = match &cursor.id {
            Some(id) => messages
                .iter()
                .rposition(|m| m.id.as_deref() == Some(id.as_str()))
                .map(|i| i + 1),
            None => (cursor.count <= messages.len()).then_some(cursor.count),
        };
        messages.get(start.unwrap_or(0)..).unwrap_or(messages)
    }

    /// Move the cursor past the last of `messages` (the conversation from its start).
    pub fn advance_cursor(&self, messages: &[ConversationMessage]) {
        let mut state = self.state.borrow_mut();
        let Some(last) = messages.last() else {
            return;
        };
        state.cursor = Some(Cursor {
            id: last.id.clone(),
            count: messages.len(),
        });
    }

    /// Count one eligible turn; true (and the counter reset) when the throttle lets this one
    /// run, i.e. on every `every_n`-th call.
    ///
    /// ```
    /// let x = memdir::extract::Extractor::new(2);
    /// assert!(!x.tick_throttle());
    /// assert!(x.tick_throttle());
    /// assert!(!x.tick_throttle());
    /// ```
    pub fn tick_throttle(&self) -> bool {
        let mut state = self.state.borrow_mut();
        state.turns_since = state.turns_since.saturating_add(1);
        if state.turns_since < self.every_n {
            return false;
        }
        state.turns_since = 0;
        true
    }

    /// Start a run: true when none is in flight (the flag is now set); false when one is, in
    /// which case `messages` are stashed for the trailing run (replacing an earlier stash).
    pub fn begin(&self, messages: &[ConversationMessage]) -> bool {
        let mut state = self.state.borrow_mut();
        if state.in_flight {
            state.pending = Some(messages.to_vec());
            return false;
        }
        state.in_flight = true;
        true
    }

    /// End a run: the stashed context, if any, which the caller runs next as a trailing run
    /// (the flag stays set); otherwise the flag is cleared and `None` returned.
    pub fn finish(&self) -> Option<Vec<ConversationMessage>> {
        let mut state = self.state.borrow_mut();
        let pending = state.pending.take();
        if pending.is_none() {
            state.in_flight = false;
        }
        pending
    }

    /// True while a run is in flight.
    pub fn in_flight(&self) -> bool {
        self.state.borrow().in_flight
    }

    /// Forget any run in flight and its stash (used when a run's future is dropped).
    pub(crate) fn abandon(&self) {
        let mut state = self.state.borrow_mut();
        state.in_flight = false;
        state.pending = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msgs(ids: &[&str]) -> Vec<ConversationMessage> {
        ids.iter()
            .map(|id| ConversationMessage::user(*id).with_id(*id))
            .collect()
    }

    #[test]
    fn cursor_by_id_and_by_count() {
        let x = Extractor::new(1);
        let m = msgs(&["a", "b", "c"]);
        assert_eq!(x.new_messages(&m).len(), 3);
        x.advance_cursor(&m[..2]);
        assert_eq!(x.new_messages(&m)[0].text, "c");
        // Compacted: the cursor's id is gone → everything is new.
        assert_eq!(x.new_messages(&msgs(&["z"])).len(), 1);
        let y = Extractor::new(1);
        let plain = vec![
            ConversationMessage::user("1"),
            ConversationMessage::user("2"),
        ];
        y.advance_cursor(&plain[..1]);
        assert_eq!(y.new_messages(&plain).len(), 1);
        assert_eq!(y.new_messages(&[]).len(), 0);
        y.advance_cursor(&plain);
        assert!(y.new_messages(&plain).is_empty());
    }

    #[test]
    fn coalescing_keeps_the_latest_stash() {
        let x = Extractor::new(1);
        assert!(x.begin(&msgs(&["a"])));
        assert!(!x.begin(&msgs(&["b"])));
        assert!(!x.begin(&msgs(&["c"])));
        let stash = x.finish().unwrap();
        assert_eq!(stash[0].text, "c");
        assert!(x.in_flight());
        assert!(x.finish().is_none());
        assert!(!x.in_flight());
    }
}
