/**
 * Credentials given to a format string's slot as a literal argument: `String.format("…&password=%s",
 * host, "p")`, Go's `fmt.Sprintf("user=%s password=%s", u, "p")`, Python's `"password=%s" % "p"`
 * and `"token={}".format("t")`, C's `printf("password %s\n", "p")`, a URL's userinfo
 * (`"postgres://%s:%s@%s/db"`). The slot is a credential's when the format's text before it ends
 * with a credential's name and `=` or `:`, an authorization scheme, or a password's word; its
 * argument is found by the slot's place (`%2$s` and `{1}` say it).
 */
import { isPlaceholder } from "../rule-helpers.js";
import type { Detection } from "../rule-types.js";
import { credentialName } from "./credential-names.js";
import { keyArguments } from "./keyed-calls.js";

/** The needles of `scanFormatArguments`: a slot of printf's, Go's or Python's formats. */
export const FORMAT_NEEDLES = ["%s", "%v", "%q", "$s", "{}", "{0}", "{1}", "{2}"];

/** A quoted literal on one line (group 1 or 2: its text). */
const LITERAL = /"((?:[^"\\\r\n]|\\.){1,512})"|'((?:[^'\\\r\n]|\\.){1,512})'/g;
/** A slot: printf's `%s`, `%-10s`, `%2$s`, Go's `%v` and `%q`, Python's `{}`, `{0}`, `{0:>8}`; `%%` is no slot. */
const SLOT = /%%|%(\d+\$)?[-+ #0]*\d*(?:\.\d+)?[svq]|\{(\d*)(?::[^{}]{0,16})?\}/g;
/** The text before a slot that makes it a credential's: a name and `=` or `:` (group 1). */
const NAMED = /(?:^|[^\w.-])([A-Za-z_][\w.-]{0,40})["']?[ \t]*[=:][ \t]*["']?$/;
/** A scheme or a password's word before a blank (`Bearer %s`, `password %s`), or a URL's userinfo (`://%s:`). */
const WORDED =
  /(?:^|[^A-Za-z])(?:Bearer|Basic|Token|token|[Pp]assword|PASSWORD|passwd|[Pp]assphrase|[Ss]ecret)[ \t]+$|:\/\/[^\s/@:]{0,64}:$/;
/** What follows a format's literal before its arguments: a comma, Python's `%` (a tuple or one value), `.format(`. */
const ARGUMENTS = /^[ \t]*(?:(,)|%[ \t]*(\()?|\.format\()[ \t]*/;

/** Appends the literal arguments given to credentials' slots of the format strings of `text`. */
export function scanFormatArguments(text: string, out: Detection[], rule: string): void {
  LITERAL.lastIndex = 0;
  for (let m = LITERAL.exec(text); m !== null; m = LITERAL.exec(text)) {
    const format = m[1] ?? m[2] ?? "";
    // Most literals hold no slot (a JSON text's `{}` is a needle too).
    if (!format.includes("%") && !format.includes("{")) continue;
    const after = ARGUMENTS.exec(text.slice(m.index + m[0].length, m.index + m[0].length + 16));
    if (after === null) continue;
    const at = m.index + m[0].length + after[0].length;
    // Python's `%` with one value (no tuple) fills the first slot alone.
    const single = after[0].includes("%") && after[2] === undefined;
    for (const place of credentialSlots(format)) {
      if (single && place > 0) continue;
      for (const [s, e] of keyArguments(text, at, place, single)) {
        // A word alone is a message's (`"password: %s" % "required"`); a credential holds a digit or a symbol.
        const value = text.slice(s, e);
        if (value.length >= 4 && /[^A-Za-z]/.test(value) && !isPlaceholder(value))
          out.push({ start: s, end: e, rule, kind: "secret" });
      }
    }
  }
}

/** The places among the arguments of the slots of `format` a credential fills. */
function credentialSlots(format: string): number[] {
  const places: number[] = [];
  let next = 0;
  SLOT.lastIndex = 0;
  for (let m = SLOT.exec(format); m !== null; m = SLOT.exec(format)) {
    if (m[0] === "%%") continue;
    const explicit =
      m[1] !== undefined ? Number.parseInt(m[1], 10) - 1 : m[2] ? Number.parseInt(m[2], 10) : undefined;
    const place = explicit ?? next++;
    const before = format.slice(Math.max(0, m.index - 64), m.index);
    const name = NAMED.exec(before)?.[1];
    if ((name !== undefined && credentialName(name) === "strong") || WORDED.test(before)) places.push(place);
  }
  return places;
}
