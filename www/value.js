// @ts-check
// An author's JS value read once into plain data, within the input limits, before any of it crosses into the module.
//
// Each property is read exactly once, and the copy is what is checked and sent, so a getter that answers differently
// the second time, or a Proxy whose traps throw or lie, can change nothing after the check. Every read that can run
// the author's code (a getter, a Proxy trap) is inside try: a throw becomes a refusal (`unreadable`), never an
// exception, and it happens here in JS, never inside a Rust frame. The limits are the reader-input limits of
// src/host/input/mod.rs, and a refusal is the Rust type `ValueError`, worded by the module in the page's language.

/** @typedef {import('./pkg/todo_trace.js').ValueError} ValueError */
/** @typedef {import('./pkg/todo_trace.js').NotData} NotData */
/** @typedef {unknown} Plain JSON data: null, a boolean, a finite number, a string, or a list or plain object of these */

/** The most bytes a value may have as compact JSON (src/host/input/mod.rs, MAX_INPUT_BYTES). */
export const MAX_INPUT_BYTES = 64 * 1024;
/** The deepest nesting of lists and objects (src/host/input/mod.rs, MAX_DEPTH). */
export const MAX_DEPTH = 32;
/** The largest count a refusal reports: `usize::MAX` of the wasm32 module. */
const MAX_REPORTED_BYTES = 2 ** 32 - 1;

/** Thrown inside the reader to stop at the first refusal; never leaves this module. */
class Refused {
  /** @param {ValueError} error */
  constructor(error) {
    this.error = error;
  }
}

/**
 * Reads `value` once into plain data: `{data}`, a fresh copy holding only JSON's kinds, or `{refused}`, the first
 * thing over a limit or not JSON data, with where it is (`[0].content`). `limit`: the most bytes of compact JSON, the
 * input limit unless the value is a run file (api.js, MAX_RUN_BYTES).
 * @param {unknown} value @param {number} [limit]
 * @returns {{data: Plain} | {refused: ValueError}}
 */
export function readValue(value, limit = MAX_INPUT_BYTES) {
  const reader = new Reader(limit);
  try {
    return { data: reader.value(value) };
  } catch (thrown) {
    if (thrown instanceof Refused) return { refused: thrown.error };
    // Only a bug of ours (or the engine running out of stack) lands here: refused like an unreadable value.
    return { refused: { kind: 'notData', path: reader.path.join(''), what: 'unreadable' } };
  }
}

class Reader {
  constructor(/** @type {number} */ limit) {
    this.limit = limit;
    /** The length of the compact JSON read so far, in bytes of UTF-8. */
    this.bytes = 0;
    /** @type {string[]} Where the reader is, as `[0]` and `.key` parts. */
    this.path = [];
    /** @type {object[]} The lists and objects the reader is inside, outermost first (a cycle returns to one). */
    this.open = [];
  }

  /** @param {number} bytes */
  add(bytes) {
    this.bytes += bytes;
    if (this.bytes > this.limit) this.tooLarge(this.bytes);
  }

  /**
   * Refuses the value as over the size limit, at least `bytes` long. A count made from a claimed length (an array's
   * `length`, a Proxy's list of keys) can pass what the module's `usize` holds on wasm32; any count over the limit is
   * still true as "at least", so it is capped there rather than making the refusal itself unreadable.
   * @param {number} bytes @returns {never}
   */
  tooLarge(bytes) {
    throw new Refused({ kind: 'tooLarge', bytes: Math.min(bytes, MAX_REPORTED_BYTES) });
  }

  /** @param {NotData} what @returns {never} */
  refuse(what) {
    throw new Refused({ kind: 'notData', path: this.path.join(''), what });
  }

  /** Runs one read of the author's value (a property, a prototype, the keys); a throw becomes `unreadable`. @template T @param {() => T} read @returns {T} */
  read(read) {
    try {
      return read();
    } catch {
      return this.refuse('unreadable');
    }
  }

  /** @param {unknown} value @returns {Plain} */
  value(value) {
    switch (typeof value) {
      case 'boolean':
        this.add(value ? 4 : 5);
        return value;
      case 'number':
        if (!Number.isFinite(value)) this.refuse('notFinite');
        this.add(JSON.stringify(value).length);
        return value;
      case 'string':
        this.add(jsonBytes(value));
        if (LONE_SURROGATE.test(value)) this.refuse('loneSurrogate');
        return value;
      case 'undefined':
        return this.refuse('undefined');
      case 'function':
        return this.refuse('function');
      case 'symbol':
        return this.refuse('symbol');
      case 'bigint':
        return this.refuse('bigInt');
    }
    if (value === null) {
      this.add(4);
      return null;
    }
    const object = /** @type {object} */ (value);
    if (this.open.includes(object)) this.refuse('cycle');
    if (this.open.length === MAX_DEPTH) throw new Refused({ kind: 'tooDeep', path: this.path.join('') });
    this.open.push(object);
    const copy = this.read(() => Array.isArray(object)) ? this.array(object) : this.object(object);
    this.open.pop();
    return copy;
  }

  /** @param {object} array @returns {Plain[]} */
  array(array) {
    const length = this.read(() => Number(/** @type {unknown[]} */ (array).length));
    // Brackets, and each element at least one byte and a comma: refused before reading a huge array.
    if (2 + Math.max(0, 2 * length - 1) + this.bytes > this.limit) this.tooLarge(this.bytes + 2 + Math.max(0, 2 * length - 1));
    this.add(2 + Math.max(0, length - 1));
    /** @type {Plain[]} */
    const copy = [];
    for (let index = 0; index < length; index++) {
      this.path.push(`[${index}]`);
      copy.push(this.value(this.read(() => /** @type {unknown[]} */ (array)[index])));
      this.path.pop();
    }
    return copy;
  }

  /** @param {object} object @returns {{[key: string]: Plain}} */
  object(object) {
    const prototype = this.read(() => Object.getPrototypeOf(object));
    if (prototype !== null && prototype !== Object.prototype) this.refuse('notPlain');
    // Own enumerable string keys, as JSON.stringify reads them: Object.keys makes a fresh array, so a trap cannot change it later.
    const keys = this.read(() => Object.keys(object));
    // Braces, and each entry at least `"":0` and a comma.
    if (this.bytes + 2 + Math.max(0, 5 * keys.length - 1) > this.limit) this.tooLarge(this.bytes + 2 + Math.max(0, 5 * keys.length - 1));
    this.add(2 + Math.max(0, keys.length - 1));
    /** @type {{[key: string]: Plain}} */
    const copy = Object.create(null);
    for (const key of keys) {
      this.add(jsonBytes(key) + 1);
      this.path.push(pathPart(key));
      if (key === '__proto__') this.refuse('protoKey');
      if (LONE_SURROGATE.test(key)) this.refuse('loneSurrogate');
      copy[key] = this.value(this.read(() => /** @type {Record<string, unknown>} */ (object)[key]));
      this.path.pop();
    }
    return copy;
  }
}

/** A UTF-16 surrogate without its other half (matched by code unit: no `u` flag), which UTF-8 cannot hold. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The bytes of `text` as a JSON string, quotes and escapes included, as serde_json writes it. @param {string} text */
function jsonBytes(text) {
  let bytes = 2;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit === 0x22 || unit === 0x5c || unit === 0x08 || unit === 0x0c || unit === 0x0a || unit === 0x0d || unit === 0x09) bytes += 2;
    else if (unit < 0x20) bytes += 6;
    else if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** `.key` for a key that reads as a name, else `["key"]`. @param {string} key */
function pathPart(key) {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}
