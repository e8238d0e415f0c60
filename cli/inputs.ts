/**
 * Many inputs, as `sha256sum` and `eslint` take them: files and folders expanded to files (paths
 * printed as given), receipts paired with the replays beside them, one run per file that never
 * stops the others, the worst exit code and a summary line.
 */
import { readdir, stat } from "node:fs/promises";
import { basename, dirname, sep } from "node:path";
import { ReplayPipelineError } from "#shared/errors.js";
import type { InspectReport } from "#shared/formats/index.js";
import { isReceiptName } from "#shared/pipeline/index.js";
import { InputFileError, UsageError } from "./errors.js";
import { toInputError, writeOut } from "./io.js";
import { EXIT, exitCodeOfError, renderError, type VerdictSink } from "./output/index.js";

/** Names a folder walk picks up: the formats the tool reads, gzip-compressed or not. */
const REPLAY_NAME = /\.(jsonl|json|rpk|bundle)(\.gz)?$/i;

/** One file to run a command on. */
export interface Input {
  /** The path as given, or joined onto the folder as given. */
  path: string;
  /** True when a folder walk found it (then a JSON file that is no replay is skipped, not failed). */
  found: boolean;
  /** The RECEIPT.json beside it that it is paired with, when pairing was asked for. */
  receipt: string | null;
}

/** What the command line named, expanded. */
export interface Inputs {
  files: Input[];
  /**
   * False for exactly one file named (not a folder): the command prints exactly what it printed
   * before it took many, and a read error is the command's error. True otherwise: one report per
   * file, errors per file, a summary line.
   */
  many: boolean;
  /** Receipts left unpaired (no replay beside them), skipped with a notice. */
  unpaired: string[];
}

/** Files under `dir` that a folder walk picks up, sorted by name, subfolders in place. */
async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    // Joined without normalizing, so `./x` prints as `./x/name`: the path as given.
    const path = dir.endsWith(sep) ? `${dir}${entry.name}` : `${dir}${sep}${entry.name}`;
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else if (REPLAY_NAME.test(entry.name)) out.push(path);
  }
  return out;
}

/**
 * `given` (files, folders, `-`) as files. With `pairReceipts`, a receipt is taken out of the list
 * and paired with the replays of its folder: `<stem>.RECEIPT.json` with the files named
 * `<stem>.*`, a plain `RECEIPT.json` with every replay beside it. A missing path is a read error.
 */
export async function expandInputs(given: string[], options: { pairReceipts: boolean }): Promise<Inputs> {
  const files: Input[] = [];
  let folders = 0;
  for (const path of given) {
    if (path === "-") {
      files.push({ path, found: false, receipt: null });
      continue;
    }
    let isFolder: boolean;
    try {
      isFolder = (await stat(path)).isDirectory();
    } catch (error) {
      if (given.length === 1) throw toInputError(path, error);
      // Reported in its turn, as a read error of that file, without stopping the others.
      files.push({ path, found: false, receipt: null });
      continue;
    }
    if (!isFolder) {
      files.push({ path, found: false, receipt: null });
      continue;
    }
    folders++;
    try {
      for (const file of await walk(path)) files.push({ path: file, found: true, receipt: null });
    } catch (error) {
      throw toInputError(path, error);
    }
  }
  const many = given.length > 1 || folders > 0;
  if (!many || !options.pairReceipts) return { files, many, unpaired: [] };
  return pair(files);
}

/** Takes receipts out of `files` and pairs each with the replays of its folder. */
function pair(files: Input[]): Inputs {
  const receipts = files.filter((f) => f.path !== "-" && isReceiptName(basename(f.path)));
  const replays = files.filter((f) => !receipts.includes(f));
  const unpaired: string[] = [];
  for (const receipt of receipts) {
    const folder = dirname(receipt.path);
    const name = basename(receipt.path);
    const stem = name.replace(/[._-]?receipt\.json(\.gz)?$/i, "");
    const mates = replays.filter(
      (r) =>
        r.path !== "-" &&
        dirname(r.path) === folder &&
        (stem === "" || basename(r.path).startsWith(`${stem}.`)),
    );
    for (const mate of mates) mate.receipt ??= receipt.path;
    if (mates.length === 0) unpaired.push(receipt.path);
  }
  return { files: replays, many: true, unpaired };
}

/** The outcome of one file: a verdict, or what else became of it. */
export type Outcome = InspectReport["verdict"] | "ok" | "error" | "skipped";

/**
 * Exit code of an outcome (the exit-code table of cli/output): 1 failed or invalid, 3
 * unverifiable, 0 otherwise; an error's own code is given with it (1 bad input, 2 could not run).
 */
function exitOf(outcome: Outcome): number {
  if (outcome === "error") return EXIT.cannot_run;
  if (outcome === "failed" || outcome === "invalid") return EXIT.bad_input;
  return outcome === "unverifiable" ? EXIT.unverifiable : EXIT.ok;
}

/** The order of exit codes from best to worst: could not run over bad input over unverifiable. */
const EXIT_RANK: readonly number[] = [EXIT.ok, EXIT.unverifiable, EXIT.bad_input, EXIT.cannot_run];

/** The worse of two exit codes: 2 (could not run) over 1 (bad input) over 3 (unverifiable) over 0. */
export function worseExit(a: number, b: number): number {
  return EXIT_RANK.indexOf(b) > EXIT_RANK.indexOf(a) ? b : a;
}

/** Outcomes of a run over many files: the worst exit code and the summary line. */
export class Tally {
  private readonly counts = new Map<Outcome, number>();
  private worst = 0;
  private files = 0;

  /** Counts one file's outcome (`exit`: an error's own exit code, else the outcome's). */
  add(outcome: Outcome, exit = exitOf(outcome)): void {
    this.files++;
    this.counts.set(outcome, (this.counts.get(outcome) ?? 0) + 1);
    this.worst = worseExit(this.worst, exit);
  }

  /** Folds in an exit code that is not a file's own (a receipt check of it). */
  fold(exit: number): void {
    this.worst = worseExit(this.worst, exit);
  }

  /** The overall exit code: the worst outcome. */
  get exit(): number {
    return this.worst;
  }

  /** `N file(s): 2 passed, 1 failed, 1 error, 1 skipped` (`ok` is called `done`). */
  summary(): string {
    const order: Outcome[] = ["passed", "ok", "unverifiable", "failed", "invalid", "error", "skipped"];
    const parts = order
      .filter((o) => (this.counts.get(o) ?? 0) > 0)
      .map((o) => `${this.counts.get(o)} ${o === "ok" ? "done" : o}`);
    return `${this.files} file(s): ${parts.join(", ") || "none"}\n`;
  }
}

/**
 * Where a command's summary line goes: stdout under a text report, stderr when stdout carries
 * data (JSON, hashes, canonical bytes), none when the command prints its own (scan's table).
 */
export type SummaryStream = "stdout" | "stderr" | "none";

/**
 * Runs `each` over `inputs`. With one file it is just that run (its errors are the command's).
 * With many, a file's read or format error is printed as a diagnostic (and handed to `sink`,
 * which shows it in the run's format), counted with its own exit code (1 bad input, 2 could not
 * run) and the others go on; skipped receipts get a notice; the sink's document and the summary
 * line end the run. Returns the worst exit code.
 */
export async function runInputs(
  command: string,
  inputs: Inputs,
  each: (input: Input, tally: Tally) => Promise<Outcome>,
  options: { summary: SummaryStream; quiet?: boolean; sink?: VerdictSink },
): Promise<number> {
  const tally = new Tally();
  const say = (text: string) =>
    options.summary === "stdout" ? writeOut(text) : Promise.resolve(void process.stderr.write(text));
  if (!inputs.many) {
    const [only] = inputs.files;
    if (only === undefined) throw new UsageError(`${command}: expected at least one file or folder`);
    tally.add(await each(only, tally));
    await options.sink?.finish();
    return tally.exit;
  }
  if (inputs.files.length === 0 && inputs.unpaired.length === 0)
    throw new InputFileError(
      "io.no_files",
      `${command}: no .jsonl, .json, .rpk or .bundle file (or .gz of one) in what was given`,
    );
  for (const input of inputs.files) {
    try {
      tally.add(await each(input, tally));
    } catch (error) {
      const shown = toInputError(input.path, error);
      if (!(shown instanceof ReplayPipelineError)) throw error;
      if (shown.location.file === undefined) shown.locate({ file: input.path });
      process.stderr.write(renderError(shown, "text").stderr);
      await options.sink?.fileError(shown, command);
      tally.add("error", exitCodeOfError(shown));
    }
  }
  for (const receipt of inputs.unpaired) {
    tally.add("skipped");
    if (options.quiet !== true)
      process.stderr.write(
        `replay-pipeline ${command}: skipped ${receipt}: a receipt with no replay beside it\n`,
      );
  }
  await options.sink?.finish();
  if (options.summary !== "none") await say(tally.summary());
  return tally.exit;
}

/**
 * True when a folder walk found a `.json` file that is well-formed JSON but no replay format (a
 * package.json): skipped with a notice rather than reported as an invalid replay. Named files, and
 * the formats' own extensions (.jsonl, .rpk, .bundle), are always reported.
 */
export function notAReplay(input: Input, report: InspectReport): boolean {
  return (
    input.found &&
    /\.json(\.gz)?$/i.test(input.path) &&
    report.format === null &&
    report.errors[0]?.code === "format.unknown"
  );
}

/** The skip notice of a file `notAReplay` picked out. */
export function skipNotice(command: string, input: Input): string {
  return `replay-pipeline ${command}: skipped ${input.path}: JSON, but not a replay format this tool reads\n`;
}
