// The lesson page's own words in English: its title, prose and notices, added to the figures' words (text-en.js).
// embed.js never loads this file, so a copied figure folder (./build.sh dist) leaves it out.
// @ts-check
import figureWords from './text-en.js';

/** @typedef {typeof words} LessonWords the lesson page's words; lesson-zh.js has the same keys */

const words = {
  ...figureWords,
  title: 'Where the plan lives: a coding agent’s TodoWrite tool',
  switchLabel: '中文',
  loading: 'Loading the WebAssembly module…',
  wasmFailed: (/** @type {string} */ detail) =>
    `The WebAssembly module could not be loaded, so the debuggers on this page cannot run. Use a current browser with WebAssembly enabled; if you built the page yourself, run ./build.sh build first. Details: ${detail}`,
  // `value` is a node (the value, isolated in a <bdi>), so the sentence is a list of parts.
  linkProblem: (/** @type {string} */ name, /** @type {Node} */ value) => ['The link’s ', name, '=', value, ' was not understood and is ignored.'],
  linkMore: (/** @type {number} */ count) => (count === 1 ? 'The link holds 1 more value that was not understood; it is ignored too.' : `The link holds ${count} more values that were not understood; they are ignored too.`),
  /** @type {([string] | [string, string | string[]])[]} */
  prose: [
    ['h1', 'Where the plan lives: a coding agent’s TodoWrite tool'],
    [
      'p',
      'A coding agent is a model plus a host loop: the model decides what to do next, the host runs the tools for it and hands back the results. On a long task the model loses its place: a step gets done twice, another is skipped, a third is taken as finished when it never ran. A common remedy is a plan tool, `todo_write`, with which the model writes its plan down and leaves it with the host.',
    ],
    [
      'p',
      'This page is about the host’s side of that plan. The code is real Rust: each of the four figures below is a step debugger replaying every step this code took when it ran, compiled to WebAssembly, in your browser.',
    ],
    ['h2', 'Using the debuggers'],
    [
      'p',
      'Pick a scenario above a figure. Debug runs from the start to the first breakpoint, or to the end if there is none; Step into walks from the first line one step at a time; the timeline goes to any step. Click a line number to set or clear a breakpoint. Only lines where a statement runs take one, and breakpoints also show as ticks on the timeline.',
    ],
    [
      'p',
      'Beside the code, ▶ points at the line about to run and ▷ marks the line the current function just ran. Next to it are the locals, the call stack, the host state and the output; values that differ from the previous step carry a mark: + for new, ~ for changed, − for removed. The keys work while the focus is inside a figure:',
    ],
    ['keys'],
    [
      'p',
      'Under each figure, “Setup and call entry” opens to show the data the scenario passes in and the entry code that sets it up, calls the function and prints the outcome. You can also rewrite the input there and run or debug the function on your own data; text that cannot be read is refused, with the error next to the editor. The address bar keeps each figure’s scenario, breakpoints and step (but not your own input), so a copied link opens the page exactly where you are.',
    ],
    ['h2', 'What a plan looks like'],
    [
      'p',
      'A plan is a list of items, each with three string fields: `id`, `content` (the thing to do) and `status`. The status is one of `pending`, `in_progress` and `completed`, spelled exactly so, lower case. The host keeps just one thing: the current plan, `state.items`.',
    ],
    [
      'p',
      'Each call to `todo_write` submits the whole list, never a change like “mark item 2 done”. Because the whole list comes every time, the host can always answer one plain question: what is the plan right now?',
    ],
    ['h2', 'First, check the whole list'],
    [
      'p',
      'What the model sends is untrusted input. `validate_todos` cannot see the host state; it reads the submitted list, checks it item by item and stops at the first problem with an error code. The message names the item’s position and id, so the model knows what to fix on its next call. The checks run in this order:',
    ],
    [
      'ol',
      [
        'The input must be a list of at most 20 items.',
        'Each item must be an object whose keys are exactly `id`, `content` and `status`, all with string values.',
        'The `id`, trimmed of surrounding white space, must not be empty, must be at most 32 characters, and must differ from every earlier item’s `id`.',
        'The trimmed `content` must not be empty and must be at most 150 characters. Lengths count characters, not bytes, so a 150-character Chinese content is fine.',
        'The `status` must be one of the three.',
        'The item’s `id` is recorded and the `in_progress` items so far are counted: more than one is an error.',
        'Only then is the trimmed item appended to the new list.',
      ],
    ],
    ['p', 'The new list is built fresh, so later changes to the input cannot reach it.'],
    ['figure', 'validate'],
    ['h2', 'Then commit it in one assignment'],
    [
      'p',
      'Writing comes only after checking. `write_todos` first calls `validate_todos`; the `?` at the end of that line returns any error at once, as it is, and no later line runs. Only with a complete new list in hand does it render the plan and replace the old one in a single assignment, `state.items = replacement`.',
    ],
    [
      'p',
      'So there is never a half-updated plan: a rejected update leaves the old plan exactly as it was. On the other side, an empty list is a valid commit that clears the plan, and an item left out of the list disappears from the plan, because the whole list is replaced. Writing the plan runs none of its items.',
    ],
    ['figure', 'write'],
    ['h2', 'How the plan gets back to the model'],
    [
      'p',
      'Keeping the plan is half the job; the model also has to see it on its next call. The obvious way is to append a reminder to the history each time, but reminders then pile up and old plans crowd the history next to the new one.',
    ],
    [
      'p',
      '`prepare_messages` does it differently. Before each model call it copies the whole history and, in the copy only, appends to the first user message a blank line, a header line and the rendered plan. The header tells the model that this is the current plan provided by the host and that its statuses are claims to check against the tool results.',
    ],
    [
      'p',
      'The stored history is never edited, so preparing twice never yields two plans, and every `tool_use` and `tool_result` block keeps its id, so the model can still match each result to its call. If the first message is not the user’s text, the function returns a clear error, `no_user_text`, instead of panicking on an index.',
    ],
    ['figure', 'prepare'],
    ['h2', 'A status is a claim, not evidence'],
    [
      'p',
      'Marking every item `completed` runs nothing. In Figure 2’s {scenario:write/claim} scenario the write succeeds and the plan says all is done, yet the last line of the output says plainly that writing the plan ran none of its items.',
    ],
    [
      'p',
      'Figure 3’s {scenario:prepare/updated} scenario puts the contradiction side by side: the plan says “Run and check” is completed, while the tool result in the same history says “Not run: the user declined.” The contradiction is there on purpose. Whether a program ran and what it printed is recorded only in the tool results; a status in the plan is what the model says. The host can make sure the plan is well formed, but it cannot treat the plan as proof that anything happened.',
    ],
    ['h2', 'The plan inside a whole agent run'],
    [
      'p',
      'The three functions only earn their keep inside a loop. The last figure replays one whole run: `run_loop` calls a model, and for each tool the model asks for, `execute_with_plan` applies the host’s rules and runs it. No real model is called: a scripted stand-in answers, reads the tool results it gets, and branches on them. Everything else is the same compiled code as above, which Step into reaches: the plan is written by `write_todos`, checked by `validate_todos`, and attached to each request by `prepare_messages`.',
    ],
    [
      'ol',
      [
        'Visible progress has a price. The plan changes only when the model itself calls `todo_write`, and each such call is one more model call. In {scenario:loop/allow}, 4 of the 8 calls do nothing but update the plan.',
        'Permission belongs to the host, not to the plan. `run_main` needs the user’s yes every time; in {scenario:loop/deny} the user says no, and in {scenario:loop/maintenance} a host rule blocks the run before anyone is asked. A `completed` item grants nothing.',
        'The budget wins. In {scenario:loop/budget} the loop stops after 4 calls with `call_limit`, with items still open, and nothing marks them done to look finished.',
        'A status is a claim and the tool results are the evidence. In {scenario:loop/skip} the answer reports 42 while “Read the expected output” is still pending; in {scenario:loop/claim} every item says completed and nothing was read or run. The last pane puts each claim beside its evidence.',
      ],
    ],
    [
      'p',
      'Besides line breakpoints, this debugger can pause on what the host decides: a plan written or refused, the user asked, a call refused or blocked, the reminder added, the loop stopped. Tick them above the timeline; the timeline marks every such step, and Continue goes to the next one you ticked.',
    ],
    ['figure', 'loop'],
    ['h2', 'Where this comes from, and what is ours'],
    [
      'p',
      'The idea comes from the open course learn-claude-code, in its chapters on TodoWrite: at most 20 items, a single item in progress, the whole list replaced, and in one chapter a reminder after 3 model rounds without a plan update. Coding agents in production use a similar schema (`content`, `status`, plus a present-tense `activeForm` label). The `id`, `content` and `status` rules on this page, with their limits and their order, are this lesson’s own contract.',
    ],
  ],
};

export default words;
