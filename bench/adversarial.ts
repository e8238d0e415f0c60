/**
 * The `adversarial-text` row of `npm run bench`: how the scrubber's time grows on text written to
 * make it backtrack. Each fragment (the start of something a rule looks for: `eyJ`, `://a:`,
 * `<password>`, `BUNDLE_A__B=`, a tool's name…) is repeated to 30 KB and to 120 KB and scrubbed as a
 * value and, its first 8 KB, as a member name. Linear work takes about 4 times as long on the
 * longer text; a search tried at every start of a run it then reads to its end takes about 16
 * times as long (a 1 MB string of `eyJ` took minutes before the JWT rule started only at a run's
 * start). The row prints the fragments with the highest ratio and the slowest rate.
 */
import { Scrubber } from "#shared/redact/index.js";

/** Starts of what the rules look for, and fillers that keep a run going. */
const FRAGMENTS = [
  "password=",
  "-u a -p ",
  "--token ",
  "Bearer ",
  "://",
  "://a:",
  "a@b.",
  "$1$",
  "$krb5tgs$23$*",
  "sk-",
  "eyJ",
  "eyJabcdef.",
  "-----BEGIN ",
  "AKIA",
  "token: ",
  "api_key=",
  "%2F",
  "\\n",
  '("a", ',
  "machine h login u password ",
  "BUNDLE_A__B=",
  ";Password=",
  "{AQAAAB",
  ":aad3b435b51404eeaad3b435b51404ee:",
  "https://a.com/",
  "?token=",
  "<password>",
  "the password is ",
  "Login: a / ",
  "name: X_PASSWORD\n  value: ",
  'variable "db_password" { ',
  "a:12:b:c:",
  "sshpass ",
  "psexec ",
  "ConvertTo-SecureString ",
  "echo a | docker login ",
  "sqlplus a/",
];
const FILLERS = ["", "a", "A1", "/", ".", "-", ":", "="];

/** Milliseconds to scrub `text` as a value and its first 8 KB as a member name, with a new scrubber. */
function scrubMs(text: string): number {
  const scrubber = new Scrubber({ preset: "private_repo" });
  const started = performance.now();
  scrubber.scrub(text, "$.error.message");
  scrubber.scrubKey(text.slice(0, 8192), "$.error");
  return performance.now() - started;
}

interface Row {
  unit: string;
  shortMs: number;
  longMs: number;
}

/** The section: the fragments whose time grew most from 30 KB to 120 KB, and the slowest. */
export function adversarialReport(): { text: string } {
  const rows: Row[] = [];
  for (const fragment of FRAGMENTS) {
    for (const filler of FILLERS) {
      const unit = fragment + filler;
      const shortMs = scrubMs(unit.repeat(Math.ceil(30_000 / unit.length)));
      const longMs = scrubMs(unit.repeat(Math.ceil(120_000 / unit.length)));
      rows.push({ unit, shortMs, longMs });
    }
  }
  // Ratios of runs under 20 ms are mostly the clock's: they are not ranked by ratio.
  const ratio = (r: Row): number => (r.longMs < 20 ? 0 : r.longMs / Math.max(r.shortMs, 1));
  const byRatio = [...rows].sort((a, b) => ratio(b) - ratio(a)).slice(0, 5);
  const bySpeed = [...rows].sort((a, b) => b.longMs - a.longMs).slice(0, 5);
  const line = (r: Row): string =>
    `| \`${JSON.stringify(r.unit).slice(1, -1).replace(/\|/g, "\\|").replace(/`/g, "ˋ")}\` | ${r.shortMs.toFixed(0)} | ${r.longMs.toFixed(0)} | ${(r.longMs / Math.max(r.shortMs, 1)).toFixed(1)} | ${(0.12 / (r.longMs / 1000)).toFixed(1)} |`;
  const header = [
    "| text repeated | ms, 30 KB | ms, 120 KB | ratio (linear ≈ 4) | MB/s, 120 KB |",
    "| --- | ---: | ---: | ---: | ---: |",
  ];
  const worst = Math.max(...rows.map(ratio));
  return {
    text: [
      "## Adversarial text: does the scrubber's time grow linearly?",
      "",
      `${rows.length} texts (${FRAGMENTS.length} fragments × ${FILLERS.length} fillers), each at 30 KB and 120 KB, scrubbed as a value and (first 8 KB) as a member name; highest ratio of the two times where the longer took 20 ms or more: **${worst.toFixed(1)}**.`,
      "",
      "Highest ratios:",
      "",
      ...header,
      ...byRatio.map(line),
      "",
      "Slowest:",
      "",
      ...header,
      ...bySpeed.map(line),
    ].join("\n"),
  };
}
