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
 * The path of the string of the written JSON object `json` (canonical: no blanks) that holds the
 * character at `at`: a value's own path (`$.error.message`, `$.argv[*]`), and for a member name
 * the path of the object holding it (where `scrubKey` counts). `$` when `at` is in no string.
 */
export function writtenPathAt(json: string, at: number): string {
  const stack: Frame[] = [];
  let i = 0;
  while (i < json.length && i <= at) {
    const c = json.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 34) {
      const end = stringEnd(json, i);
      if (top === undefined) return "$";
      const isKey = !top.array && top.expectKey;
      if (at > i && at < end) return isKey ? top.path : valuePath(top);
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
  return "$";
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
