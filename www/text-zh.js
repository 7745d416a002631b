// Every reader-visible word of a figure in Chinese: its caption, "things to try" and the debugger's labels. The
// figure element (embed.js) loads this file alone; the lesson page adds its own prose (lesson-zh.js).
// @ts-check
//
// One file per language, so a reader downloads only the language they read (text-zh.js and
// text-en.js have the same keys).
//
// Inline markup in prose strings (here and in lesson-*.js): `code`, {line:SNIPPET} (the number of the one listing
// line that contains SNIPPET, so the prose cannot drift from the compiled source) and {scenario:FIGURE/ID}
// (that scenario's label in the page's language).

/** @type {import('./text-en.js').Words} */
export default {
  pageFailed: (detail) => `页面出错了，调试器无法显示。详情：${detail}`,
  /** A value of the figure's attributes or of the link that it cannot use: it opens without it. */
  problem: (/** @type {string} */ name, /** @type {Node} */ value) => [name, '=', value, ' 无法识别，已忽略。'],
  moreProblems: (/** @type {number} */ count) => `另有 ${count} 个值无法识别，也已忽略。`,
  figure: (n) => `图 ${n}`,
  scenario: '场景',
  controlsLabel: '调试控制',
  // [label, what it does]; the shortcut is added to the tooltip.
  controls: {
    run: ['运行', '从头运行到结束，不理会断点'],
    debug: ['调试', '从头运行到第一个断点；没有断点就运行到结束'],
    continue: ['继续', '运行到下一个断点；没有就运行到结束'],
    'step-over': ['单步跳过', '执行一步，不进入其中调用的函数'],
    'step-into': ['单步进入', '执行一步；遇到函数调用就进入它'],
    'step-out': ['单步跳出', '运行到当前函数返回为止'],
    'step-back': ['后退一步', '回到上一步'],
    restart: ['重新开始', '回到开头，一步也没有执行'],
  },
  keysExtra: [
    ['F9', '在获得焦点的代码行上设置或取消断点（Enter、空格同样可以）'],
    ['↑ ↓ Home End', '在代码行之间移动焦点'],
    ['Ctrl+Enter', '在“准备与调用入口”的编辑框里：运行你的输入'],
  ],
  timeline: '时间轴',
  position: {
    idle: (n) => `未开始（共 ${n} 步）`,
    at: (k, n) => `第 ${k} 步，共 ${n} 步`,
    end: (n) => `已结束（共 ${n} 步）`,
  },
  status: {
    idle: '就绪：按“调试”或“单步进入”开始。',
    line: (s) => `暂停在第 ${s.line} 行（${s.symbol}），第 ${s.step} 步，共 ${s.total} 步。`,
    return: (s) => `暂停：${s.symbol} 已返回，最后执行的是第 ${s.line} 行（第 ${s.step} 步，共 ${s.total} 步）。`,
    error: (s) =>
      `暂停：${s.symbol} 在第 ${s.line} 行返回错误 ${s.error.code}（第 ${s.step} 步，共 ${s.total} 步）：${s.error.message}`,
    done: '完成：函数已返回，调用入口已打印结果。',
    failed: (s) => `错误 ${s.error.code}：${s.error.message}`,
    truncated: '错误：执行超过步数上限，记录在这里截断。',
  },
  panes: {
    locals: '局部变量', stack: '调用栈', state: '宿主状态', output: '输出',
    conversation: '对话（保存的历史）', plan: '宿主的计划', request: '模型收到的请求', evidence: '声明与证据',
  },
  loop: {
    breakOn: '在宿主做出这些决定时暂停：',
    /** @type {Record<import('./pkg/todo_trace.js').HostEvent, string>} */
    events: {
      'plan-written': '写入计划',
      'plan-refused': '拒绝计划',
      ask: '询问用户',
      refused: '拒绝或挡下一次调用',
      reminder: '附上提醒',
      'call-limit': '因调用次数用完而停止',
      answered: '因模型回答而停止',
    },
    eventMark: '宿主的决定',
    user: '用户',
    assistant: '助手',
    reminder: '宿主附上的提醒',
    call: (/** @type {string} */ id) => `工具调用 ${id}`,
    result: (/** @type {string} */ id) => `${id} 的结果`,
    errorResult: (/** @type {string} */ id) => `${id} 的错误结果`,
    recordedResult: (/** @type {string} */ id) => `${id} 的结果，录制的（页面里不运行程序）`,
    noHistory: '（循环存下问题之前，历史是空的。）',
    noPlan: '（还没有计划。）',
    noUpdate: '计划还没有更新过。',
    accepted: (/** @type {number} */ step) => `上一次更新被接受（第 ${step} 步）；改变的项已标出。`,
    refusedUpdate: (/** @type {number} */ step) => `上一次更新被拒绝（第 ${step} 步）：上面的计划没有改变。`,
    status: { pending: '待办', in_progress: '进行中', completed: '已完成' },
    noRequest: '（还没有调用模型。）',
    requestOf: (/** @type {number} */ call, /** @type {number} */ count, /** @type {number} */ step) => `第 ${call} 次模型调用：${count} 条准备好的消息（记录于第 ${step} 步之前）。`,
    differs: '与保存的历史不同：带着计划',
    stored: '其余每条消息都是保存的那条，原样未改；保存的历史里从来没有计划。',
    tools: (/** @type {string} */ names) => `随请求发送的工具定义：${names}`,
    atTheEnd: '（运行结束后显示。）',
    stopped: (/** @type {string} */ stop, /** @type {number} */ calls) => `停止：${stop}，共 ${calls} 次模型调用。`,
    answer: '最后的回答',
    item: '计划项',
    claim: '状态（声明）',
    evidence: '历史里的证据',
    backed: (/** @type {string} */ tool, /** @type {string} */ path, /** @type {string} */ id) => `有证据：${tool}${path ? ` ${path}` : ''} 成功（${id}）`,
    unbacked: (/** @type {string} */ tool, /** @type {string} */ path) => `历史里没有成功的 ${tool}${path ? ` ${path}` : ''}`,
    gap: '只有声明，没有证据',
  },
  notRunning: '（没有正在执行的函数）',
  noOutput: '（还没有输出：调用入口在函数返回之后才打印。）',
  returned: '返回值',
  count: (n) => `${n} 项`,
  framePicked: (symbol, line) => `调用者 ${symbol} 的局部变量，停在它的第 ${line} 行时的样子；再走一步就回到当前调用。`,
  hostEffect: '标记是相对调用之前的宿主状态：整次调用改了什么。',
  errored: '返回错误',
  change: { new: '新绑定', changed: '已改变', removed: '已删除' },
  moved: '已移走',
  legend: { next: '即将执行的行', ran: '这个函数刚执行完的行', bp: '断点' },
  breakpoint: (line) => `第 ${line} 行的断点`,
  noStep: '这一行没有可以停下的语句，不能设断点',
  codeLabel: (file, symbol) => `${symbol}（${file}）`,
  setup: {
    summary: '准备与调用入口',
    input: '这个场景的输入数据（JSON）',
    ownInput: '这次运行的输入数据（JSON）：你写的部分，其余取自默认场景',
    entry: (entry, file) => `调用入口 ${entry}（${file}）：准备数据，调用函数，打印结果`,
  },
  // The "try your own input" editor in the setup part (editor.js).
  input: {
    option: '你的输入',
    hint: '这张图现在运行的是你在“准备与调用入口”里写的输入；按“恢复场景数据”回到场景。',
    note: '可以写 JSON，也可以写 Python 的列表字面量（单引号或双引号字符串，True、False、None）。文本只会被解析，不会被执行；最长 64 KiB。',
    run: ['运行我的输入', '用上面的文本调用函数，运行到结束'],
    debug: ['调试我的输入', '用上面的文本调用函数，停在第一个断点；没有断点就运行到结束'],
    reset: ['恢复场景数据', '放回当前场景的数据，图回到这个场景'],
    refused: '输入被拒绝',
    goTo: (line, column) => `把光标移到第 ${line} 行第 ${column} 列`,
    notRun: '（没有运行：输入被拒绝了。）',
    exception: (detail) => `模块内部出错，这次运行没有完成；其他图不受影响。详情：${detail}`,
  },
  tries: '试一试',
  showMe: ['演示', '按这一条所说设置好这张图：场景、断点和停的那一步'],
  quote: (label) => `“${label}”`,
  colon: '：',
  figures: {
    loop: {
      caption: '`run_loop` 与 `execute_with_plan`：从问题到停止的一次完整运行，里面有宿主的规则，也有计划函数。',
      inputLabel: '这个图只运行它的场景',
      tries: [
        {
          text: '在{scenario:loop/allow}里勾选“询问用户”，再按“调试”：运行停在宿主刚刚询问之后。对话里运行的结果标着“录制的”，因为页面里不运行程序。',
          show: { scenario: 'allow', breakpoints: ['if tools.approval.decide(lang) == Decision::Deny'], go: ['debug', 'step-over'] },
        },
        {
          text: '在第 {line:let reply = model.reply(&request)?;} 行设断点并按“调试”：请求窗格显示模型收到的内容。只有第一条消息与保存的历史不同：它带着计划。',
          show: { scenario: 'allow', breakpoints: ['let reply = model.reply(&request)?;'], go: ['debug'] },
        },
        {
          text: '在第 {line:execute_with_plan(call, &mut state, tools)} 行按 F11 进入 `execute_with_plan`，再在第 {line:write_todos(state, &call.input["items"], lang)} 行按 F11 进入 `write_todos`；Shift+F11 一层层退出来。',
          show: { scenario: 'allow', breakpoints: ['execute_with_plan(call, &mut state, tools)'], go: ['debug', 'step-into'] },
        },
        {
          text: '在{scenario:loop/rejected}里勾选“拒绝计划”并按“调试”：计划窗格说这次更新被拒绝，计划没有改变。继续到下一次写入计划，就能看到改正后的计划。',
          show: { scenario: 'rejected', breakpoints: ['call.refuse("plan_refused"'], go: ['debug', 'step-over'] },
        },
        {
          text: '在{scenario:loop/nag}里勾选“附上提醒”：连续第三轮没有更新计划时，那一轮的工具结果后面多了一条提醒。',
          show: { scenario: 'nag', breakpoints: ['results.push(Block::reminder());'], go: ['debug', 'step-over'] },
        },
        {
          text: '把{scenario:loop/budget}和{scenario:loop/claim}都运行到底，比较它们的最后一个窗格：一个停下时还有活没干完，并照实说出；另一个声称全部完成，却没有任何证据。',
          show: { scenario: 'budget', breakpoints: [], go: ['run'] },
        },
      ],
    },
    validate: {
      caption: '`validate_todos` 逐项检查提交的清单：每一项都通过，才有新清单。',
      inputLabel: '提交的清单 items：模型交给 validate_todos 的参数',
      tries: [
        {
          show: { scenario: 'valid', breakpoints: ['new_list.push('], go: ['debug'] },
          text: '这是{scenario:validate/valid}，停在追加的第 {line:new_list.push(} 行：第一项已通过全部检查，第二项还没检查，new_list 仍是空的。按“继续”（F8）：new_list 有了第一项，运行又停在这里，这回是第二项。',
        },
        {
          show: { scenario: 'duplicate', breakpoints: ['new_list.push(', 'TodoError::DuplicateId'], go: ['debug', 'continue'] },
          text: '在{scenario:validate/duplicate}里，追加行第 {line:new_list.push(} 行的断点只命中了一次，是第一项。第二项的 id 与第一项相同，被第 {line:if seen_ids.contains} 行的检查拦下：它正要从第 {line:TodoError::DuplicateId} 行返回 duplicate_id，new_list 里只有第一项。按“单步跳过”（F10）：validate_todos 返回这个错误。',
        },
        {
          show: { scenario: 'active', breakpoints: ['if active > 1'], go: ['debug', 'continue'] },
          text: '这是{scenario:validate/active}，第二次停在第 {line:if active > 1} 行：seen_ids 已经记下第二项的 id，active 是 2。按“单步跳过”（F10）：下一行就是返回 too_many_active，这一项永远不会被追加。',
        },
        {
          show: { scenario: 'clear', breakpoints: ['for (index, item)'], go: ['debug'] },
          text: '这是{scenario:validate/clear}，清单是空的，停在循环的第 {line:for (index, item)} 行。按“单步进入”（F11）：下一行直接是第 {line:Ok(new_list)} 行，循环体一次也没执行。',
        },
        {
          show: {
            scenario: 'valid',
            breakpoints: [],
            input: '[\n  {"id": "1", "content": "读取源码", "status": "completed"},\n  {"id": " 1 ", "content": "运行并核对", "status": "in_progress"}\n]',
            go: ['run', 'step-back'],
          },
          text: '“准备与调用入口”里第二项的 id 已改成 `" 1 "`（前后带空格），你的输入已经运行：去掉空白后它和第一项相同，validate_todos 返回了 duplicate_id。把它改成 `" 2 "` 再按“运行我的输入”（Ctrl+Enter）：清单通过，id 的空白被去掉。',
        },
      ],
    },
    write: {
      caption: '`write_todos` 先校验，再渲染，最后用一次赋值替换宿主的计划。',
      inputLabel: '提交的清单 items：宿主状态仍从默认场景的旧计划开始',
      tries: [
        {
          show: { scenario: 'replace', breakpoints: ['state.items = replacement'], go: ['debug'] },
          text: '这是{scenario:write/replace}，停在赋值的第 {line:state.items = replacement} 行：局部变量 replacement 已是新计划，宿主状态还是旧的。按“单步跳过”（F10）执行这一行：宿主状态换成新计划，replacement 显示为已移走。',
        },
        {
          show: { scenario: 'replace', breakpoints: [], go: ['step-into'] },
          text: '停在第 {line:validate_todos(items)?} 行，什么都还没执行。按“单步进入”（F11）：代码换成 `validate_todos`，调用栈里有两层调用；点其中的 `write_todos` 可以看调用者的局部变量。按“单步跳出”（Shift+F11）回到 `write_todos`，replacement 已经绑定。',
        },
        {
          show: { scenario: 'active', breakpoints: [], go: ['run', 'step-back'] },
          text: '在{scenario:write/active}里，错误来自校验：write_todos 从第 {line:validate_todos(items)?} 行把它返回，宿主状态仍是旧计划。把时间轴从头拖到尾：第 {line:state.items = replacement} 行从来没有成为当前行。',
        },
        {
          show: { scenario: 'omit', breakpoints: [], go: ['run'] },
          text: '{scenario:write/omit}已运行到结束：这是合法的提交，宿主状态里第 2 项标为已删除，因为整份清单被一份不含它的清单替换了。选{scenario:write/clear}再按“运行”：计划以同样的方式被清空，这也是合法的提交，不是失败。',
        },
        {
          show: { scenario: 'claim', breakpoints: [], go: ['run'] },
          text: '{scenario:write/claim}已运行到结束：计划里每一项都是 completed，输出的最后一行却说什么也没有运行。',
        },
        {
          show: {
            scenario: 'replace',
            breakpoints: [],
            input: '[\n  {"id": "a", "content": "  写测试  ", "status": "completed"},\n  {"id": "b", "content": "修复错误", "status": "in_progress"},\n  {"id": "c", "content": "再运行一遍", "status": "pending"}\n]',
            go: ['run'],
          },
          text: '“准备与调用入口”里的一份你自己的计划已经运行：三项，其中一项 in_progress。宿主状态换成的正是这份计划，“写测试”前后的空白已去掉。改一改，再按“运行我的输入”（Ctrl+Enter）。',
        },
      ],
    },
    prepare: {
      caption: '`prepare_messages` 复制历史，只在副本的第一条消息末尾附上当前计划。',
      inputLabel: '宿主保管的计划 state.items：存入之前按同样的规则校验',
      tries: [
        {
          show: { scenario: 'pending', breakpoints: ['prepared[0].content ='], go: ['debug', 'step-over'] },
          text: '在{scenario:prepare/pending}里，第 {line:prepared[0].content =} 行刚执行完：prepared 的第一条消息带上了计划，改动的文字有标记；宿主状态里的 messages 没有变，工具 id run_1 也没有变。',
        },
        {
          show: { scenario: 'pending', breakpoints: ['let plan = format_todos'], go: ['debug', 'step-into'] },
          text: '停在 `format_todos` 里面，它由第 {line:let plan = format_todos} 行调用。按几次“单步跳过”（F10），看 lines 每项多出一行 `{id} [{status}] {content}`；点调用栈里的 `prepare_messages` 可以看调用者的局部变量。',
        },
        {
          show: { scenario: 'empty', breakpoints: ['if items.is_empty()'], go: ['debug', 'step-over'] },
          text: '在{scenario:prepare/empty}里计划是空的，所以第 {line:if items.is_empty()} 行之后 `format_todos` 正要返回占位行。按“单步跳过”（F10）看它返回。',
        },
        {
          show: { scenario: 'updated', breakpoints: [], go: ['run'] },
          text: '{scenario:prepare/updated}已运行到结束。把输出里的计划和宿主状态里的 tool_result 放在一起读：计划声称“运行并核对”已完成，工具结果却说用户拒绝了。计划是声明，工具结果才是证据。',
        },
        {
          show: { scenario: 'pending', breakpoints: [], input: "[{'id': 'a', 'content': '写测试', 'status': 'pending'}]", go: ['run'] },
          text: '“准备与调用入口”里宿主换了一份计划，用的是 Python 的写法 `[{\'id\': \'a\', \'content\': \'写测试\', \'status\': \'pending\'}]`，并且已经运行：副本的第一条消息带上的正是这份计划。写一份你自己的，按“运行我的输入”（Ctrl+Enter）。',
        },
      ],
    },
  },
};
