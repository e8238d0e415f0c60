import { ReplayPipelineError } from "#shared/errors.js";
import { closest } from "./args.js";
import { CANON_HELP, canonCommand } from "./commands/canon.js";
import { EXPORT_HELP, exportCommand } from "./commands/export.js";
import { HASH_HELP, hashCommand } from "./commands/hash.js";
import { INSPECT_HELP, inspectCommand } from "./commands/inspect.js";
import { PROCESS_HELP, processCommand } from "./commands/process.js";
import { RECEIPT_HELP, receiptCommand } from "./commands/receipt.js";
import { REDACT_HELP, redactCommand } from "./commands/redact.js";
import {
  PULL_HELP,
  PUSH_HELP,
  pullCommand,
  pushCommand,
  SESSIONS_HELP,
  SHOW_HELP,
  sessionsCommand,
  showCommand,
} from "./commands/remote.js";
import { REPORT_HELP, reportCommand } from "./commands/report.js";
import { SCAN_HELP, scanCommand } from "./commands/scan.js";
import { START_HELP, startCommand } from "./commands/start.js";
import { VERIFY_HELP, verifyCommand } from "./commands/verify.js";
import { VERIFY_ATTESTATION_HELP, verifyAttestationCommand } from "./commands/verify-attestation.js";
import { UsageError } from "./errors.js";
import { toolVersion } from "./io.js";
import { exitCodeOfError, renderError, requestedFormat } from "./output/index.js";

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<number>; help: string; summary: string }> =
  {
    canon: {
      run: canonCommand,
      help: CANON_HELP,
      summary: "print a JSON file's canonical form (jcs, openagents, replaykit)",
    },
    export: {
      run: exportCommand,
      help: EXPORT_HELP,
      summary: "convert a ReplayBundle to REPLAY.jsonl v1 and print its replay_hash",
    },
    hash: {
      run: hashCommand,
      help: HASH_HELP,
      summary: "print sha256 of a file's canonical form or raw bytes",
    },
    inspect: {
      run: inspectCommand,
      help: INSPECT_HELP,
      summary: "validate a replay file, recompute its hashes, print a verdict",
    },
    process: {
      run: processCommand,
      help: PROCESS_HELP,
      summary: "run the pipeline's whole per-file job on files, writing under an output folder",
    },
    receipt: {
      run: receiptCommand,
      help: RECEIPT_HELP,
      summary: "write an openagents.receipt.v1 RECEIPT.json for a replay",
    },
    verify: {
      run: verifyCommand,
      help: VERIFY_HELP,
      summary: "check a replay against its RECEIPT.json",
    },
    "verify-attestation": {
      run: verifyAttestationCommand,
      help: VERIFY_ATTESTATION_HELP,
      summary: "check a verdict attestation (--attest, or the pipeline's): signature, subject, result",
    },
    redact: {
      run: redactCommand,
      help: REDACT_HELP,
      summary: "write a Layer C copy (raw content removed, secrets scrubbed) safe to publish",
    },
    report: {
      run: reportCommand,
      help: REPORT_HELP,
      summary: "build the audit report of a period from the index (json, md or html)",
    },
    scan: {
      run: scanCommand,
      help: SCAN_HELP,
      summary: "inspect and hash every replay file in folders and files (default: examples)",
    },
    push: {
      run: pushCommand,
      help: PUSH_HELP,
      summary: "upload files to the pipeline; --wait exits with their worst verdict (for CI)",
    },
    sessions: {
      run: sessionsCommand,
      help: SESSIONS_HELP,
      summary: "list a tenant's sessions and worst verdicts",
    },
    show: {
      run: showCommand,
      help: SHOW_HELP,
      summary: "a session's files, verdicts, receipt checks, Layer C keys",
    },
    pull: { run: pullCommand, help: PULL_HELP, summary: "download a file's published Layer C copy" },
    start: {
      run: startCommand,
      help: START_HELP,
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
      process.stdout.write(`${topic !== undefined && COMMANDS[topic] ? COMMANDS[topic].help : MAIN_HELP}\n`);
      return command === undefined ? 2 : 0;
    }
    if (command === "--version" || command === "-V" || command === "-v" || asksVersion(rest)) {
      process.stdout.write(`replay-pipeline ${toolVersion()}\n`);
      return 0;
    }
    const entry = COMMANDS[command];
    if (entry === undefined) {
      const close = closest(command, Object.keys(COMMANDS));
      throw new UsageError(
        `unknown command '${command}'${close === null ? "" : `; did you mean '${close}'?`} (expected one of ${Object.keys(COMMANDS).join(", ")})`,
      );
    }
    return await entry.run(rest);
  } catch (error) {
    if (error instanceof ReplayPipelineError) {
      const shown = renderError(error, requestedFormat(rest));
      process.stderr.write(shown.stderr);
      if (shown.stdout !== "") process.stdout.write(shown.stdout);
      return exitCodeOfError(error);
    }
    if ((error as NodeJS.ErrnoException | undefined)?.code === "EPIPE") return 0;
    throw error;
  }
}

process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  // A closed pipe (`| head`) is the reader's choice, not our failure.
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
