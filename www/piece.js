// A piece of a figure's view: what it reads of the state (a selector) and how it draws that; it redraws only when what it read changed.
// @ts-check

/** @typedef {import('./state.js').State} State */

/**
 * A piece of the view. `select(state)` lists the values the piece shows, each read from the state or derived from it;
 * `draw(...values)` is given those values and nothing else, so a piece cannot show anything its selector did not
 * name. It draws at the first state, then whenever one of the values is not `===` the one it last drew. A selector
 * should give values that stay the same object while they mean the same (the state's own fields, a trace, an index,
 * a number or string), not a new object each time, or the piece redraws at every state.
 * @template {readonly unknown[]} T
 * @param {(state: State) => [...T]} select @param {(...values: T) => void} draw
 * @returns {(state: State) => void} brings the piece to a state
 */
export function piece(select, draw) {
  /** @type {T | null} */
  let drawn = null;
  return (state) => {
    const values = select(state);
    if (drawn !== null && values.every((value, i) => value === /** @type {T} */ (drawn)[i])) return;
    drawn = values;
    draw(...values);
  };
}

/** Sets an attribute only if it differs, so a redraw that changes nothing touches nothing. */
export function setAttribute(/** @type {Element} */ node, /** @type {string} */ name, /** @type {string} */ value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}
