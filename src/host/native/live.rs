//! `practice --live`: the loop's model is a real one, asked over the Anthropic Messages API (LOOP.md, "A live model").
//!
//! The request carries exactly what the stand-in is given: the tool definitions the page shows
//! and the messages `prepare_messages` returned. The reply's `text` and `tool_use` blocks become
//! the assistant message, as they came; anything else, or a failure of any kind, is a
//! [`ModelError`] that ends the loop. A reply is never made up, and the key is never shown: it
//! lives in a type whose only way out is the `Authorization` header.
//!
//! The headers are those the pinned official SDK (`@anthropic-ai/sdk` 1.17.0, its `client.js`)
//! sends for an API key; `tests/live/` holds practice to that SDK through a local mock.

use std::borrow::Cow;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ureq::Agent;

use crate::lesson::agent_types::{Model, ModelError, Request, ToolDefinition};
use crate::lesson::types::{Block, Lang, Message};

/// The model `--live` asks unless `--model-name` names another: a current Sonnet, as the SDK's
/// own `messages.create` example uses it.
pub const DEFAULT_MODEL: &str = "claude-sonnet-5-5";
/// The API version the pinned SDK sends (`anthropic-version`).
pub const API_VERSION: &str = "2026-10-21";
/// Where the API is when `ANTHROPIC_BASE_URL` is not set (the SDK's default too).
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The reply's length limit in tokens: ample for a plan update, a tool call or a short answer.
pub const MAX_TOKENS: u32 = 4096;
/// Retries after a 429, a 529 or another 5xx, so at most `1 + RETRIES` requests per model call.
pub const RETRIES: u32 = 3;
/// The first backoff without `retry-after`; it doubles on each retry (the SDK's 0.5 s).
pub const RETRY_BASE: Duration = Duration::from_millis(500);
/// Backoff without `retry-after` never grows beyond this (the SDK's 8 s).
const BACKOFF_CAP: Duration = Duration::from_secs(8);
/// A `retry-after` longer than this is waited only this long: a server cannot park the run.
pub const RETRY_AFTER_CAP: Duration = Duration::from_secs(60);
/// Overrides [`RETRY_BASE`] in milliseconds, so tests of the retries do not sleep for seconds.
pub const RETRY_BASE_ENV: &str = "PRACTICE_RETRY_BASE_MS";
/// Setting up the connection, TLS included.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// Waiting for the response and reading its body: a long reply takes a while to write.
pub const READ_TIMEOUT: Duration = Duration::from_secs(300);
/// A reply body larger than this is not read: no reply of this loop comes near it.
const MAX_REPLY_BYTES: u64 = 8 * 1024 * 1024;

/// The API key. It has no `Debug` or `Display`: the only place its text goes is the header.
struct Key(String);

/// Where and how the live model connects; `LiveModel::from_env` fills it from the environment.
#[derive(Clone, Debug)]
pub struct Settings {
    /// `{base_url}/v1/messages` is posted to.
    pub base_url: String,
    pub model: String,
    pub max_tokens: u32,
    pub connect_timeout: Duration,
    pub read_timeout: Duration,
    pub retry_base: Duration,
}

impl Settings {
    pub fn new(base_url: &str, model: &str) -> Settings {
        Settings {
            base_url: base_url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            max_tokens: MAX_TOKENS,
            connect_timeout: CONNECT_TIMEOUT,
            read_timeout: READ_TIMEOUT,
            retry_base: RETRY_BASE,
        }
    }
}

/// One reply as it came: the content blocks the loop was given, and why the model stopped.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveReply {
    pub content: Vec<Block>,
    /// `end_turn`, `tool_use`, `max_tokens`, ...; absent if the API sent `null`.
    pub stop_reason: Option<String>,
}

/// A model on the other end of the Messages API.
pub struct LiveModel {
    agent: Agent,
    key: Key,
    settings: Settings,
    lang: Lang,
    /// Every reply received, in order, with its `stop_reason` (a run file records both).
    pub replies: Vec<LiveReply>,
    /// Requests sent, retries included.
    pub attempts: usize,
}

impl LiveModel {
    /// The live model from `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL` and `PRACTICE_RETRY_BASE_MS`.
    /// Why not, in the run's language, when the key is missing or unusable or the address is not
    /// one: nothing has been sent then, and no run has started.
    pub fn from_env(model: &str, lang: Lang) -> Result<LiveModel, String> {
        let key = std::env::var("ANTHROPIC_API_KEY").unwrap_or_default();
        if key.trim().is_empty() {
            return Err(lang
                .pick(
                    "没有 API 密钥：--live 需要环境变量 ANTHROPIC_API_KEY。什么都没有发送。",
                    "No API key: --live needs the environment variable ANTHROPIC_API_KEY. Nothing was sent.",
                )
                .to_string());
        }
        // The key goes into a header as it is; one a header cannot carry is refused here, by
        // description, so an HTTP library's message can never quote it.
        if !key.bytes().all(|byte| byte.is_ascii_graphic()) {
            return Err(lang
                .pick(
                    "ANTHROPIC_API_KEY 含有空白或非 ASCII 字符，不能放进请求头。什么都没有发送。",
                    "ANTHROPIC_API_KEY holds spaces or characters outside printable ASCII, which a header cannot carry. Nothing was sent.",
                )
                .to_string());
        }
        let base = std::env::var("ANTHROPIC_BASE_URL")
            .ok()
            .filter(|base| !base.is_empty())
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return Err(match lang {
                Lang::Zh => format!(
                    "ANTHROPIC_BASE_URL 应以 https:// 或 http:// 开头，而它是 {base:?}。什么都没有发送。"
                ),
                Lang::En => format!(
                    "ANTHROPIC_BASE_URL should start with https:// or http://, not {base:?}. Nothing was sent."
                ),
            });
        }
        let mut settings = Settings::new(&base, model);
        if let Some(ms) = std::env::var(RETRY_BASE_ENV).ok().and_then(|ms| ms.parse().ok()) {
            settings.retry_base = Duration::from_millis(ms);
        }
        Ok(LiveModel::new(key, settings, lang))
    }

    pub fn new(key: String, settings: Settings, lang: Lang) -> LiveModel {
        let agent = Agent::config_builder()
            .http_status_as_error(false)
            // The API does not redirect; a redirect is answered as the refusal it is, and the
            // key is never carried to another address.
            .max_redirects(0)
            .max_redirects_will_error(false)
            .timeout_connect(Some(settings.connect_timeout))
            .timeout_recv_response(Some(settings.read_timeout))
            .timeout_recv_body(Some(settings.read_timeout))
            .user_agent(concat!("todo-trace-practice/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        LiveModel { agent, key: Key(key), settings, lang, replies: Vec::new(), attempts: 0 }
    }

    pub fn model_name(&self) -> &str {
        &self.settings.model
    }

    /// The last reply's `stop_reason`.
    pub fn last_stop_reason(&self) -> Option<&str> {
        self.replies.last().and_then(|reply| reply.stop_reason.as_deref())
    }

    /// One POST: the status, the `retry-after` header and the body, or a network failure.
    fn post(&mut self, body: &[u8]) -> Result<(u16, Option<String>, Vec<u8>), ModelError> {
        self.attempts += 1;
        let url = format!("{}/v1/messages", self.settings.base_url);
        let sent = self
            .agent
            .post(&url)
            .header("accept", "application/json")
            .header("content-type", "application/json")
            .header("anthropic-version", API_VERSION)
            .header("authorization", format!("Bearer {}", self.key.0))
            .send(body);
        let mut response = sent.map_err(|error| network(&error, self.lang))?;
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|value| value.to_str().ok())
            .map(str::to_string);
        let bytes =
            response.body_mut().with_config().limit(MAX_REPLY_BYTES).read_to_vec().map_err(
                |error| match error {
                    ureq::Error::BodyExceedsLimit(_) => malformed(
                        match self.lang {
                            Lang::Zh => format!("回复超过 {MAX_REPLY_BYTES} 字节"),
                            Lang::En => format!("the reply is larger than {MAX_REPLY_BYTES} bytes"),
                        },
                        self.lang,
                    ),
                    error => network(&error, self.lang),
                },
            )?;
        Ok((status, retry_after, bytes))
    }

    /// How long to wait before retry number `retry` (0-based): `retry-after` when it gives
    /// seconds, capped; otherwise the doubling backoff.
    fn delay(&self, retry: u32, retry_after: Option<&str>) -> Duration {
        let seconds = retry_after.and_then(|text| text.trim().parse::<f64>().ok());
        match seconds {
            // Capped before it becomes a Duration, which a huge number would overflow.
            Some(seconds) if seconds >= 0.0 => {
                Duration::from_secs_f64(seconds.min(RETRY_AFTER_CAP.as_secs_f64()))
            }
            _ => self.settings.retry_base.saturating_mul(1 << retry).min(BACKOFF_CAP),
        }
    }
}

/// What is posted: the four fields of LOOP.md, in the API's names.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    tools: &'a [ToolDefinition],
    messages: &'a [Message],
}

/// The parts of a `Message` the loop needs; every other field the API sends is left alone.
#[derive(Deserialize)]
struct ApiMessage {
    #[serde(rename = "type")]
    kind: String,
    role: String,
    content: Vec<Value>,
    stop_reason: Option<String>,
}

/// An error body: `{"type":"error","error":{"type":...,"message":...}}`.
#[derive(Deserialize)]
struct ApiError {
    error: ApiErrorDetail,
}

#[derive(Deserialize)]
struct ApiErrorDetail {
    #[serde(rename = "type")]
    kind: String,
    message: String,
}

/// Text from the server shortened for an error message (it is shown escaped where printed).
fn clipped(text: &str) -> String {
    const LIMIT: usize = 300;
    match text.char_indices().nth(LIMIT) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// What the server said about an error status: its error type and message, or nothing.
fn server_said(body: &[u8]) -> String {
    match serde_json::from_slice::<ApiError>(body) {
        Ok(ApiError { error }) => clipped(&format!("{}: {}", error.kind, error.message)),
        Err(_) => String::new(),
    }
}

fn network(error: &ureq::Error, lang: Lang) -> ModelError {
    // ureq's messages name the failure (refused, timed out, host not found), never a header; the
    // two that would quote the address are described instead, since the message goes into a
    // run file, which holds nothing of the environment.
    let what = match error {
        ureq::Error::BadUri(_) | ureq::Error::Http(_) => lang
            .pick("ANTHROPIC_BASE_URL 不是可用的地址", "ANTHROPIC_BASE_URL is not a usable address")
            .to_string(),
        error => error.to_string(),
    };
    let message = match lang {
        Lang::Zh => format!("无法连接 Messages API（网络错误：{what}）。"),
        Lang::En => format!("Could not reach the Messages API (network error: {what})."),
    };
    ModelError { code: "network", message }
}

fn malformed(why: String, lang: Lang) -> ModelError {
    let message = match lang {
        Lang::Zh => format!("Messages API 的回复格式不对：{why}。没有把它当作模型的回复。"),
        Lang::En => format!(
            "The Messages API's reply is malformed: {why}. It was not taken as the model's reply."
        ),
    };
    ModelError { code: "malformed", message }
}

/// A status that is worth asking again: rate limited, overloaded, or a server error.
fn retryable(status: u16) -> bool {
    status == 429 || status == 529 || (500..600).contains(&status)
}

/// The error for a final status other than 200.
fn refused(status: u16, body: &[u8], tries: u32, lang: Lang) -> ModelError {
    let said = match (server_said(body), lang) {
        (said, _) if said.is_empty() => said,
        (said, Lang::Zh) => format!("（{said}）"),
        (said, Lang::En) => format!(" ({said})"),
    };
    if status == 401 {
        let message = match lang {
            Lang::Zh => format!(
                "Messages API 拒绝了这个密钥：401 Unauthorized{said}。请检查 ANTHROPIC_API_KEY。"
            ),
            Lang::En => format!(
                "The Messages API refused the key (401 Unauthorized{said}). Check ANTHROPIC_API_KEY."
            ),
        };
        return ModelError { code: "unauthorized", message };
    }
    if retryable(status) {
        // A 529 (overloaded) spent like any other: the message names the status.
        let code = "retries_exhausted";
        let message = match lang {
            Lang::Zh => format!(
                "Messages API 连续 {tries} 次回答 HTTP {status}{said}（已重试 {RETRIES} 次），放弃。"
            ),
            Lang::En => format!(
                "The Messages API answered HTTP {status}{said} {tries} times in a row ({RETRIES} retries); giving up."
            ),
        };
        return ModelError { code, message };
    }
    let message = match lang {
        Lang::Zh => format!("Messages API 回答 HTTP {status}{said}，请求未被接受。"),
        Lang::En => {
            format!("The Messages API answered HTTP {status}{said}: the request was not accepted.")
        }
    };
    ModelError { code: "rejected", message }
}

/// The reply's content as the loop's blocks, and its stop reason.
fn parse_reply(bytes: &[u8], lang: Lang) -> Result<LiveReply, ModelError> {
    let reply: ApiMessage = serde_json::from_slice(bytes).map_err(|error| {
        let why = match lang {
            Lang::Zh => format!("它不是一个 Message 对象（{error}）"),
            Lang::En => format!("it is not a Message object ({error})"),
        };
        malformed(why, lang)
    })?;
    if reply.kind != "message" || reply.role != "assistant" {
        let why = match lang {
            Lang::Zh => format!(
                "type 是 {:?}、role 是 {:?}，应为 message 和 assistant",
                clipped(&reply.kind),
                clipped(&reply.role)
            ),
            Lang::En => format!(
                "its type is {:?} and its role {:?}, not message and assistant",
                clipped(&reply.kind),
                clipped(&reply.role)
            ),
        };
        return Err(malformed(why, lang));
    }
    let content = reply
        .content
        .into_iter()
        .enumerate()
        .map(|(index, block)| parse_block(block, index, lang))
        .collect::<Result<Vec<Block>, ModelError>>()?;
    Ok(LiveReply { content, stop_reason: reply.stop_reason })
}

/// A `text` or `tool_use` block, each with its fields of the right types; nothing else.
fn parse_block(block: Value, index: usize, lang: Lang) -> Result<Block, ModelError> {
    let text = |key: &str| block.get(key).and_then(Value::as_str).map(str::to_string);
    let kind = text("type").unwrap_or_default();
    let parsed = match kind.as_str() {
        "text" => text("text").map(|text| Block::Text { text }),
        "tool_use" => match (text("id"), text("name"), block.get("input")) {
            (Some(id), Some(name), Some(input)) if input.is_object() => {
                Some(Block::ToolUse { id, name, input: input.clone() })
            }
            _ => None,
        },
        _ => {
            let why = match lang {
                Lang::Zh => format!(
                    "第 {} 个内容块的类型 {:?} 不是本课认识的 text 或 tool_use",
                    index + 1,
                    clipped(&kind)
                ),
                Lang::En => format!(
                    "content block {} has type {:?}, which this lesson does not know (only text and tool_use)",
                    index + 1,
                    clipped(&kind)
                ),
            };
            return Err(malformed(why, lang));
        }
    };
    parsed.ok_or_else(|| {
        let why = match lang {
            Lang::Zh => format!("第 {} 个内容块（{kind}）缺少字段或字段类型不对", index + 1),
            Lang::En => format!(
                "content block {} ({kind}) lacks a field or has one of the wrong type",
                index + 1
            ),
        };
        malformed(why, lang)
    })
}

impl Model for LiveModel {
    fn reply(&mut self, request: &Request) -> Result<Vec<Block>, ModelError> {
        let body = Body {
            model: &self.settings.model,
            max_tokens: self.settings.max_tokens,
            tools: request.tools,
            messages: &request.messages,
        };
        let body =
            serde_json::to_vec(&body).map_err(|error| malformed(error.to_string(), self.lang))?;
        let mut retry = 0;
        loop {
            let (status, retry_after, bytes) = self.post(&body)?;
            if status == 200 {
                let reply = parse_reply(&bytes, self.lang)?;
                self.replies.push(reply.clone());
                return Ok(reply.content);
            }
            if !retryable(status) || retry == RETRIES {
                return Err(refused(status, &bytes, retry + 1, self.lang));
            }
            std::thread::sleep(self.delay(retry, retry_after.as_deref()));
            retry += 1;
        }
    }

    fn stop_reason(&self) -> Option<&str> {
        self.last_stop_reason()
    }

    fn describe(&self) -> Cow<'_, str> {
        Cow::Owned(format!("live model {} (Messages API)", self.settings.model))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> LiveModel {
        LiveModel::new("sk-test".into(), Settings::new("http://127.0.0.1:9", "m"), Lang::En)
    }

    #[test]
    fn retry_after_is_honoured_and_capped() {
        let model = model();
        assert_eq!(model.delay(0, Some("2")), Duration::from_secs(2));
        assert_eq!(model.delay(0, Some("0.25")), Duration::from_millis(250));
        assert_eq!(model.delay(0, Some("86400")), RETRY_AFTER_CAP);
        assert_eq!(model.delay(0, Some("1e300")), RETRY_AFTER_CAP);
        assert_eq!(model.delay(0, Some("inf")), RETRY_AFTER_CAP);
        assert_eq!(model.delay(1, Some("NaN")), RETRY_BASE * 2);
        assert_eq!(model.delay(0, Some("-1")), RETRY_BASE);
        assert_eq!(model.delay(0, Some("soon")), RETRY_BASE);
        assert_eq!(model.delay(2, None), RETRY_BASE * 4);
        assert_eq!(model.delay(30, None), BACKOFF_CAP);
    }

    #[test]
    fn a_reply_becomes_blocks_and_keeps_its_stop_reason() {
        let body = br#"{"id":"msg_1","type":"message","role":"assistant","model":"m",
            "content":[{"type":"text","text":"hi","citations":null},
                       {"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"main.py"},"caller":{"type":"direct"}}],
            "stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}"#;
        let reply = parse_reply(body, Lang::En).unwrap();
        assert_eq!(reply.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!(
            reply.content,
            [
                Block::Text { text: "hi".into() },
                Block::ToolUse {
                    id: "toolu_1".into(),
                    name: "read_file".into(),
                    input: serde_json::json!({"path": "main.py"})
                },
            ]
        );
    }

    #[test]
    fn anything_else_is_malformed() {
        for body in [
            &br#"not json"#[..],
            br#"{"type":"error","error":{"type":"x","message":"y"}}"#,
            br#"{"type":"message","role":"user","content":[],"stop_reason":null}"#,
            br#"{"type":"message","role":"assistant","content":[{"type":"thinking","thinking":"hm"}],"stop_reason":"end_turn"}"#,
            br#"{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"t","name":"run_main","input":"{}"}],"stop_reason":"tool_use"}"#,
            br#"{"type":"message","role":"assistant","content":[{"type":"text","text":7}],"stop_reason":"end_turn"}"#,
        ] {
            let error = parse_reply(body, Lang::En).unwrap_err();
            assert_eq!(error.code, "malformed", "{}", String::from_utf8_lossy(body));
        }
        let error = parse_reply(
            br#"{"type":"message","role":"assistant","content":[{"type":"thinking"}],"stop_reason":null}"#,
            Lang::En,
        )
        .unwrap_err();
        assert!(error.message.contains("\"thinking\""), "{}", error.message);
    }

    #[test]
    fn statuses_name_their_failure() {
        let body =
            br#"{"type":"error","error":{"type":"authentication_error","message":"invalid key"}}"#;
        let error = refused(401, body, 1, Lang::En);
        assert_eq!(error.code, "unauthorized");
        assert!(error.message.contains("authentication_error: invalid key"), "{}", error.message);
        assert_eq!(refused(500, b"", 4, Lang::En).code, "retries_exhausted");
        assert_eq!(refused(529, b"", 4, Lang::Zh).code, "retries_exhausted");
        assert_eq!(refused(400, b"<html>", 1, Lang::En).code, "rejected");
        // Every code is one a run file can hold.
        for code in ["unauthorized", "retries_exhausted", "rejected", "network", "malformed"] {
            assert!(crate::lesson::agent_types::MODEL_ERROR_CODES.contains(&code), "{code}");
        }
    }
}
