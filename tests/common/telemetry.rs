//! [`Recorder`]: telemetry kept for assertions.

use memdir::host::{FieldValue, Telemetry};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// One event's fields.
pub type Fields = Vec<(String, FieldValue)>;
/// One telemetry event: its name and fields.
pub type Event = (String, Fields);

/// Records every event; clones share the record (so one can go to the `Memdir` and one stay
/// with the test), and so does `&Recorder`.
#[derive(Clone, Default)]
pub struct Recorder {
    pub log: Rc<RefCell<Vec<Event>>>,
    /// Read at each event and kept beside it in `contexts` (see [`Recorder::with_context`]).
    context: Option<Rc<dyn Fn() -> String>>,
    pub contexts: Rc<RefCell<Vec<String>>>,
}

impl Telemetry for Recorder {
    fn emit(&self, event: &str, fields: &[(&str, FieldValue)]) {
        if let Some(context) = &self.context {
            self.contexts.borrow_mut().push(context());
        }
        self.log.borrow_mut().push((
            event.to_owned(),
            fields
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        ));
    }
}

impl Recorder {
    /// A recorder that also keeps `context()` as it was at the moment of each event (e.g. a
    /// file's text, to tell whether the event came before a write).
    pub fn with_context(context: impl Fn() -> String + 'static) -> Self {
        Recorder {
            context: Some(Rc::new(context)),
            ..Recorder::default()
        }
    }

    /// Every event so far.
    pub fn events(&self) -> Vec<Event> {
        self.log.borrow().clone()
    }

    /// The names of the events so far.
    pub fn names(&self) -> Vec<String> {
        self.log.borrow().iter().map(|(e, _)| e.clone()).collect()
    }

    /// The fields of every event called `name`.
    pub fn named(&self, name: &str) -> Vec<Fields> {
        self.log
            .borrow()
            .iter()
            .filter(|(e, _)| e == name)
            .map(|(_, f)| f.clone())
            .collect()
    }

    /// The fields of the last event called `name` (panics if there is none).
    pub fn last(&self, name: &str) -> BTreeMap<String, FieldValue> {
        self.log
            .borrow()
            .iter()
            .rev()
            .find(|(e, _)| e == name)
            .map(|(_, f)| f.iter().cloned().collect())
            .unwrap_or_else(|| panic!("no {name} event"))
    }

    /// How many events called `name`.
    pub fn count(&self, name: &str) -> usize {
        self.log.borrow().iter().filter(|(e, _)| e == name).count()
    }

    /// Every event, debug-printed (to search for text that must not leak).
    pub fn dump(&self) -> String {
        format!("{:?}", self.log.borrow())
    }

    /// The value of `key` among `fields` (panics if absent).
    pub fn field(fields: &[(String, FieldValue)], key: &str) -> FieldValue {
        fields.iter().find(|(k, _)| k == key).unwrap().1.clone()
    }
}
