"""The TodoWrite lesson in plain Python, traced with sys.settrace: what the benchmark runs in Pyodide."""
# The same rules, check order, messages, scenarios and call entries as src/lesson.rs, src/messages.rs,
# src/entries.rs and src/figures.rs (LESSON.md), written the way a Python lesson author would.
# trace_json() records a step trace similar in spirit to the Rust one: before every line of a
# lesson function, the line, the call stack, the locals and the host state.

import copy
import json
import sys

MAX_ITEMS = 20
MAX_ID_CHARS = 32
MAX_CONTENT_CHARS = 150
KEYS = ("id", "content", "status")
STATUSES = ("pending", "in_progress", "completed")
# Rust's str::trim strips Unicode White_Space; str.strip() would also strip \x1c-\x1f, so name the set.
WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"


class TodoError(Exception):
    """Why a plan was rejected; position is the item's 1-based place in the submitted list."""

    def __init__(self, code, position=None, item_id=None, status=None, count=None):
        super().__init__(code)
        self.code = code
        self.position = position
        self.item_id = item_id
        self.status = status
        self.count = count


def pick(lang, zh, en):
    return zh if lang == "zh" else en


# ---- the lesson functions (the ones the reader steps through) ----


def validate_todos(items):
    if not isinstance(items, list):
        raise TodoError("not_a_list")
    if len(items) > MAX_ITEMS:
        raise TodoError("too_many_items", count=len(items))
    new_list = []
    seen_ids = []
    active = 0
    for index, item in enumerate(items):
        position = index + 1
        if not isinstance(item, dict):
            raise TodoError("bad_shape", position)
        if len(item) != len(KEYS) or not all(key in item for key in KEYS):
            raise TodoError("bad_shape", position)
        raw_id, raw_content, status = item["id"], item["content"], item["status"]
        if not (isinstance(raw_id, str) and isinstance(raw_content, str) and isinstance(status, str)):
            raise TodoError("not_a_string", position)
        item_id = raw_id.strip(WHITE_SPACE)
        content = raw_content.strip(WHITE_SPACE)
        if not item_id:
            raise TodoError("empty_id", position)
        if len(item_id) > MAX_ID_CHARS:
            raise TodoError("id_too_long", position, item_id)
        if item_id in seen_ids:
            raise TodoError("duplicate_id", position, item_id)
        if not content:
            raise TodoError("empty_content", position, item_id)
        if len(content) > MAX_CONTENT_CHARS:
            raise TodoError("content_too_long", position, item_id)
        if status not in STATUSES:
            raise TodoError("unknown_status", position, item_id, status)
        seen_ids.append(item_id)
        if status == "in_progress":
            active += 1
        if active > 1:
            raise TodoError("too_many_active", position, item_id)
        new_list.append({"id": item_id, "content": content, "status": status})
    return new_list


def write_todos(state, items, lang):
    replacement = validate_todos(items)
    rendered = format_todos(replacement, lang)
    state["items"] = replacement
    return rendered


def format_todos(items, lang):
    if not items:
        return pick(lang, "（清单为空）", "(empty plan)")
    lines = []
    for item in items:
        lines.append(f"{item['id']} [{item['status']}] {item['content']}")
    return "\n".join(lines)


def prepare_messages(messages, state, lang):
    first = messages[0] if messages else None
    if not (isinstance(first, dict) and first.get("role") == "user" and isinstance(first.get("content"), str)):
        raise TodoError("no_user_text")
    question = first["content"]
    plan = format_todos(state["items"], lang)
    header = pick(
        lang,
        "【当前计划，由宿主提供；其中的状态只是声明，需以工具结果为证】",
        "[Current plan, provided by the host; its statuses are claims to check against the tool results]",
    )
    prepared = copy.deepcopy(messages)
    prepared[0]["content"] = f"{question}\n\n{header}\n{plan}"
    return prepared


# ---- what each rejection says (the same sentences as src/messages.rs) ----


def quoted(text):
    return f'"{text}"' if len(text) <= 40 else f'"{text[:40]}…"'


def message(error, lang):
    p, q = error.position, quoted(error.item_id or "")
    zh = {
        "not_a_list": "items 必须是一个列表（数组）。",
        "too_many_items": f"清单有 {error.count} 项，最多只能有 {MAX_ITEMS} 项。",
        "bad_shape": f"第 {p} 项必须是对象，且只有 id、content、status 三个键。",
        "not_a_string": f"第 {p} 项的 id、content、status 都必须是字符串。",
        "empty_id": f"第 {p} 项的 id 为空。",
        "id_too_long": f"第 {p} 项的 id {q} 超过 {MAX_ID_CHARS} 个字符。",
        "duplicate_id": f"第 {p} 项的 id {q} 与前面的某一项重复。",
        "empty_content": f"第 {p} 项（id {q}）的 content 为空。",
        "content_too_long": f"第 {p} 项（id {q}）的 content 超过 {MAX_CONTENT_CHARS} 个字符。",
        "unknown_status": f"第 {p} 项（id {q}）的状态 {quoted(error.status or '')} 无效；只能是 pending、in_progress 或 completed。",
        "too_many_active": f"第 {p} 项（id {q}）是第二个 in_progress；同一时间只能有一项在进行。",
        "no_user_text": "历史的第一条消息必须是用户的文本消息。",
    }
    en = {
        "not_a_list": "items must be a list (an array).",
        "too_many_items": f"The plan has {error.count} items; at most {MAX_ITEMS} are allowed.",
        "bad_shape": f"Item {p} must be an object with exactly the keys id, content and status.",
        "not_a_string": f"Item {p}: id, content and status must all be strings.",
        "empty_id": f"Item {p} has an empty id.",
        "id_too_long": f"Item {p}: id {q} is longer than {MAX_ID_CHARS} characters.",
        "duplicate_id": f"Item {p}: id {q} is already used by an earlier item.",
        "empty_content": f"Item {p} (id {q}) has empty content.",
        "content_too_long": f"Item {p} (id {q}): content is longer than {MAX_CONTENT_CHARS} characters.",
        "unknown_status": f"Item {p} (id {q}): status {quoted(error.status or '')} is not one of pending, in_progress, completed.",
        "too_many_active": f"Item {p} (id {q}) is a second in_progress item; only one may be in progress.",
        "no_user_text": "The first message of the history must be a user text message.",
    }
    return pick(lang, zh, en)[error.code]


# ---- the call entries: set up a scenario, call the lesson function, print the outcome ----


def run_validate(setup, lang):
    try:
        new_list = validate_todos(setup["items"])
    except TodoError as error:
        say(message(error, lang))
        raise
    say(pick(lang, "校验通过。新清单：", "Valid. The new list:"))
    say(format_todos(new_list, lang))
    return new_list


def run_write(setup, lang):
    state = setup["state"]
    failure = None
    try:
        rendered = write_todos(state, setup["items"], lang)
        say(pick(lang, "已写入。当前计划：", "Written. Current plan:"))
    except TodoError as error:
        failure = error
        say(message(error, lang))
        say(pick(lang, "计划没有改变。当前计划：", "The plan is unchanged. Current plan:"))
    say(format_todos(state["items"], lang))
    say(pick(
        lang,
        "写入计划没有运行其中任何一项：状态只是声明，不是证据。",
        "Writing the plan ran none of its items: a status is a claim, not evidence.",
    ))
    if failure:
        raise failure
    return rendered


def run_prepare(setup, lang):
    try:
        prepared = prepare_messages(setup["messages"], setup["state"], lang)
    except TodoError as error:
        say(message(error, lang))
        raise
    say(pick(
        lang,
        "原始问题没有改变；这一次请求带上了当前计划。准备好的第一条消息：",
        "The original question is unchanged; this request carries the current plan. The prepared first message:",
    ))
    say(prepared[0]["content"])
    return prepared


# ---- figures and scenarios (LESSON.md's table); the first of each figure is its default ----

FIGURES = {
    "validate": ("validate_todos", run_validate, ["valid", "duplicate", "active", "unknown", "clear"]),
    "write": ("write_todos", run_write, ["replace", "duplicate", "active", "unknown", "clear", "claim", "omit"]),
    "prepare": ("prepare_messages", run_prepare, ["pending", "updated", "empty"]),
}


def todo(item_id, content, status):
    return {"id": item_id, "content": content, "status": status}


def setup_for(scenario, lang):
    """LESSON.md's base data in lang, changed as the scenario says."""
    read = pick(lang, "读取源码", "Read the source")
    run = pick(lang, "运行并核对", "Run and check")
    state = [todo("1", read, "completed"), todo("2", run, "pending")]
    items = [todo("1", read, "completed"), todo("2", run, "in_progress")]
    if scenario == "duplicate":
        items[1]["id"] = "1"
    elif scenario == "active":
        items[0]["status"] = "in_progress"
    elif scenario == "unknown":
        items[1]["status"] = "done"
    elif scenario == "clear":
        items = []
    elif scenario == "claim":
        for item in items:
            item["status"] = "completed"
    elif scenario == "omit":
        items = items[:1]
    elif scenario == "updated":
        state[1]["status"] = "completed"
    elif scenario == "empty":
        items, state = [], []
    messages = [
        {"role": "user", "content": pick(lang, "读文件，获准后运行并核对。", "Read the files; run after approval and check.")},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "run_1", "name": "run_main", "input": {}}]},
        {"role": "user", "content": [{
            "type": "tool_result",
            "tool_use_id": "run_1",
            "content": pick(lang, "未执行：用户拒绝。", "Not run: the user declined."),
            "is_error": True,
        }]},
    ]
    return {"state": {"items": state}, "items": items, "messages": messages}


# ---- the recorder ----

MAX_STEPS = 10_000
LESSON_CODE = {f.__code__: f.__name__ for f in (validate_todos, write_todos, format_todos, prepare_messages)}
recorder = None  # the Recorder while a figure is being traced; say() prints to it


def say(text):
    if recorder:
        recorder.output.extend(str(text).split("\n"))


def to_json(value):
    """A snapshot of a value as JSON data, so later changes cannot reach a recorded step."""
    if isinstance(value, dict):
        return {str(key): to_json(field) for key, field in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(field) for field in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


class Frame:
    def __init__(self, symbol):
        self.symbol = symbol
        self.started = False
        self.error = None  # the TodoError leaving this frame, if one is


class Recorder:
    """Records every line of the target function and the lesson functions it calls."""

    def __init__(self, target, setup, lang):
        self.target = target
        self.setup = setup
        self.lang = lang
        self.frames = []
        self.steps = []
        self.output = []

    def host(self):
        host = {"items": to_json(self.setup["state"]["items"])}
        if self.target == "prepare_messages":
            host["messages"] = to_json(self.setup["messages"])
        return host

    def on_call(self, frame, event, arg):
        symbol = LESSON_CODE.get(frame.f_code)
        if symbol is None or (not self.frames and symbol != self.target):
            return None
        self.frames.append(Frame(symbol))
        return self.on_event

    def on_event(self, frame, event, arg):
        top = self.frames[-1]
        if event == "line":
            self.push(frame, "line" if top.started else "call")
            top.started = True
        elif event == "exception":
            top.error = arg[1] if isinstance(arg[1], TodoError) else None
        elif event == "return":
            if top.error is not None:
                error = top.error
                self.push(frame, "error", error={"code": error.code, "message": message(error, self.lang)})
            else:
                self.push(frame, "return", value=to_json(arg))
            self.frames.pop()
        return self.on_event

    def push(self, frame, event, **extra):
        if self.steps and self.steps[-1]["event"] == "truncated":
            return
        if len(self.steps) + 1 >= MAX_STEPS:
            event, extra = "truncated", {}
        self.steps.append({
            "symbol": self.frames[-1].symbol,
            "line": frame.f_lineno,
            "event": event,
            **extra,
            "stack": [f.symbol for f in self.frames],
            "locals": [
                {"name": name, "type": type(value).__name__, "value": to_json(value)}
                for name, value in frame.f_locals.items()
            ],
            "state": self.host(),
            "outputLines": len(self.output),
        })


def trace(figure, scenario, lang):
    """Runs a figure's scenario under sys.settrace and returns every step, as the Rust trace() does."""
    global recorder
    symbol, entry, scenarios = FIGURES[figure]
    if scenario not in scenarios or lang not in ("zh", "en"):
        raise ValueError(f"unknown scenario {scenario!r} or language {lang!r} for figure {figure!r}")
    setup = setup_for(scenario, lang)
    given = to_json(setup)
    recorder = Recorder(symbol, setup, lang)
    sys.settrace(recorder.on_call)
    try:
        result = {"ok": True, "value": to_json(entry(setup, lang))}
    except TodoError as error:
        result = {"ok": False, "error": {"code": error.code, "message": message(error, lang)}}
    finally:
        sys.settrace(None)
        done, recorder = recorder, None
    return {
        "figure": figure,
        "scenario": scenario,
        "input": given,
        "steps": done.steps,
        "output": done.output,
        "result": result,
    }


def trace_json(figure, scenario, lang):
    """trace() as JSON text: the cheapest way to hand the whole trace to JavaScript. Plain ASCII
    (json's default) crosses into JS faster than text with Chinese in it, and JSON.parse gives
    back the same strings."""
    return json.dumps(trace(figure, scenario, lang))


# ---- the cheapest trace: what issue 10 measures the module against ----


class CheapRecorder:
    """The least a Python step trace can record: before every line of a lesson function, the
    line, repr() of each local and json.dumps of the host state; no stack, events or output."""

    def __init__(self, setup, target):
        self.target = target
        self.state = setup["state"] if target != "prepare_messages" else {**setup["state"], "messages": setup["messages"]}
        self.depth = 0  # lesson frames open, counted from the target's; the entry's own calls are not traced
        self.steps = []

    def on_call(self, frame, event, arg):
        symbol = LESSON_CODE.get(frame.f_code)
        if symbol is None or (self.depth == 0 and symbol != self.target):
            return None
        self.depth += 1
        return self.on_line

    def on_line(self, frame, event, arg):
        if event == "line":
            self.steps.append((
                frame.f_lineno,
                {name: repr(value) for name, value in frame.f_locals.items()},
                json.dumps(self.state),
            ))
        elif event == "return":
            self.depth -= 1
        return self.on_line


def trace_cheap_json(figure, scenario, lang):
    """A figure's scenario under the cheapest recorder, as JSON text: its steps and whether it succeeded."""
    symbol, entry, scenarios = FIGURES[figure]
    if scenario not in scenarios or lang not in ("zh", "en"):
        raise ValueError(f"unknown scenario {scenario!r} or language {lang!r} for figure {figure!r}")
    setup = setup_for(scenario, lang)
    cheap = CheapRecorder(setup, symbol)
    sys.settrace(cheap.on_call)
    try:
        entry(setup, lang)
        ok = True
    except TodoError:
        ok = False
    finally:
        sys.settrace(None)
    return json.dumps({"steps": cheap.steps, "ok": ok})


def scenario_ids():
    """[[figure, scenario], ...] in the lesson's order."""
    return [[figure, scenario] for figure, (_, _, scenarios) in FIGURES.items() for scenario in scenarios]
