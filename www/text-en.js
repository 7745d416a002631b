// Every reader-visible word of a figure in English: its caption, "things to try" and the debugger's labels. The
// figure element (embed.js) loads this file alone; the lesson page adds its own prose (lesson-en.js).
// @ts-check
//
// One file per language, so a reader downloads only the language they read (text-zh.js and
// text-en.js have the same keys).
//
// Inline markup in prose strings (here and in lesson-*.js): `code`, {line:SNIPPET} (the number of the one listing
// line that contains SNIPPET, so the prose cannot drift from the compiled source) and {scenario:FIGURE/ID}
// (that scenario's label in the page's language).

/** @typedef {{symbol: string, line: number, step: number, total: number}} Paused what the status line says of a paused run */
/** @typedef {{code: string, message: string}} Failure */
/** @typedef {typeof words} Words a figure's words; text-zh.js has the same keys */
/**
 * A "things to try" item: its words, and what its "Show me" button sets up, which the figure resolves: the scenario,
 * the breakpoints (each the text of the one line it is on, as {line:…} names it), optionally an input the editor
 * gets and runs as the reader's (its first command then is "run" or "debug"), and the commands pressed from the start.
 * @typedef {{text: string, show: {scenario: string, breakpoints: string[], input?: string, go: import('./replay.js').Command[]}}} Try
 */

const words = {
  pageFailed: (/** @type {string} */ detail) => `Something went wrong and the debuggers cannot be shown. Details: ${detail}`,
  /** A value of the figure's attributes or of the link that it cannot use: it opens without it. */
  problem: (/** @type {string} */ name, /** @type {Node} */ value) => [name, '=', value, ' was not understood and is ignored.'],
  moreProblems: (/** @type {number} */ count) => (count === 1 ? '1 more value was not understood; it is ignored too.' : `${count} more values were not understood; they are ignored too.`),
  figure: (/** @type {number} */ n) => `Figure ${n}`,
  scenario: 'Scenario',
  controlsLabel: 'Debugger controls',
  /** @type {Record<import('./replay.js').Command, [string, string]>} */
  controls: {
    run: ['Run', 'Run from the start to the end, ignoring breakpoints'],
    debug: ['Debug', 'Run from the start to the first breakpoint, or to the end if there is none'],
    continue: ['Continue', 'Run to the next breakpoint, or to the end'],
    'step-over': ['Step over', 'Run one step without going into the functions it calls'],
    'step-into': ['Step into', 'Run one step, going into a function it calls'],
    'step-out': ['Step out', 'Run until the current function returns'],
    'step-back': ['Step back', 'Go back one step'],
    restart: ['Restart', 'Back to the start, nothing run yet'],
  },
  /** @type {[string, string][]} */
  keysExtra: [
    ['F9', 'Set or clear a breakpoint on the focused code line (Enter and Space do too)'],
    ['↑ ↓ Home End', 'Move the focus between code lines'],
    ['Ctrl+Enter', 'In the editor under “Setup and call entry”: run your input'],
  ],
  timeline: 'Timeline',
  position: {
    idle: (/** @type {number} */ n) => `not started (${n} steps)`,
    at: (/** @type {number} */ k, /** @type {number} */ n) => `step ${k} of ${n}`,
    end: (/** @type {number} */ n) => `finished (${n} steps)`,
  },
  status: {
    idle: 'Ready: press Debug or Step into to begin.',
    line: (/** @type {Paused} */ s) => `Paused at line ${s.line} in ${s.symbol} (step ${s.step} of ${s.total}).`,
    return: (/** @type {Paused} */ s) =>
      `Paused: ${s.symbol} has returned; the last line it ran was line ${s.line} (step ${s.step} of ${s.total}).`,
    error: (/** @type {Paused & {error: Failure}} */ s) =>
      `Paused: ${s.symbol} returned the error ${s.error.code} at line ${s.line} (step ${s.step} of ${s.total}): ${s.error.message}`,
    done: 'Done: the function returned and the call entry printed the outcome.',
    failed: (/** @type {{error: Failure}} */ s) => `Error ${s.error.code}: ${s.error.message}`,
    truncated: 'Error: the run passed the step limit, and the recording stops here.',
  },
  panes: {
    locals: 'Locals', stack: 'Call stack', state: 'Host state', output: 'Output',
    conversation: 'Conversation (the stored history)', plan: 'The host’s plan', request: 'The model’s request', evidence: 'Claim against evidence',
  },
  loop: {
    breakOn: 'Pause when the host…',
    /** @type {Record<import('./pkg/todo_trace.js').HostEvent, string>} */
    events: {
      'plan-written': 'writes a plan',
      'plan-refused': 'refuses a plan',
      ask: 'asks the user',
      refused: 'refuses or blocks a call',
      reminder: 'adds the reminder',
      'call-limit': 'stops at the call limit',
      answered: 'stops on an answer',
    },
    eventMark: 'host decision',
    user: 'user',
    assistant: 'assistant',
    reminder: 'reminder from the host',
    call: (/** @type {string} */ id) => `tool call ${id}`,
    result: (/** @type {string} */ id) => `result of ${id}`,
    errorResult: (/** @type {string} */ id) => `error result of ${id}`,
    recordedResult: (/** @type {string} */ id) => `result of ${id}, recorded (the page runs no program)`,
    noHistory: '(The history is empty until the loop stores the question.)',
    noPlan: '(No plan yet.)',
    noUpdate: 'No plan update yet.',
    accepted: (/** @type {number} */ step) => `Last update accepted (step ${step}); changed items are marked.`,
    refusedUpdate: (/** @type {number} */ step) => `Last update refused (step ${step}): the plan above is unchanged.`,
    status: { pending: 'pending', in_progress: 'in progress', completed: 'completed' },
    noRequest: '(No model call yet.)',
    requestOf: (/** @type {number} */ call, /** @type {number} */ count, /** @type {number} */ step) => `Model call ${call}: ${count} prepared messages (recorded before step ${step}).`,
    differs: 'differs from the stored history: carries the plan',
    stored: 'Every other message is the stored one, unchanged; the stored history never carries the plan.',
    tools: (/** @type {string} */ names) => `Tool definitions sent with it: ${names}`,
    atTheEnd: '(Shown when the run has ended.)',
    stopped: (/** @type {string} */ stop, /** @type {number} */ calls) => `Stopped: ${stop}, after ${calls} model calls.`,
    answer: 'the final answer',
    item: 'Item',
    claim: 'Status (the claim)',
    evidence: 'Evidence in the history',
    backed: (/** @type {string} */ tool, /** @type {string} */ path, /** @type {string} */ id) => `backed: ${tool}${path ? ` ${path}` : ''} succeeded (${id})`,
    unbacked: (/** @type {string} */ tool, /** @type {string} */ path) => `no successful ${tool}${path ? ` ${path}` : ''} in the history`,
    gap: 'claimed without evidence',
  },
  notRunning: '(no function is running)',
  noOutput: '(Nothing printed yet: the call entry prints after the function returns.)',
  returned: 'returned',
  count: (/** @type {number} */ n) => (n === 1 ? '1 item' : `${n} items`),
  framePicked: (/** @type {string} */ symbol, /** @type {number} */ line) => `Locals of ${symbol}, the caller, as they are at its line ${line}; any step goes back to the current call.`,
  hostEffect: 'Marked against the host state before the call: what the whole call changed.',
  errored: 'returned an error',
  change: { new: 'new binding', changed: 'changed', removed: 'removed' },
  moved: 'moved out',
  legend: { next: 'line about to run', ran: 'line this function just ran', bp: 'breakpoint' },
  breakpoint: (/** @type {number} */ line) => `Breakpoint at line ${line}`,
  noStep: 'No statement stops on this line, so it takes no breakpoint',
  codeLabel: (/** @type {string} */ file, /** @type {string} */ symbol) => `${symbol} (${file})`,
  setup: {
    summary: 'Setup and call entry',
    input: 'This scenario’s input data (JSON)',
    ownInput: 'This run’s input data (JSON): your part, the rest from the default scenario',
    entry: (/** @type {string} */ entry, /** @type {string} */ file) => `Call entry ${entry} (${file}): set up the data, call the function, print the outcome`,
  },
  input: {
    option: 'Your input',
    hint: 'This figure now runs the input you wrote under “Setup and call entry”; press “Back to the scenario” to return.',
    note: 'Write JSON or a Python list literal (strings in single or double quotes, True, False, None). The text is only parsed, never run; at most 64 KiB.',
    /** @type {[string, string]} */
    run: ['Run my input', 'Call the function on the text above and run to the end'],
    /** @type {[string, string]} */
    debug: ['Debug my input', 'Call the function on the text above and pause at the first breakpoint, or run to the end if there is none'],
    /** @type {[string, string]} */
    reset: ['Back to the scenario', 'Put the scenario’s data back and show the scenario again'],
    refused: 'Input refused',
    goTo: (/** @type {number} */ line, /** @type {number} */ column) => `Move the caret to line ${line}, column ${column}`,
    notRun: '(Not run: the input was refused.)',
    exception: (/** @type {string} */ detail) => `Something failed inside the module and this run did not finish; the other figures are not affected. Details: ${detail}`,
  },
  tries: 'Things to try',
  /** @type {[string, string]} */
  showMe: ['Show me', 'Set the figure up as this item describes: its scenario, breakpoints and step'],
  quote: (/** @type {string} */ label) => `“${label}”`,
  colon: ': ',
  /** @type {Record<string, {caption: string, inputLabel: string, tries: Try[]}>} */
  figures: {
    loop: {
      caption: '`run_loop` and `execute_with_plan`: one whole agent run, from the question to the stop, with the host’s rules and the plan functions inside.',
      inputLabel: 'This figure runs its scenarios only',
      tries: [
        {
          text: 'In {scenario:loop/allow}, tick “asks the user” and press Debug: the run pauses right after the host asked. The conversation shows the run’s result as recorded, since the page runs no program.',
          show: { scenario: 'allow', breakpoints: ['if tools.approval.decide(lang) == Decision::Deny'], go: ['debug', 'step-over'] },
        },
        {
          text: 'Set a breakpoint on line {line:let reply = model.reply(&request)?;} and press Debug: the request pane shows what the model receives. Only its first message differs from the stored history: it carries the plan.',
          show: { scenario: 'allow', breakpoints: ['let reply = model.reply(&request)?;'], go: ['debug'] },
        },
        {
          text: 'On line {line:execute_with_plan(call, &mut state, tools)}, press F11 to step into `execute_with_plan`, and F11 again on {line:write_todos(state, &call.input["items"], lang)} to reach `write_todos`; Shift+F11 brings you back out.',
          show: { scenario: 'allow', breakpoints: ['execute_with_plan(call, &mut state, tools)'], go: ['debug', 'step-into'] },
        },
        {
          text: 'In {scenario:loop/rejected}, tick “refuses a plan” and press Debug: the plan pane says the update was refused and the plan is unchanged. Continue to the next written plan to see the corrected one.',
          show: { scenario: 'rejected', breakpoints: ['call.refuse("plan_refused"'], go: ['debug', 'step-over'] },
        },
        {
          text: 'In {scenario:loop/nag}, tick “adds the reminder”: the third round without a plan update gets one reminder, after its tool results.',
          show: { scenario: 'nag', breakpoints: ['results.push(Block::reminder());'], go: ['debug', 'step-over'] },
        },
        {
          text: 'Run {scenario:loop/budget} and {scenario:loop/claim} to the end and compare their last panes: one stops with work left and says so; the other claims everything with no evidence at all.',
          show: { scenario: 'budget', breakpoints: [], go: ['run'] },
        },
      ],
    },
    validate: {
      caption: '`validate_todos` checks the submitted list item by item: only if every item passes is there a new list.',
      inputLabel: 'The submitted list, items: what the model passes to validate_todos',
      tries: [
        {
          show: { scenario: 'valid', breakpoints: ['new_list.push('], go: ['debug'] },
          text: 'Paused at the append, line {line:new_list.push(}, in {scenario:validate/valid}: the first item has passed every check, the second is not checked yet, and new_list is still empty. Press Continue (F8): new_list now holds the first item, and the run pauses here again for the second.',
        },
        {
          show: { scenario: 'duplicate', breakpoints: ['new_list.push(', 'TodoError::DuplicateId'], go: ['debug', 'continue'] },
          text: 'In {scenario:validate/duplicate} the breakpoint on the append, line {line:new_list.push(}, was hit once, for the first item. The second item has the same id, so the check on line {line:if seen_ids.contains} stopped it: it is about to return duplicate_id from line {line:TodoError::DuplicateId}, and new_list holds only the first item. Press Step over (F10): validate_todos returns the error.',
        },
        {
          show: { scenario: 'active', breakpoints: ['if active > 1'], go: ['debug', 'continue'] },
          text: 'Paused at the second hit of line {line:if active > 1} in {scenario:validate/active}: seen_ids already holds the second item’s id and active is 2. Press Step over (F10): the next line is the return of too_many_active, and the item is never appended.',
        },
        {
          show: { scenario: 'clear', breakpoints: ['for (index, item)'], go: ['debug'] },
          text: 'Paused at the loop, line {line:for (index, item)}, in {scenario:validate/clear}, where the list is empty. Press Step into (F11): the next line is {line:Ok(new_list)}; the loop body never runs.',
        },
        {
          show: {
            scenario: 'valid',
            breakpoints: [],
            input: '[\n  {"id": "1", "content": "Read the source", "status": "completed"},\n  {"id": " 1 ", "content": "Run and check", "status": "in_progress"}\n]',
            go: ['run', 'step-back'],
          },
          text: 'Under “Setup and call entry” the second item’s id is now `" 1 "`, with spaces around it, and your input has run: trimmed, it equals the first id, so validate_todos has returned duplicate_id. Change it to `" 2 "` and press Run my input (Ctrl+Enter): the list passes, its ids trimmed.',
        },
      ],
    },
    write: {
      caption: '`write_todos` validates, renders, and then replaces the host’s plan in one assignment.',
      inputLabel: 'The submitted list, items: the host state still starts from the default scenario’s old plan',
      tries: [
        {
          show: { scenario: 'replace', breakpoints: ['state.items = replacement'], go: ['debug'] },
          text: 'Paused at the assignment, line {line:state.items = replacement}, in {scenario:write/replace}: the local replacement holds the new plan while the host state still holds the old one. Press Step over (F10) to run that line: the host state now holds the new plan, and replacement shows as moved.',
        },
        {
          show: { scenario: 'replace', breakpoints: [], go: ['step-into'] },
          text: 'Paused at line {line:validate_todos(items)?}, before anything has run. Press Step into (F11): the code pane switches to `validate_todos` and the call stack holds two calls; click `write_todos` in it to see the caller’s locals. Press Step out (Shift+F11) to come back to `write_todos`, with replacement bound.',
        },
        {
          show: { scenario: 'active', breakpoints: [], go: ['run', 'step-back'] },
          text: 'In {scenario:write/active} the error comes out of validation: write_todos has returned it from line {line:validate_todos(items)?}, and the host state is still the old plan. Drag the timeline from start to end: line {line:state.items = replacement} never becomes current.',
        },
        {
          show: { scenario: 'omit', breakpoints: [], go: ['run'] },
          text: '{scenario:write/omit} has run to the end: a valid commit, and item 2 is marked as removed from the host state, because the whole list was replaced by one without it. Choose {scenario:write/clear} and press Run: the plan is emptied the same way, a valid commit, not a failure.',
        },
        {
          show: { scenario: 'claim', breakpoints: [], go: ['run'] },
          text: '{scenario:write/claim} has run to the end: every item of the plan is completed, and the last line of the output says that nothing was run.',
        },
        {
          show: {
            scenario: 'replace',
            breakpoints: [],
            input: '[\n  {"id": "a", "content": "  Write the tests  ", "status": "completed"},\n  {"id": "b", "content": "Fix the bug", "status": "in_progress"},\n  {"id": "c", "content": "Run them again", "status": "pending"}\n]',
            go: ['run'],
          },
          text: 'Under “Setup and call entry” a plan of your own, three items with one in_progress, has run: the host state now holds exactly that plan, with the spaces around “Write the tests” trimmed. Change it and press Run my input (Ctrl+Enter) again.',
        },
      ],
    },
    prepare: {
      caption: '`prepare_messages` copies the history and attaches the current plan to the copy’s first message only.',
      inputLabel: 'The host’s stored plan, state.items: checked by the same rules before it is stored',
      tries: [
        {
          show: { scenario: 'pending', breakpoints: ['prepared[0].content ='], go: ['debug', 'step-over'] },
          text: 'Line {line:prepared[0].content =} has just run in {scenario:prepare/pending}: the first message of prepared now carries the plan, its changed text marked, while messages in the host state is unchanged and the tool id run_1 is the same.',
        },
        {
          show: { scenario: 'pending', breakpoints: ['let plan = format_todos'], go: ['debug', 'step-into'] },
          text: 'Paused inside `format_todos`, called from line {line:let plan = format_todos}. Press Step over (F10) a few times and watch lines grow by one `{id} [{status}] {content}` line per item; click `prepare_messages` in the call stack to see the caller’s locals.',
        },
        {
          show: { scenario: 'empty', breakpoints: ['if items.is_empty()'], go: ['debug', 'step-over'] },
          text: 'In {scenario:prepare/empty} the plan is empty, so after line {line:if items.is_empty()} `format_todos` is about to return the placeholder. Press Step over (F10) to see it returned.',
        },
        {
          show: { scenario: 'updated', breakpoints: [], go: ['run'] },
          text: '{scenario:prepare/updated} has run to the end. Read the plan in the output next to the tool_result in the host state: the plan claims “Run and check” is completed, the tool result says the user declined. The plan is a claim, the tool result is the evidence.',
        },
        {
          show: { scenario: 'pending', breakpoints: [], input: "[{'id': 'a', 'content': 'write tests', 'status': 'pending'}]", go: ['run'] },
          text: 'Under “Setup and call entry” the host now has another plan, written in Python style, `[{\'id\': \'a\', \'content\': \'write tests\', \'status\': \'pending\'}]`, and it has run: the copy’s first message carries exactly that plan. Write your own and press Run my input (Ctrl+Enter).',
        },
      ],
    },
  },
};

export default words;
