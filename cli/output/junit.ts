/**
 * `--format junit`: JUnit XML as GitLab, Jenkins and Azure read it: one `<testsuite>` per file,
 * one `<testcase>` per check row (classname the file, name the check and its subject). A failed row
 * is a `<failure>`; an unverifiable row is `<skipped>` (it was not evaluated: counting it as passed
 * would claim a check that did not happen, and as failed would hide the real failures); a file's
 * errors (an invalid file) are one `<failure>` test case `structure`; a file that could not be read
 * at all (in a run over many) is one `<error>` test case `read`.
 */
import type { VerdictView } from "./view.js";

/** XML 1.0 text: escaped, and the characters XML 1.0 cannot hold at all replaced by U+FFFD. */
export function xmlEscape(s: string): string {
  return s
    .replaceAll(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;");
}

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`)
    .join("");
}

/** The JUnit XML document of some verdicts. */
export function renderJunit(views: VerdictView[], name: string): string {
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let skipped = 0;
  let errored = 0;
  for (const v of views) {
    if (v.error !== undefined) {
      const d = v.error;
      const at = d.path === undefined ? "" : ` (at ${d.path})`;
      tests++;
      errored++;
      suites.push(
        `  <testsuite${attrs({ name: `${v.command} ${v.file}`, tests: 1, failures: 0, errors: 1, skipped: 0 })}>\n    <testcase${attrs({ classname: v.file, name: "read" })}>\n      <error${attrs({ message: `${d.message}${at}`, type: d.code })}/>\n    </testcase>\n  </testsuite>`,
      );
      continue;
    }
    const cases: string[] = [];
    let suiteFailures = 0;
    let suiteSkipped = 0;
    const errors = v.diagnostics.filter((d) => d.severity === "error" && !d.code.startsWith("check."));
    const structure = attrs({ classname: v.file, name: "structure" });
    if (errors.length > 0) {
      suiteFailures++;
      const body = errors
        .map((d) => `${d.file}:${d.line ?? 0}:${d.column ?? 0}: ${d.code}: ${d.message}`)
        .join("\n");
      cases.push(
        `    <testcase${structure}>\n      <failure${attrs({ message: `${v.errorsTotal} error(s); first: ${errors[0]?.message ?? ""}`, type: errors[0]?.code ?? "error" })}>${xmlEscape(body)}</failure>\n    </testcase>`,
      );
    } else {
      cases.push(`    <testcase${structure}/>`);
    }
    for (const row of v.rows) {
      const head = `    <testcase${attrs({ classname: v.file, name: `${row.check} ${row.subject}` })}`;
      const detail = `expected ${row.expected ?? "-"}, got ${row.actual ?? "-"}`;
      if (row.status === "passed") cases.push(`${head}/>`);
      else if (row.status === "failed") {
        suiteFailures++;
        cases.push(
          `${head}>\n      <failure${attrs({ message: detail, type: row.check })}/>\n    </testcase>`,
        );
      } else {
        suiteSkipped++;
        cases.push(
          `${head}>\n      <skipped${attrs({ message: `unverifiable: ${detail}` })}/>\n    </testcase>`,
        );
      }
    }
    tests += cases.length;
    failures += suiteFailures;
    skipped += suiteSkipped;
    suites.push(
      `  <testsuite${attrs({ name: `${v.command} ${v.file}`, tests: cases.length, failures: suiteFailures, errors: 0, skipped: suiteSkipped })}>\n${cases.join("\n")}\n  </testsuite>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attrs({ name, tests, failures, errors: errored, skipped })}>\n${suites.join("\n")}\n</testsuites>\n`;
}
