/**
 * Our own outputs never repeat a secret: every string a report carries (finding messages, the
 * session summary's commands, check subjects, JSON paths, member names) passes the scrubber before
 * anything prints, stores or logs it. Hashes stay verbatim, so a report keeps what it needs to be
 * checked and located.
 */
import { Scrubber } from "./scrub.js";

/** Hash-shaped strings: kept as they are (a secret never looks like one). */
const HASH = /^(?:sha256:|hmac-sha256:)[0-9a-f]{64}$/;

/** Members a report fills from what the user typed (a path), not from the input's content. */
const NOT_FROM_INPUT: ReadonlySet<string> = new Set(["file"]);

/**
 * A copy of `report` (any JSON-like value: objects, arrays, strings, numbers, booleans, null) with
 * every string and member name scrubbed by the `private_repo` rules, hashes and `file` kept.
 * `scrubber` defaults to a fresh one; pass one to share its cache across reports.
 */
export function scrubReport<T>(report: T, scrubber: Scrubber = new Scrubber({ preset: "private_repo" })): T {
  const walk = (value: unknown, path: string, key: string | undefined): unknown => {
    if (typeof value === "string") {
      if ((key !== undefined && NOT_FROM_INPUT.has(key)) || HASH.test(value)) return value;
      return scrubber.scrub(value, path);
    }
    if (Array.isArray(value)) return value.map((item) => walk(item, `${path}[*]`, undefined));
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) {
      const at = `${path}.${name}`;
      out[scrubber.scrubKey(name, at)] = walk(item, at, name);
    }
    return out;
  };
  return walk(report, "$", undefined) as T;
}

/** `text` (an error message, a line of a report) scrubbed by the `private_repo` rules. */
export function scrubText(
  text: string,
  scrubber: Scrubber = new Scrubber({ preset: "private_repo" }),
): string {
  return scrubber.scrub(text, "$");
}
