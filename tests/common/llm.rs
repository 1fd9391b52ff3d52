//! [`ScriptedLlm`]: an LLM that answers from a script and records every request.

use super::YieldOnce;
use memdir::host::{HostResult, Llm, LlmRequest};
use memdir::recall::AbortFlag;
use memdir::HostError;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// What a [`ScriptedLlm`] does once its queued replies are used up.
#[derive(Clone, Default)]
pub enum Script {
    /// Fail with "script exhausted".
    #[default]
    Exhausted,
    /// Answer this text, every time.
    Reply(String),
    /// Fail as a dropped connection would (`ECONNRESET`).
    Fail,
    /// Never answer.
    Hang,
    /// Abort the flag, then never answer.
    AbortThenHang(AbortFlag),
}

/// Answers its queued `replies` in order, then as `then` says; records every request and,
/// with `yields`, yields once before answering. Clones share the queue and the record; both
/// `ScriptedLlm` and `&ScriptedLlm` are LLMs.
#[derive(Clone, Default)]
pub struct ScriptedLlm {
    pub replies: Rc<RefCell<VecDeque<HostResult<String>>>>,
    pub requests: Rc<RefCell<Vec<LlmRequest>>>,
    pub yields: bool,
    pub then: Script,
}

impl ScriptedLlm {
    /// These replies, in order, then "script exhausted".
    pub fn new(replies: &[&str]) -> Self {
        ScriptedLlm {
            replies: Rc::new(RefCell::new(
                replies.iter().map(|r| Ok((*r).to_owned())).collect(),
            )),
            ..ScriptedLlm::default()
        }
    }

    /// Always does what `script` says.
    pub fn always(script: Script) -> Self {
        ScriptedLlm {
            then: script,
            ..ScriptedLlm::default()
        }
    }

    /// Always answers `text`.
    pub fn reply(text: &str) -> Self {
        Self::always(Script::Reply(text.to_owned()))
    }

    async fn answer(&self, request: &LlmRequest) -> HostResult<String> {
        self.requests.borrow_mut().push(request.clone());
        if self.yields {
            YieldOnce(false).await;
        }
        let queued = self.replies.borrow_mut().pop_front();
        if let Some(reply) = queued {
            return reply;
        }
        match &self.then {
            Script::Exhausted => Err(HostError::new(None, "script exhausted")),
            Script::Reply(text) => Ok(text.clone()),
            Script::Fail => Err(HostError::new(Some("ECONNRESET"), "socket hang up")),
            Script::Hang => std::future::pending().await,
            Script::AbortThenHang(flag) => {
                flag.abort();
                std::future::pending().await
            }
        }
    }
}

impl Llm for ScriptedLlm {
    async fn complete(&self, request: &LlmRequest) -> HostResult<String> {
        self.answer(request).await
    }
}

impl Llm for &ScriptedLlm {
    async fn complete(&self, request: &LlmRequest) -> HostResult<String> {
        self.answer(request).await
    }
}
