import { type ParseArgsConfig, parseArgs } from "node:util";
import { isProfile, PROFILES, type Profile } from "#shared/canonical/index.js";
import { UsageError } from "./errors.js";
import { configureProgress } from "./progress.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * `util.parseArgs` in strict mode, with its errors turned into `UsageError`s naming the command.
 * Every command takes `-h/--help` and `-q/--quiet` (no progress line, no skip notices).
 */
export function parseCommandArgs<T extends Options>(command: string, argv: string[], options: T) {
  let parsed: ReturnType<typeof parse<T>>;
  try {
    parsed = parse(argv, options);
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
  configureProgress((parsed.values as { quiet?: boolean }).quiet === true);
  return parsed;
}

function parse<T extends Options>(argv: string[], options: T) {
  return parseArgs({
    args: argv,
    options: { ...options, help: { type: "boolean", short: "h" }, quiet: { type: "boolean", short: "q" } },
    allowPositionals: true,
    strict: true,
  });
}

/** Validates `--profile`; defaults to `jcs`. */
export function profileOption(command: string, value: string | undefined): Profile {
  if (value === undefined) return "jcs";
  if (!isProfile(value))
    throw new UsageError(`${command}: unknown profile '${value}'; expected one of ${PROFILES.join(", ")}`);
  return value;
}

/** The input files and folders (at least one); `-` is standard input. */
export function inputPaths(command: string, positionals: string[]): string[] {
  if (positionals.length === 0)
    throw new UsageError(
      `${command}: expected at least one input file or folder (or - for standard input), got none`,
    );
  return positionals;
}

/** Exactly one positional argument, the input file. */
export function singleFile(command: string, positionals: string[]): string {
  if (positionals.length !== 1) {
    throw new UsageError(
      `${command}: expected exactly one input file (or - for standard input), got ${positionals.length}`,
    );
  }
  return positionals[0] as string;
}

/** Parses a positive integer option such as `--max-depth`. */
export function intOption(
  command: string,
  name: string,
  value: string | undefined,
  min = 1,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min)
    throw new UsageError(
      `${command}: --${name} expects ${min === 1 ? "a positive integer" : `an integer of at least ${min}`}, got '${value}'`,
    );
  return n;
}
