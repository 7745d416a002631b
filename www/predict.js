// "Predict, then reveal": the switch, the question the debugger stops at before a host decision or a result, the reveal and the tally.
// @ts-check
//
// Rust derived every question from the trace (src/host/predict.rs): where it is asked, its answers, which one is
// right, and why. Here the reducer's moves are held at a question until it is answered (gate), and the panel shows it.
// Answers are kept per trace, so a question answered once is never asked again, stepping back and forth, and
// counts once in the tally.
import { piece, setAttribute } from './piece.js';
import { el, hidden } from './render.js';

/** @typedef {import('./pkg/todo_trace.js').Trace} Trace */
/** @typedef {import('./pkg/todo_trace.js').Question} Question */
/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {import('./state.js').State} State */
/** @typedef {import('./state.js').Action} Action */
/** @typedef {ReadonlyMap<Trace, ReadonlyMap<number, number>>} Answers per trace: question index → the choice made */
/** @typedef {{trace: Trace, question: number, target: number}} Asking the question shown, and where the move it held was going */

/** @type {ReadonlyMap<number, number>} */
const NONE = new Map();

/** The answers given in one trace. @param {Answers} answers @param {Trace} trace */
export const answersFor = (answers, trace) => answers.get(trace) ?? NONE;

/** The answers with one more. @param {Answers} answers @param {Trace} trace @param {number} question @param {number} choice @returns {Answers} */
export function withAnswer(answers, trace, question, choice) {
  const next = new Map(answers);
  next.set(trace, new Map(answersFor(answers, trace)).set(question, choice));
  return next;
}

/**
 * Where a move from `from` to `to` ends with Predict `on`: a forward move that would show the step of a question not
 * answered yet stops on the step before it and asks it; anything else goes where it was going.
 * @param {boolean} on @param {Trace} trace @param {ReadonlyMap<number, number>} answered @param {number} from @param {number} to
 * @returns {{pos: number, asking: Asking | null}}
 */
export function gate(on, trace, answered, from, to) {
  if (!on || to <= from) return { pos: to, asking: null };
  const questions = trace.questions ?? [];
  const i = questions.findIndex((q, i) => q.step > from && q.step <= to && !answered.has(i));
  if (i < 0) return { pos: to, asking: null };
  return { pos: questions[i].step - 1, asking: { trace, question: i, target: to } };
}

/** Whether two askings ask the same question on the way to the same place. @param {Asking | null} a @param {Asking | null} b */
export const sameAsking = (a, b) => a === b || (a !== null && b !== null && a.trace === b.trace && a.question === b.question && a.target === b.target);

/** How many questions of a trace were answered, and how many of those rightly. @param {Trace} trace @param {ReadonlyMap<number, number>} answered */
export function tally(trace, answered) {
  const questions = trace.questions ?? [];
  let right = 0;
  for (const [i, choice] of answered) if (questions[i]?.answer === choice) right++;
  return { right, answered: answered.size };
}

/**
 * The question the panel shows: the one being asked, else the last one answered in the shown trace (with its reveal).
 * @param {State} s @param {Trace} trace
 * @returns {{question: Question, index: number, chosen: number | null} | null}
 */
function shownQuestion(s, trace) {
  if (!s.predict) return null;
  const asking = s.asking?.trace === trace ? s.asking.question : null;
  const index = asking ?? (s.revealed?.trace === trace ? s.revealed.question : null);
  const question = index === null ? undefined : trace.questions?.[index];
  if (index === null || !question) return null;
  return { question, index, chosen: asking === null ? answersFor(s.answers, trace).get(index) ?? null : null };
}

/**
 * Builds the Predict switch and the panel. `shown(state)` is the trace the debugger shows. Returns the switch, the
 * panel, their pieces, and `focusQuestion()`, which brings the question asked into view and gives it the focus.
 * @param {{id: string, t: Words, dispatch: (action: Action) => void, shown: (state: State) => Trace}} options
 */
export function createPredict({ id, t, dispatch, shown }) {
  const w = t.predict;
  const box = el('input', { type: 'checkbox', 'data-control': 'predict', 'aria-describedby': `${id}-predict-hint`, onchange: () => dispatch({ type: 'predict', on: box.checked }) });
  const toggle = el('div', { class: 'predict-switch' }, el('label', {}, box, ` ${w.label}`), el('span', { class: 'predict-hint', id: `${id}-predict-hint`, text: w.hint }));

  const promptId = `${id}-predict-prompt`;
  const prompt = el('p', { class: 'prompt', id: promptId });
  const answers = el('div', { class: 'answers' });
  const group = el('div', { class: 'question', role: 'group', tabindex: '-1', 'aria-labelledby': promptId }, prompt, answers);
  const reveal = el('p', { class: 'reveal', role: 'status' });
  const score = el('p', { class: 'score', 'data-score': '' });
  const panel = el('section', { class: 'predict', 'data-predict': '', 'aria-label': w.label, hidden: '' }, reveal, group, score);

  /** @type {{question: Question, buttons: HTMLButtonElement[]} | null} */
  let drawn = null;

  /** Draws a question's buttons once; a later draw of the same question only marks them. @param {Question} question @param {number} index */
  function buttonsFor(question, index) {
    if (drawn?.question === question) return drawn.buttons;
    prompt.textContent = question.prompt;
    group.dataset.question = String(index);
    group.dataset.kind = question.kind;
    const buttons = question.choices.map((choice, i) =>
      el('button', { type: 'button', 'data-answer': choice.key, onclick: () => dispatch({ type: 'answer', choice: i }) }, el('span', { text: choice.label })));
    answers.replaceChildren(...buttons);
    drawn = { question, buttons };
    return buttons;
  }

  const pieces = [
    piece((s) => [s.predict], (on) => {
      box.checked = on;
      panel.hidden = !on;
    }),
    piece((s) => {
      const trace = shown(s);
      const q = shownQuestion(s, trace);
      return [q?.question ?? null, q?.index ?? -1, q?.chosen ?? null];
    }, (question, index, chosen) => {
      group.hidden = question === null;
      if (question === null) {
        drawn = null;
        answers.replaceChildren();
        return;
      }
      const asking = chosen === null;
      group.dataset.state = asking ? 'asking' : 'revealed';
      buttonsFor(question, index).forEach((button, i) => {
        setAttribute(button, 'aria-disabled', String(!asking));
        const right = !asking && i === question.answer;
        const mine = !asking && i === chosen;
        if (right) button.dataset.right = '';
        else delete button.dataset.right;
        if (mine) button.dataset.chosen = '';
        else delete button.dataset.chosen;
        // Marks told by words, not colour alone.
        button.querySelector('.visually-hidden')?.remove();
        const note = [mine ? w.yours : '', right ? w.correct : ''].filter(Boolean).join(' ');
        if (note) button.append(hidden(` ${note}`));
      });
    }),
    // The reveal is announced once, when the answer is given (a live region); the score stays in view.
    piece((s) => {
      const trace = shown(s);
      const index = s.predict && s.revealed?.trace === trace ? s.revealed.question : -1;
      const answered = answersFor(s.answers, trace);
      return [trace, index, answered];
    }, (trace, index, answered) => {
      const question = trace.questions?.[index];
      const chosen = answered.get(index);
      const { right, answered: count } = tally(trace, answered);
      score.textContent = count === 0 ? w.none : w.score(right, count);
      score.dataset.right = String(right);
      score.dataset.answered = String(count);
      if (!question || chosen === undefined) {
        reveal.textContent = count === 0 && (trace.questions?.length ?? 0) === 0 ? w.nothing : '';
        delete reveal.dataset.reveal;
        return;
      }
      const rightLabel = question.choices[question.answer].label;
      const verdict = chosen === question.answer ? w.right(rightLabel) : w.wrong(rightLabel);
      reveal.dataset.reveal = chosen === question.answer ? 'right' : 'wrong';
      reveal.textContent = `${verdict} ${question.why} ${w.score(right, count)}`;
    }),
  ];

  return {
    toggle,
    panel,
    pieces,
    /** The question asked into view, and the focus on it (a screen reader then reads its prompt). */
    focusQuestion() {
      group.focus({ preventScroll: true });
      requestAnimationFrame(() => panel.scrollIntoView({ block: 'nearest' }));
    },
  };
}
