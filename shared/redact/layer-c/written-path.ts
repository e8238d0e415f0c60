/**
 * The path (as the redaction counts it, see `child`) of a place in a written event: a copy made
 * by another thread is searched as text (`LineRedactor.redactKnown`), and what is replaced there
 * is counted where the redaction of the event would have counted it.
 */
import { child } from "./policy.js";

/** A container being read: its path, whether an array, and for an object its current member. */
interface Frame {
  path: string;
  array: boolean;
  key: string | undefined;
  /** An object whose next string is a member name. */
  expectKey: boolean;
}

/**
 * The paths of places in one written JSON object (canonical: no blanks): the path of the string
 * that holds the character at `at`, a value's own path (`$.error.message`, `$.argv[*]`), and for a
 * member name the path of the object holding it (where `scrubKey` counts); `$` when `at` is in no
 * string. Places asked in order (a line's replacements) are read on from the string the last one
 * fell in, not from the start again: a line holding a secret 100,000 times took minutes that way.
 */
export class WrittenPaths {
  private json: string | undefined;
  private stack: Frame[] = [];
  /** Where the reading stands: the next character to read. */
  private i = 0;
  /** The string the last place fell in, and its path. */
  private last: { start: number; end: number; path: string } | undefined;

  /** The path of the place `at` of `json`. */
  at(json: string, at: number): string {
    const last = this.last;
    if (json === this.json && last !== undefined && at > last.start && at < last.end) return last.path;
    if (json !== this.json || at < this.i) {
      this.json = json;
      this.stack = [];
      this.i = 0;
      this.last = undefined;
    }
    const stack = this.stack;
    let i = this.i;
    while (i < json.length && i <= at) {
      const c = json.charCodeAt(i);
      const top = stack[stack.length - 1];
      if (c === 34) {
        const end = stringEnd(json, i);
        if (top === undefined) break;
        const isKey = !top.array && top.expectKey;
        if (at > i && at < end) {
          // The string is not read past: a later place may fall in it or after it.
          this.i = i;
          const path = isKey ? top.path : valuePath(top);
          this.last = { start: i, end, path };
          return path;
        }
        if (isKey) {
          top.key = JSON.parse(json.slice(i, end + 1)) as string;
          top.expectKey = false;
        }
        i = end + 1;
        continue;
      }
      if (c === 123 || c === 91) {
        const path = top === undefined ? "$" : valuePath(top);
        stack.push({ path, array: c === 91, key: undefined, expectKey: c === 123 });
      } else if (c === 125 || c === 93) stack.pop();
      else if (c === 44 && top !== undefined && !top.array) top.expectKey = true;
      i++;
    }
    // In no string: read again from the start next time.
    this.json = undefined;
    return "$";
  }
}

/** The path of the value being read in `frame`. */
function valuePath(frame: Frame): string {
  return frame.array ? `${frame.path}[*]` : child(frame.path, frame.key ?? "");
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(json: string, start: number): number {
  let i = start + 1;
  while (i < json.length) {
    const c = json.charCodeAt(i);
    if (c === 92) i += 2;
    else if (c === 34) return i;
    else i++;
  }
  return json.length;
}
