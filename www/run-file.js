// The loop figure's run files: the "Open a run…" control, a file dropped onto the figure, where the shown run came from, and why a file was refused or its replay left the recording.
// @ts-check
//
// Rust decides every fact shown here (the origin worded in the page's language, the coded refusal, the divergence);
// this file only reads them from the trace shown and lays them out, as text.
import { piece } from './piece.js';
import { el } from './render.js';
import { shownTrace } from './state.js';

/** @typedef {import('./text-en.js').Words} Words */
/** @typedef {import('./state.js').State} State */
/** @typedef {import('./state.js').Action} Action */

/**
 * Builds the run part of the loop figure. `onFile(file)` opens a file the reader chose or dropped; `dispatch` takes
 * the "Back to the scenarios" action. `listen(root)` makes the figure's root accept a dropped file. Returns the part,
 * its pieces and `listen`.
 * @param {{id: string, t: Words, onFile: (file: File) => void, dispatch: (action: Action) => void}} options
 */
export function createRunPart({ id, t, onFile, dispatch }) {
  const noteId = `${id}-run-note`;
  const input = /** @type {HTMLInputElement} */ (el('input', {
    type: 'file',
    accept: '.json,application/json',
    'data-control': 'open-run',
    'aria-describedby': noteId,
    onchange: () => {
      const file = input.files?.[0];
      // Cleared, so that choosing the same file again (after it was edited) opens it again.
      input.value = '';
      if (file) onFile(file);
    },
  }));
  const close = el('button', { type: 'button', 'data-action': 'close-run', title: t.run.close[1], text: t.run.close[0], onclick: () => dispatch({ type: 'reset-own' }) });
  const origin = el('p', { class: 'origin', 'data-origin': '' });
  const refusal = el('p', { class: 'run-refused', role: 'alert' });
  const divergence = el('p', { class: 'run-diverged', role: 'alert' });
  const part = el('div', { class: 'run-file' },
    el('label', { class: 'open-run' }, el('span', { class: 'open-run-label', text: t.run.open }), ' ', input),
    close,
    el('p', { class: 'note', id: noteId, text: t.run.note }),
    origin, refusal, divergence);

  const pieces = [
    piece((s) => [s.showingOwn && s.own?.run !== undefined], (showingRun) => {
      close.hidden = !showingRun;
    }),
    piece((s) => [shownTrace(s)], (trace) => {
      const replay = trace.replay;
      origin.hidden = !replay;
      origin.textContent = replay ? t.run.origin(replay.origin) : '';
      origin.setAttribute('data-origin', replay ? replay.source.kind : '');
      // A run file refused before it was replayed: its coded error, worded by the module in the page's language.
      const error = !trace.ran ? trace.result.error : undefined;
      refusal.hidden = !error;
      refusal.textContent = error ? t.run.refused(error.code, error.message) : '';
      refusal.setAttribute('data-code', error?.code ?? '');
      const diverged = replay?.diverged;
      divergence.hidden = !diverged;
      divergence.textContent = diverged ? t.run.diverged(diverged.message) : '';
      divergence.setAttribute('data-diverged', diverged ? String(diverged.call) : '');
    }),
  ];

  /** Accepts a file dragged onto `root`: only a drag that carries files is taken, so text dragged inside stays as it was. */
  function listen(/** @type {HTMLElement} */ root) {
    const carriesFiles = (/** @type {DragEvent} */ event) => event.dataTransfer?.types.includes('Files') ?? false;
    root.addEventListener('dragover', (event) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
      root.classList.add('dropping');
    });
    root.addEventListener('dragleave', (event) => {
      if (event.relatedTarget === null || !root.contains(/** @type {Node} */ (event.relatedTarget))) root.classList.remove('dropping');
    });
    root.addEventListener('drop', (event) => {
      root.classList.remove('dropping');
      const file = event.dataTransfer?.files[0];
      if (!file) return;
      event.preventDefault();
      onFile(file);
    });
  }

  return { part, pieces, listen };
}
