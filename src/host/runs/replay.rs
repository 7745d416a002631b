//! Replaying a run file: a world that answers the host's own code from the recording, and says where the host asked for something the recording does not hold.
//!
//! The model's replies, the files' texts, the user's answers and the program's output come from
//! the file; the plan validation, the requests, the budget and the host's rules are computed
//! afresh by the loop. A reply is only given to a request equal to the one the recorded model was
//! sent, so a replay never shows a reply to a conversation that did not happen.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use serde::Serialize;
use tsify::Tsify;

use crate::host::runs::file::{End, RunFile, WorldEvent};
use crate::lesson::agent::run_loop;
use crate::lesson::agent_types::{
    Approval, Decision, HostEvent, LoopError, Model, ModelError, Outcome, ReadError, Request,
    RunResult, Runner, Stop, Tools, Workspace, MODEL_ERROR_CODES,
};
use crate::lesson::types::{Block, Lang, Message};
use crate::recorder;

/// Where a replay left its recording, in the run's language.
#[derive(Serialize, Tsify, Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The model call the replay could not make as recorded.
    pub call: usize,
    /// `diverged at model call N: ...`
    pub message: String,
}

/// A recorded world, answering in the order it was asked.
pub struct Replay<'r> {
    pub run: &'r RunFile,
    /// A changed answer to "run main.py?" (the reader's "what if"); the recording's otherwise.
    pub answer: Option<Decision>,
    /// The language a divergence is worded in: the run's own (the transcript's), unless the page
    /// that replays it reads in another.
    pub words: Lang,
    calls: Cell<usize>,
    /// World events used.
    used: Cell<usize>,
    /// Messages of the conversation matched so far (the question counts).
    matched: Cell<usize>,
    /// The first thing the host asked that the recording does not hold.
    left: RefCell<Option<String>>,
    diverged: RefCell<Option<Divergence>>,
    /// The world's descriptions for the locals pane, made once.
    model_label: String,
    world_label: String,
}

impl<'r> Replay<'r> {
    pub fn new(run: &'r RunFile) -> Replay<'r> {
        let lang = run.settings.lang;
        Replay {
            run,
            answer: None,
            words: lang,
            calls: Cell::new(0),
            used: Cell::new(0),
            matched: Cell::new(1),
            left: RefCell::new(None),
            diverged: RefCell::new(None),
            model_label: format!("replay of {} calls ({})", run.calls.len(), run.origin(lang)),
            world_label: format!("replay of {} recorded answers", run.world.len()),
        }
    }

    fn lang(&self) -> Lang {
        self.words
    }

    /// The next recorded answer, if it is the kind the host asks for; otherwise notes where the
    /// replay left the recording (`asked` says what the host asked).
    fn next<T>(&self, asked: &str, take: impl FnOnce(&WorldEvent) -> Option<T>) -> Option<T> {
        let event = self.run.world.get(self.used.get());
        if let Some(answer) = event.and_then(take) {
            self.used.set(self.used.get() + 1);
            return Some(answer);
        }
        let lang = self.lang();
        let holds = match event {
            None => lang
                .pick("记录里已经没有更多回答", "the recording holds no more answers")
                .to_string(),
            Some(event) => format!(
                "{}{}",
                lang.pick("记录里这里是", "the recording holds "),
                describe(event, lang)
            ),
        };
        self.leave(format!("{asked}{}{holds}", lang.pick("，但", ", but ")));
        None
    }

    fn leave(&self, why: String) {
        self.left.borrow_mut().get_or_insert(why);
    }

    fn diverge(&self, call: usize, why: &str) -> Divergence {
        let message = match self.lang() {
            Lang::Zh => format!("在第 {call} 次模型调用处偏离记录：{why}"),
            Lang::En => format!("diverged at model call {call}: {why}"),
        };
        let divergence = Divergence { call, message };
        self.diverged.borrow_mut().get_or_insert(divergence.clone());
        divergence
    }

    fn diverged_error(&self, call: usize, why: &str) -> ModelError {
        ModelError { code: "diverged", message: self.diverge(call, why).message }
    }

    /// Runs the loop on the recording's settings and world, with `model` replying: the replay
    /// itself, or a wrapper around it (`practice` prints each reply as it comes). The page's listed
    /// `run_agent` writes the same out, for the reader to step through.
    pub fn run(&self, model: &mut dyn Model) -> Result<Outcome, LoopError> {
        let settings = self.run.settings;
        let (mut approval, mut runner) = (self, self);
        let mut tools = Tools {
            workspace: self,
            approval: &mut approval,
            runner: &mut runner,
            maintenance: settings.maintenance,
            lang: settings.lang,
        };
        run_loop(model, &mut tools, settings.max_calls, settings.reminder, &self.run.question)
    }

    /// Checks the run's end against the recording, once `run_loop` returned: a replay that made
    /// fewer calls, used fewer answers, or ended otherwise, diverged too.
    pub fn finish(&self, result: &Result<Outcome, LoopError>) -> Option<Divergence> {
        let lang = self.lang();
        let calls = self.calls.get();
        let recorded = self.run.calls.len();
        if let Some(why) = self.left.borrow_mut().take() {
            self.diverge(calls + 1, &why);
        }
        match (result, &self.run.end) {
            (Err(LoopError::Model(error)), _) if error.code == "diverged" => {}
            (Ok(outcome), _) if calls < recorded => {
                let why = match (outcome.stop, lang) {
                    (Stop::CallLimit, Lang::Zh) => format!("宿主在 {calls} 次调用的预算处停下，而记录里有 {recorded} 次调用"),
                    (Stop::CallLimit, Lang::En) => format!("the host stopped at its budget of {calls} calls; the recording holds {recorded}"),
                    (Stop::Answered, Lang::Zh) => format!("宿主在 {calls} 次调用后停下，而记录里有 {recorded} 次调用"),
                    (Stop::Answered, Lang::En) => format!("the host stopped after {calls} calls; the recording holds {recorded}"),
                };
                self.diverge(calls + 1, &why);
            }
            (Ok(outcome), End::Outcome { stop, plan, warnings, answer, after }) => {
                let same = outcome.stop == *stop
                    && outcome.plan == *plan
                    && outcome.warnings == *warnings
                    && outcome.answer == *answer
                    && outcome.history.get(self.matched.get()..) == Some(&after[..]);
                if !same {
                    let why =
                        lang.pick("运行的结局与记录不同", "the run ended otherwise than recorded");
                    self.diverge(calls, why);
                }
            }
            (Err(error), End::Failed { code, message, .. })
                if error.code() == code && error.message(lang) == *message => {}
            _ => {
                let why =
                    lang.pick("运行的结局与记录不同", "the run ended otherwise than recorded");
                self.diverge(calls, why);
            }
        }
        if self.diverged.borrow().is_none() && self.used.get() < self.run.world.len() {
            let why = lang.pick(
                "记录里还有宿主没有问到的回答",
                "the recording holds answers the host never asked for",
            );
            self.diverge(calls, why);
        }
        self.diverged.borrow().clone()
    }

    /// Where the replay left the recording, once [`Replay::finish`] ran.
    pub fn diverged(&self) -> Option<Divergence> {
        self.diverged.borrow().clone()
    }
}

/// A recorded answer in a few words, for a divergence message.
fn describe(event: &WorldEvent, lang: Lang) -> String {
    match (event, lang) {
        (WorldEvent::Read { path, .. }, Lang::Zh) => format!("对 {path} 的读取"),
        (WorldEvent::Read { path, .. }, Lang::En) => format!("a read of {path}"),
        (WorldEvent::Answer { .. }, Lang::Zh) => "用户的回答".to_string(),
        (WorldEvent::Answer { .. }, Lang::En) => "the user's answer".to_string(),
        (WorldEvent::Run { .. }, Lang::Zh) => "一次程序运行".to_string(),
        (WorldEvent::Run { .. }, Lang::En) => "a program run".to_string(),
    }
}

impl Model for &Replay<'_> {
    fn reply(&mut self, request: &Request) -> Result<Vec<Block>, ModelError> {
        // Noted like any model's request, so the page shows what this call was sent.
        recorder::request(request);
        let lang = self.lang();
        let call = self.calls.get() + 1;
        self.calls.set(call);
        if let Some(why) = self.left.borrow_mut().take() {
            return Err(self.diverged_error(call, &why));
        }
        let (expected, reply): (&[Message], _) = match (self.run.calls.get(call - 1), &self.run.end)
        {
            (Some(recorded), _) => (&recorded.sent, Ok(recorded.reply.content.clone())),
            (None, End::Failed { after, code, message }) if call == self.run.calls.len() + 1 => {
                // The recorded failure, again; `parse` refused a code no model error has.
                let code = MODEL_ERROR_CODES.into_iter().find(|known| known == code);
                (
                    after,
                    Err(ModelError { code: code.unwrap_or("malformed"), message: message.clone() }),
                )
            }
            (None, _) => {
                let why = match lang {
                    Lang::Zh => format!("记录里只有 {} 次模型调用", self.run.calls.len()),
                    Lang::En => format!("the recording holds {} model calls", self.run.calls.len()),
                };
                return Err(self.diverged_error(call, &why));
            }
        };
        let matched = self.matched.get();
        if request.messages.get(matched..) != Some(expected) {
            let why = lang.pick(
                "这次请求与录制时模型收到的不同（录制的模型从未见过它）",
                "this request differs from what the recorded model was sent (the recorded model never saw this)",
            );
            return Err(self.diverged_error(call, why));
        }
        self.matched.set(matched + expected.len() + 1);
        reply
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.model_label)
    }
}

impl Workspace for Replay<'_> {
    fn read(&self, path: &str) -> Result<String, ReadError> {
        let lang = self.lang();
        let asked = match lang {
            Lang::Zh => format!("宿主读取了 {path}"),
            Lang::En => format!("the host read {path}"),
        };
        let found = self.next(&asked, |event| match event {
            WorldEvent::Read { path: recorded, text, error } if recorded == path => {
                Some(text.clone().ok_or_else(|| error.clone().unwrap_or(ReadError::Missing)))
            }
            _ => None,
        });
        found.unwrap_or_else(|| {
            Err(ReadError::Failed(
                lang.pick("记录里没有这次读取", "not in the recording").to_string(),
            ))
        })
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.world_label)
    }
}

impl Approval for &Replay<'_> {
    fn decide(&mut self, lang: Lang) -> Decision {
        HostEvent::Ask.decide();
        let asked = lang.pick("宿主询问了用户", "the host asked the user");
        let recorded = self.next(asked, |event| match event {
            WorldEvent::Answer { decision } => Some(*decision),
            _ => None,
        });
        // Without a recorded answer nothing runs; the next model call reports the divergence.
        self.answer.or(recorded).unwrap_or(Decision::Deny)
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.world_label)
    }
}

impl Runner for &Replay<'_> {
    fn run(&mut self, lang: Lang) -> RunResult {
        let asked = lang.pick("宿主运行了 main.py", "the host ran main.py");
        let recorded = self.next(asked, |event| match event {
            WorldEvent::Run { text, ok, process } => {
                Some(RunResult { text: text.clone(), ok: *ok, process: process.clone() })
            }
            _ => None,
        });
        recorded.unwrap_or_else(|| {
            RunResult::not_run(
                lang.pick(
                    "未运行：记录里没有这次运行。",
                    "Not run: the recording holds no run here.",
                ),
            )
        })
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.world_label)
    }
}
