//! Recording a run as it happens: wrappers that pass every question of the host to the real world and keep the answers for a run file.
//!
//! The host's code is not changed to record: the loop is handed the same model, workspace,
//! approval and runner, each wrapped so that what comes back is also written on a [`Tape`].

use std::borrow::Cow;
use std::cell::RefCell;

use crate::host::runs::file::{
    Call, End, Reply, RunFile, RunSettings, Source, WorldEvent, VERSION,
};
use crate::lesson::agent_types::{
    tool_calls, Approval, Decision, LoopError, Model, ModelError, Outcome, ReadError, Request,
    RunResult, Runner, Workspace,
};
use crate::lesson::types::{Block, Lang, Message};

/// What a run has recorded so far.
#[derive(Default)]
pub struct Tape {
    calls: RefCell<Vec<Call>>,
    world: RefCell<Vec<WorldEvent>>,
    /// How many messages of the conversation are on the tape (the question is not: it has its field).
    stored: RefCell<usize>,
    /// The messages a failed call would have sent.
    unsent: RefCell<Vec<Message>>,
}

impl Tape {
    pub fn new() -> Tape {
        Tape { stored: RefCell::new(1), ..Tape::default() }
    }

    /// The run file of a run that returned `result`.
    pub fn finish(
        self,
        model: Source,
        recorded: Option<String>,
        settings: RunSettings,
        question: &str,
        result: &Result<Outcome, LoopError>,
    ) -> RunFile {
        let stored = *self.stored.borrow();
        let end = match result {
            Ok(outcome) => End::Outcome {
                stop: outcome.stop,
                plan: outcome.plan.clone(),
                warnings: outcome.warnings.clone(),
                answer: outcome.answer.clone(),
                after: outcome.history.get(stored..).unwrap_or_default().to_vec(),
            },
            Err(error) => End::Failed {
                code: error.code().to_string(),
                message: error.message(settings.lang),
                after: self.unsent.take(),
            },
        };
        RunFile {
            version: VERSION,
            model,
            recorded,
            settings,
            question: question.to_string(),
            calls: self.calls.take(),
            world: self.world.take(),
            end,
        }
    }

    fn note(&self, event: WorldEvent) {
        self.world.borrow_mut().push(event);
    }
}

/// The stop reason a model that does not give one would have given: the Messages API's words.
fn stop_reason_of(reply: &[Block]) -> &'static str {
    if tool_calls(reply).is_empty() {
        "end_turn"
    } else {
        "tool_use"
    }
}

/// A model whose replies are recorded.
pub struct TapedModel<'a> {
    pub model: &'a mut dyn Model,
    pub tape: &'a Tape,
}

impl Model for TapedModel<'_> {
    fn reply(&mut self, request: &Request) -> Result<Vec<Block>, ModelError> {
        let stored = *self.tape.stored.borrow();
        let sent = request.messages.get(stored..).unwrap_or_default().to_vec();
        match self.model.reply(request) {
            Ok(content) => {
                let stop_reason =
                    self.model.stop_reason().unwrap_or(stop_reason_of(&content)).to_string();
                *self.tape.stored.borrow_mut() = request.messages.len() + 1;
                let reply = Reply { content: content.clone(), stop_reason };
                self.tape.calls.borrow_mut().push(Call { sent, reply });
                Ok(content)
            }
            Err(error) => {
                *self.tape.unsent.borrow_mut() = sent;
                Err(error)
            }
        }
    }

    fn stop_reason(&self) -> Option<&str> {
        self.model.stop_reason()
    }

    fn describe(&self) -> Cow<'_, str> {
        self.model.describe()
    }
}

/// A workspace whose reads are recorded.
pub struct TapedWorkspace<'a> {
    pub workspace: &'a dyn Workspace,
    pub tape: &'a Tape,
}

impl Workspace for TapedWorkspace<'_> {
    fn read(&self, path: &str) -> Result<String, ReadError> {
        let result = self.workspace.read(path);
        let (text, error) = match &result {
            Ok(text) => (Some(text.clone()), None),
            Err(error) => (None, Some(error.clone())),
        };
        self.tape.note(WorldEvent::Read { path: path.to_string(), text, error });
        result
    }

    fn describe(&self) -> Cow<'_, str> {
        self.workspace.describe()
    }
}

/// An approval whose answers are recorded.
pub struct TapedApproval<'a> {
    pub approval: &'a mut dyn Approval,
    pub tape: &'a Tape,
}

impl Approval for TapedApproval<'_> {
    fn decide(&mut self, lang: Lang) -> Decision {
        let decision = self.approval.decide(lang);
        self.tape.note(WorldEvent::Answer { decision });
        decision
    }

    fn describe(&self) -> Cow<'_, str> {
        self.approval.describe()
    }
}

/// A runner whose runs are recorded.
pub struct TapedRunner<'a> {
    pub runner: &'a mut dyn Runner,
    pub tape: &'a Tape,
}

impl Runner for TapedRunner<'_> {
    fn run(&mut self, lang: Lang) -> RunResult {
        let result = self.runner.run(lang);
        self.tape.note(WorldEvent::Run {
            text: result.text.clone(),
            ok: result.ok,
            process: result.process.clone(),
        });
        result
    }

    fn describe(&self) -> Cow<'_, str> {
        self.runner.describe()
    }
}
