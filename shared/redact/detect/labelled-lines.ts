/**
 * A credential's label alone on its line and its value alone on the next (`Password:⏎S`,
 * `REDIS_PASSWORD⏎    S`, `API Key:⏎  S`): how dashboards, wizards and `describe` commands print a
 * setting, and how a value wrapped under its name reads. The label must name a credential; without
 * a colon it must be one identifier (`DB_PASSWORD`), where a heading of words (`Reset password`)
 * over a word is prose.
 */
import { isPlaceholder } from "../rule-helpers.js";
import type { Detection, ValueJudge } from "../rule-types.js";
import { type Line, linesOf } from "../text-lines.js";
import { credentialName } from "./credential-names.js";

/**
 * A label: up to four words with a colon or `=` (group 1), or one identifier alone (group 2); a
 * list mark or `#` before it. Not a block of code (`for p in pwd:`, `if token:`).
 */
const LABEL =
  /^[ \t]*(?:[-*#>]+[ \t]+)?(?!(?:for|if|elif|else|while|with|def|class|try|except|finally|case|match|return|async|lambda)\b)(?:([A-Za-z][\w.-]*(?:[ \t][A-Za-z][\w.-]*){0,3})[ \t]*[:=]|([A-Za-z_][\w.-]*))[ \t]*$/;

const ANY_LABEL = /[:=][ \t]*(?:\r?\n|\\n)|(?:^|\n|\\n)[ \t]*[A-Za-z_][\w.-]*[ \t]*(?:\r?\n|\\n)/;
const SETTING = /^[A-Za-z_][\w.-]*(?::(?:\s|$)|=(?!=|$))|^[A-Za-z_][\w.-]*[_.-][\w.-]*=$/;
const PROMPT_WORD =
  /\b(?:for|of|to|from|with|enter|again|confirm|retype|repeat|verify|type|input|provide)\b/i;

/** A value alone on its line: one token, bare or quoted (group 1 or 2). */
const VALUE = /^[ \t]*(?:(["'`])([^\s"'`]{4,512})\1|([^\s"'`[{(<#$%][^\s"'`]{3,511}))[ \t]*$/;

/** Cheap pre-checks: a label and its value are two lines (`credentialName` decides the rest). */
export const LABELLED_LINE_NEEDLES: readonly string[] = ["\n", "\\n"];

/**
 * Appends each value alone on the line after a credential's label in `text`, when
 * `isSecret(name, value)`.
 */
export function scanLabelledLines(text: string, out: Detection[], rule: string, isSecret: ValueJudge): void {
  // Speed only: a label ends its line with a colon or `=`, or is an identifier alone on it.
  if (!ANY_LABEL.test(text)) return;
  const lines = linesOf(text);
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i] as Line;
    const label = LABEL.exec(text.slice(line.start, line.end));
    if (label === null) continue;
    const next = lines[i + 1] as Line;
    const m = VALUE.exec(text.slice(next.start, next.end));
    if (m === null) continue;
    const value = m[2] ?? (m[3] as string);
    // A line that is itself a setting (`APP_DEBUG=true`, `url:`, `DYNATRACE_API_KEY=`; base64's
    // padding is not `=` after a name): the label above it had no value.
    if (SETTING.test(value)) continue;
    // A label with no colon is an identifier: `DB_PASSWORD`, `apiKey`, not a word (`Password`).
    const name = label[1] ?? (label[2] as string);
    if (label[1] === undefined && !/[_A-Z]/.test(name.slice(1))) continue;
    // A prompt is no label (`Password for user postgres:`, `Enter passphrase:`): what follows it is
    // the program's output, its answer unechoed (`password-prompt` reads the answers that stand there).
    if (PROMPT_WORD.test(name)) continue;
    const strength = credentialName(name);
    if (strength !== "strong" && strength !== "qualified") continue;
    // Judged as the identifier the label's words make (`API key` as `API_key`).
    if (isPlaceholder(value) || !isSecret(name.replace(/[ \t]+/g, "_"), value)) continue;
    const start = next.start + m.index + m[0].lastIndexOf(value);
    out.push({ start, end: start + value.length, rule, kind: "secret" });
  }
}
