import { type ErrorCode, JsonInputError } from "../errors.js";
import { JsonNumber, type JsonObject, type JsonValue, setMember } from "./json-value.js";

/** How strict reading is. */
export interface ReadOptions {
  /** Deepest nesting of arrays and objects accepted; deeper input fails. Default 512. */
  maxDepth?: number;
  /**
   * Reject strings that hold an unpaired UTF-16 surrogate (`"\ud800"`). Default true: RFC 8785
   * and serde_json both refuse them. ReplayKit (Python) accepts them.
   */
  rejectLoneSurrogates?: boolean;
}

/** Default nesting limit; deep enough for any real event, shallow enough to bound work. */
export const DEFAULT_MAX_DEPTH = 512;

enum Ch {
  Tab = 9,
  Lf = 10,
  Cr = 13,
  Space = 32,
  Quote = 34,
  Plus = 43,
  Comma = 44,
  Minus = 45,
  Dot = 46,
  Slash = 47,
  Zero = 48,
  Nine = 57,
  Colon = 58,
  UpperE = 69,
  LBracket = 91,
  Backslash = 92,
  RBracket = 93,
  LowerE = 101,
  LBrace = 123,
  RBrace = 125,
}

/** 1-based line and code-point column of `offset` in `text`. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  let column = 1;
  for (let i = lineStart; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i);
    // The low half of a surrogate pair is the same code point as its high half.
    if (c < 0xdc00 || c > 0xdfff || i === lineStart || !isHighSurrogate(text.charCodeAt(i - 1))) column++;
  }
  return { line, column };
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** Describes the character at `offset` for an error message ("end of input" past the end). */
function describeAt(text: string, offset: number): string {
  if (offset >= text.length) return "end of input";
  const cp = text.codePointAt(offset) ?? 0;
  if (cp < 0x20 || cp === 0x7f)
    return `control character U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
  return `'${String.fromCodePoint(cp)}'`;
}

function fail(text: string, offset: number, code: ErrorCode, detail: string): never {
  throw new JsonInputError(code, detail, lineColumnAt(text, offset));
}

function unexpected(text: string, offset: number, expected: string): never {
  const c = text.charCodeAt(offset);
  if (text.startsWith("NaN", offset) || text.startsWith("Infinity", offset)) {
    fail(
      text,
      offset,
      "json.non_finite",
      `expected ${expected}, found ${text.startsWith("NaN", offset) ? "NaN" : "Infinity"}: JSON has no NaN or Infinity`,
    );
  }
  if (c === Ch.Minus && text.startsWith("Infinity", offset + 1)) {
    fail(
      text,
      offset,
      "json.non_finite",
      `expected ${expected}, found -Infinity: JSON has no NaN or Infinity`,
    );
  }
  fail(text, offset, "json.syntax", `expected ${expected}, found ${describeAt(text, offset)}`);
}

/**
 * Reads one JSON document losslessly: numbers keep their source text, duplicate keys are an error
 * naming both positions, and nesting is bounded by `maxDepth` without recursion (a hostile document
 * cannot overflow the stack). Errors are `JsonInputError`s with line and column inside `text`.
 */
// Long because: a hand-written, non-recursive state machine run on every JSON line read: the
// position and container stack are locals its inner readers share, where a split would move them onto an object.
export function readJson(text: string, options: ReadOptions = {}): JsonValue {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const rejectLone = options.rejectLoneSurrogates ?? true;
  const n = text.length;
  if (n > 0 && text.charCodeAt(0) === 0xfeff) {
    fail(
      text,
      0,
      "json.bom",
      "byte order mark (U+FEFF) before the JSON value; JSON text must not start with one",
    );
  }

  // Containers being filled, innermost last; `keys[d]` is the member key awaiting its value.
  const stack: (JsonValue[] | JsonObject)[] = [];
  const starts: number[] = [];
  const keys: string[] = [];
  let i = skipWs(text, 0);
  let value: JsonValue;

  const readString = (): string => {
    // text[i] is the opening quote.
    const start = i + 1;
    let j = start;
    let seen = 0;
    for (;;) {
      if (j >= n) fail(text, i, "json.syntax", "unterminated string: expected '\"' before end of input");
      const c = text.charCodeAt(j);
      if (c === Ch.Quote) break;
      if (c === Ch.Backslash || c < 0x20) return readEscapedString(start);
      seen |= c;
      j++;
    }
    const s = text.slice(start, j);
    if (seen >= 0xd800 && rejectLone && !s.isWellFormed()) loneSurrogate(start, s);
    i = j + 1;
    return s;
  };

  const loneSurrogate = (from: number, s: string): never => {
    let k = 0;
    while (k < s.length) {
      const c = s.charCodeAt(k);
      if (
        isHighSurrogate(c) &&
        k + 1 < s.length &&
        s.charCodeAt(k + 1) >= 0xdc00 &&
        s.charCodeAt(k + 1) <= 0xdfff
      )
        k += 2;
      else if (c >= 0xd800 && c <= 0xdfff) break;
      else k++;
    }
    fail(
      text,
      from,
      "json.lone_surrogate",
      `string holds an unpaired surrogate U+${s.charCodeAt(k).toString(16).toUpperCase()} (character ${k + 1} of the string); expected well-formed Unicode`,
    );
  };

  const readEscapedString = (start: number): string => {
    const parts: string[] = [];
    let runStart = start;
    let j = start;
    for (;;) {
      if (j >= n)
        fail(text, start - 1, "json.syntax", "unterminated string: expected '\"' before end of input");
      const c = text.charCodeAt(j);
      if (c === Ch.Quote) break;
      if (c < 0x20) {
        fail(
          text,
          j,
          "json.control_character",
          `${describeAt(text, j)} inside a string; expected it escaped (\\n, \\t, \\u00XX)`,
        );
      }
      if (c !== Ch.Backslash) {
        j++;
        continue;
      }
      if (j > runStart) parts.push(text.slice(runStart, j));
      const e = text.charCodeAt(j + 1);
      switch (e) {
        case Ch.Quote:
          parts.push('"');
          break;
        case Ch.Backslash:
          parts.push("\\");
          break;
        case Ch.Slash:
          parts.push("/");
          break;
        case 98:
          parts.push("\b");
          break;
        case 102:
          parts.push("\f");
          break;
        case 110:
          parts.push("\n");
          break;
        case 114:
          parts.push("\r");
          break;
        case 116:
          parts.push("\t");
          break;
        case 117: {
          const hex = text.slice(j + 2, j + 6);
          if (!/^[0-9A-Fa-f]{4}$/.test(hex)) {
            fail(
              text,
              j,
              "json.bad_escape",
              `invalid \\u escape '${text.slice(j, j + 6)}'; expected \\u and four hex digits`,
            );
          }
          parts.push(String.fromCharCode(Number.parseInt(hex, 16)));
          j += 4;
          break;
        }
        default:
          fail(
            text,
            j,
            "json.bad_escape",
            `invalid escape '\\${j + 1 < n ? String.fromCodePoint(text.codePointAt(j + 1) ?? 0) : ""}'; expected one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX`,
          );
      }
      j += 2;
      runStart = j;
    }
    if (j > runStart) parts.push(text.slice(runStart, j));
    const s = parts.join("");
    if (rejectLone && !s.isWellFormed()) loneSurrogate(start, s);
    i = j + 1;
    return s;
  };

  const readNumber = (): JsonNumber => {
    const start = i;
    let j = i;
    let c = text.charCodeAt(j);
    if (c === Ch.Minus) c = text.charCodeAt(++j);
    if (c === Ch.Zero) {
      c = text.charCodeAt(++j);
      if (c >= Ch.Zero && c <= Ch.Nine)
        fail(text, j - 1, "json.syntax", "number with a leading zero; expected a digit 1-9 or a single 0");
    } else if (c > Ch.Zero && c <= Ch.Nine) {
      do c = text.charCodeAt(++j);
      while (c >= Ch.Zero && c <= Ch.Nine);
    } else {
      unexpected(text, j, "a digit");
    }
    if (c === Ch.Dot) {
      c = text.charCodeAt(++j);
      if (!(c >= Ch.Zero && c <= Ch.Nine)) unexpected(text, j, "a digit after the decimal point");
      do c = text.charCodeAt(++j);
      while (c >= Ch.Zero && c <= Ch.Nine);
    }
    if (c === Ch.LowerE || c === Ch.UpperE) {
      c = text.charCodeAt(++j);
      if (c === Ch.Plus || c === Ch.Minus) c = text.charCodeAt(++j);
      if (!(c >= Ch.Zero && c <= Ch.Nine)) unexpected(text, j, "a digit in the exponent");
      do c = text.charCodeAt(++j);
      while (c >= Ch.Zero && c <= Ch.Nine);
    }
    i = j;
    return new JsonNumber(text.slice(start, j));
  };

  const readKey = (): string => {
    if (text.charCodeAt(i) !== Ch.Quote) unexpected(text, i, "a member name in double quotes");
    const key = readString();
    i = skipWs(text, i);
    if (text.charCodeAt(i) !== Ch.Colon) unexpected(text, i, "':' after the member name");
    i = skipWs(text, i + 1);
    return key;
  };

  const open = (container: JsonValue[] | JsonObject): void => {
    if (stack.length >= maxDepth) {
      fail(
        text,
        i,
        "json.too_deep",
        `nesting deeper than ${maxDepth} levels; expected at most ${maxDepth} (raise the limit with maxDepth)`,
      );
    }
    stack.push(container);
    starts.push(i);
  };

  for (;;) {
    // Read one value starting at i.
    const c = text.charCodeAt(i);
    if (c === Ch.Quote) {
      value = readString();
    } else if (c === Ch.LBrace) {
      const obj: JsonObject = {};
      open(obj);
      i = skipWs(text, i + 1);
      if (text.charCodeAt(i) === Ch.RBrace) {
        i++;
        stack.pop();
        starts.pop();
        value = obj;
      } else {
        keys[stack.length - 1] = readKey();
        continue;
      }
    } else if (c === Ch.LBracket) {
      const arr: JsonValue[] = [];
      open(arr);
      i = skipWs(text, i + 1);
      if (text.charCodeAt(i) === Ch.RBracket) {
        i++;
        stack.pop();
        starts.pop();
        value = arr;
      } else {
        continue;
      }
    } else if ((c >= Ch.Zero && c <= Ch.Nine) || (c === Ch.Minus && !text.startsWith("Infinity", i + 1))) {
      value = readNumber();
    } else if (c === 116 && text.startsWith("true", i)) {
      value = true;
      i += 4;
    } else if (c === 102 && text.startsWith("false", i)) {
      value = false;
      i += 5;
    } else if (c === 110 && text.startsWith("null", i)) {
      value = null;
      i += 4;
    } else {
      unexpected(text, i, "a JSON value");
    }

    // Attach the value to its container and move to the next one, closing containers as they end.
    for (;;) {
      const depth = stack.length;
      if (depth === 0) {
        i = skipWs(text, i);
        if (i < n) unexpected(text, i, "end of input after the JSON value");
        return value;
      }
      const top = stack[depth - 1] as JsonValue[] | JsonObject;
      i = skipWs(text, i);
      const d = text.charCodeAt(i);
      if (Array.isArray(top)) {
        top.push(value);
        if (d === Ch.Comma) {
          i = skipWs(text, i + 1);
          break;
        }
        if (d !== Ch.RBracket) unexpected(text, i, "',' or ']' after an array element");
      } else {
        const key = keys[depth - 1] as string;
        if (Object.hasOwn(top, key)) duplicateKey(text, starts[depth - 1] as number, key, i);
        setMember(top, key, value);
        if (d === Ch.Comma) {
          i = skipWs(text, i + 1);
          keys[depth - 1] = readKey();
          break;
        }
        if (d !== Ch.RBrace) unexpected(text, i, "',' or '}' after an object member");
      }
      i++;
      value = top;
      stack.pop();
      starts.pop();
    }
  }
}

function skipWs(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === Ch.Space || c === Ch.Lf || c === Ch.Cr || c === Ch.Tab) i++;
    else return i;
  }
}

/**
 * Reports a duplicate key with both positions. Runs only on the error path: re-reads the object
 * from its opening brace to find the member names at its own level.
 */
function duplicateKey(text: string, objStart: number, key: string, valueEnd: number): never {
  const offsets: number[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = objStart; i < valueEnd && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === Ch.Quote) {
      const start = i;
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== Ch.Quote)
        j += text.charCodeAt(j) === Ch.Backslash ? 2 : 1;
      if (depth === 1 && expectKey && (JSON.parse(text.slice(start, j + 1)) as string) === key)
        offsets.push(start);
      expectKey = false;
      i = j;
    } else if (c === Ch.LBrace || c === Ch.LBracket) {
      depth++;
      expectKey = c === Ch.LBrace && depth === 1;
    } else if (c === Ch.RBrace || c === Ch.RBracket) {
      depth--;
    } else if (c === Ch.Comma && depth === 1) {
      expectKey = true;
    }
  }
  const first = lineColumnAt(text, offsets[0] ?? objStart);
  const second = offsets[1] ?? offsets[0] ?? objStart;
  // Said relative to the second occurrence's line, so it stays true when a JSON Lines reader
  // shifts the document's line numbers.
  const lines = lineColumnAt(text, second).line - first.line;
  const where = lines === 0 ? "of this line" : lines === 1 ? "of the line above" : `, ${lines} lines above`;
  fail(
    text,
    second,
    "json.duplicate_key",
    `duplicate member name ${JSON.stringify(key)}; first at column ${first.column}${where.startsWith(",") ? "" : " "}${where}; expected each name once per object`,
  );
}
