import { ReplayPipelineError } from "#shared/errors.js";
import { closest } from "./args.js";
import { awsFailure } from "./aws-errors.js";
import { UsageError } from "./errors.js";
import { buildCommit, toolVersion } from "./io.js";
import { exitCodeOfError, renderError, requestedFormat } from "./output/index.js";

/** A command: what it runs and its `--help`. */
interface Command {
  run: (argv: string[]) => Promise<number>;
  help: string;
}

/**
 * The commands, each loaded only when it runs (or its help is asked for): the AWS SDK, the local
 * servers and the report's charts cost a command that needs none of them 55 MB and half a second.
 */
const COMMANDS: Record<string, { load: () => Promise<Command>; summary: string }> = {
  canon: {
    load: async () => {
      const m = await import("./commands/canon.js");
      return { run: m.canonCommand, help: m.CANON_HELP };
    },
    summary: "print a JSON file's canonical form (jcs, openagents, replaykit)",
  },
  export: {
    load: async () => {
      const m = await import("./commands/export.js");
      return { run: m.exportCommand, help: m.EXPORT_HELP };
    },
    summary: "convert a ReplayBundle to REPLAY.jsonl v1 and print its replay_hash",
  },
  hash: {
    load: async () => {
      const m = await import("./commands/hash.js");
      return { run: m.hashCommand, help: m.HASH_HELP };
    },
    summary: "print sha256 of a file's canonical form or raw bytes",
  },
  inspect: {
    load: async () => {
      const m = await import("./commands/inspect.js");
      return { run: m.inspectCommand, help: m.INSPECT_HELP };
    },
    summary: "validate a replay file, recompute its hashes, print a verdict",
  },
  process: {
    load: async () => {
      const m = await import("./commands/process.js");
      return { run: m.processCommand, help: m.PROCESS_HELP };
    },
    summary: "run the pipeline's whole per-file job on files, writing under an output folder",
  },
  receipt: {
    load: async () => {
      const m = await import("./commands/receipt.js");
      return { run: m.receiptCommand, help: m.RECEIPT_HELP };
    },
    summary: "write an openagents.receipt.v1 RECEIPT.json for a replay",
  },
  verify: {
    load: async () => {
      const m = await import("./commands/verify.js");
      return { run: m.verifyCommand, help: m.VERIFY_HELP };
    },
    summary: "check a replay against its RECEIPT.json",
  },
  "verify-attestation": {
    load: async () => {
      const m = await import("./commands/verify-attestation.js");
      return { run: m.verifyAttestationCommand, help: m.VERIFY_ATTESTATION_HELP };
    },
    summary: "check a verdict attestation (--attest, or the pipeline's): signature, subject, result",
  },
  redact: {
    load: async () => {
      const m = await import("./commands/redact.js");
      return { run: m.redactCommand, help: m.REDACT_HELP };
    },
    summary: "write a Layer C copy (raw content removed, secrets scrubbed) safe to publish",
  },
  report: {
    load: async () => {
      const m = await import("./commands/report.js");
      return { run: m.reportCommand, help: m.REPORT_HELP };
    },
    summary: "build the audit report of a period from the index (json, md or html)",
  },
  reprocess: {
    load: async () => {
      const m = await import("./commands/reprocess.js");
      return { run: (argv) => m.reprocessCommand(argv), help: m.REPROCESS_HELP };
    },
    summary: "run the pipeline again on stored files whose rules changed (--stale), resumably",
  },
  scan: {
    load: async () => {
      const m = await import("./commands/scan.js");
      return { run: m.scanCommand, help: m.SCAN_HELP };
    },
    summary: "inspect and hash every replay file in folders and files (default: examples)",
  },
  push: {
    load: async () => {
      const m = await import("./commands/remote.js");
      return { run: m.pushCommand, help: m.PUSH_HELP };
    },
    summary: "upload files to the pipeline; --wait exits with their worst verdict (for CI)",
  },
  sessions: {
    load: async () => {
      const m = await import("./commands/remote.js");
      return { run: m.sessionsCommand, help: m.SESSIONS_HELP };
    },
    summary: "list a tenant's sessions and worst verdicts",
  },
  show: {
    load: async () => {
      const m = await import("./commands/remote.js");
      return { run: m.showCommand, help: m.SHOW_HELP };
    },
    summary: "a session's files, verdicts, receipt checks, Layer C keys",
  },
  pull: {
    load: async () => {
      const m = await import("./commands/remote.js");
      return { run: m.pullCommand, help: m.PULL_HELP };
    },
    summary: "download a file's published Layer C copy",
  },
  url: {
    load: async () => {
      const m = await import("./commands/url.js");
      return { run: (argv) => m.urlCommand(argv), help: m.URL_HELP };
    },
    summary: "a signed CloudFront URL of a published copy, opening its tenant's copies only",
  },
  view: {
    load: async () => {
      const m = await import("./commands/view.js");
      return { run: m.viewCommand, help: m.VIEW_HELP };
    },
    summary: "write a self-contained HTML page of a session: header, timeline, hashes, redactions",
  },
  diff: {
    load: async () => {
      const m = await import("./commands/diff.js");
      return { run: m.diffCommand, help: m.DIFF_HELP };
    },
    summary: "compare two sessions of any format (Layer C copies too) step by step; exit 1 if they differ",
  },
  start: {
    load: async () => {
      const m = await import("./commands/start.js");
      return { run: m.startCommand, help: m.START_HELP };
    },
    summary: "run the pipeline locally (S3, DynamoDB, queue, ingest handler) on examples/ and uploads",
  },
};

const MAIN_HELP = `Usage: replay-pipeline <command> [options]

Validate, rehash and verify AI coding-agent replay files.

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(18)} ${c.summary}`)
  .join("\n")}

Every command also takes -q/--quiet (errors only), -V/--version and -h/--help.
Run 'replay-pipeline <command> --help' for a command's options.
Exit codes: 0 passed or done, 1 failed or invalid (or input a command cannot read as what it
expects), 2 the command could not run (usage, missing or unwritable file, timeout), 3 unverifiable;
with several files, the worst of them: 2 over 1 over 3 over 0.`;

/** The command named `name`; never a member every object inherits (`constructor`, `toString`). */
function commandNamed(
  name: string | undefined,
): { load: () => Promise<Command>; summary: string } | undefined {
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

/** True when `argv` asks for the version (before a `--`). */
function asksVersion(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === "--version" || a === "-V");
}

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === "--help" || command === "-h" || command === "help") {
      const topic = command === "help" ? rest[0] : undefined;
      const help = commandNamed(topic);
      process.stdout.write(`${help === undefined ? MAIN_HELP : (await help.load()).help}\n`);
      return command === undefined ? 2 : 0;
    }
    if (command === "--version" || command === "-V" || command === "-v" || asksVersion(rest)) {
      process.stdout.write(`replay-pipeline ${toolVersion()} (commit ${buildCommit()})\n`);
      return 0;
    }
    const entry = commandNamed(command);
    if (entry === undefined) {
      const close = closest(command, Object.keys(COMMANDS));
      throw new UsageError(
        `unknown command '${command}'${close === null ? "" : `; did you mean '${close}'?`} (expected one of ${Object.keys(COMMANDS).join(", ")})`,
      );
    }
    return await (await entry.load()).run(rest);
  } catch (error) {
    if (error instanceof ReplayPipelineError) {
      const shown = renderError(error, requestedFormat(rest));
      process.stderr.write(shown.stderr);
      if (shown.stdout !== "") process.stdout.write(shown.stdout);
      return exitCodeOfError(error);
    }
    if ((error as NodeJS.ErrnoException | undefined)?.code === "EPIPE") return 0;
    const aws = awsFailure(error, command ?? "replay-pipeline");
    if (aws !== undefined) {
      const shown = renderError(aws, requestedFormat(rest));
      process.stderr.write(shown.stderr);
      if (shown.stdout !== "") process.stdout.write(shown.stdout);
      return exitCodeOfError(aws);
    }
    throw error;
  }
}

process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  // A closed pipe (`| head`) is the reader's choice, not our failure.
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
