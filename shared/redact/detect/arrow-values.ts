/**
 * A value after an arrow: the new value of a change (`~ "DB_PASSWORD" = "old" -> "new"` in a
 * Terraform plan, `password: a → b` in a diff's summary), or a value a log prints after its
 * name (`SECRET_KEY → v`, `token -> v`). The name before decides, as for an assignment.
 */
import type { Detection, ValueJudge } from "../rule-types.js";
import { credentialName } from "./credential-names.js";

/** An arrow between blanks (`p->key` is a pointer's member). */
const ARROW = /[ \t](?:->|→|⇒)[ \t]+/g;
/**
 * What stands before an arrow on its line: a name (group 1), then an old value after `=` or `:`
 * (`(sensitive value)` too) or none.
 */
const BEFORE =
  /(?<![\w.-])["']?([A-Za-z_][\w.-]{0,80})["']?[ \t]*(?:[=:][ \t]*(?:"[^"\r\n]{0,200}"|'[^'\r\n]{0,200}'|\([^()\r\n]{0,60}\)|[^\s"'(][^\s]{0,200})[ \t]*)?$/;
/** The value after an arrow: quoted (group 1 or 2) or bare (group 3). */
const AFTER = /"([^"\r\n]{1,512})"|'([^'\r\n]{1,512})'|([^\s"'(][^\s]{0,511})/y;

/** Cheap pre-checks: every arrow holds one of these. */
export const ARROW_NEEDLES: readonly string[] = ["->", "→", "⇒"];

/**
 * Appends each value after an arrow whose name names a credential, when `isSecret(name, value,
 * quoted)` (the value judged as if assigned to the name).
 */
export function scanArrowValues(text: string, out: Detection[], rule: string, isSecret: ValueJudge): void {
  for (const arrow of text.matchAll(ARROW)) {
    // The line before the arrow, at most 300 characters of it: the name and its old value.
    const lineStart = Math.max(text.lastIndexOf("\n", arrow.index) + 1, arrow.index - 300);
    const before = BEFORE.exec(text.slice(lineStart, arrow.index));
    if (before === null) continue;
    const name = before[1] as string;
    const strength = credentialName(name);
    if (strength !== "strong" && strength !== "qualified") continue;
    AFTER.lastIndex = arrow.index + arrow[0].length;
    const after = AFTER.exec(text);
    if (after === null) continue;
    const value = after[1] ?? after[2] ?? (after[3] as string);
    if (!isSecret(name, value, after[3] === undefined)) continue;
    const start = after.index + (after[3] === undefined ? 1 : 0);
    out.push({ start, end: start + value.length, rule, kind: "secret" });
  }
}
