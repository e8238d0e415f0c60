import { type ParseArgsConfig, parseArgs } from "node:util";
import { isProfile, PROFILES, type Profile } from "#shared/canonical/index.js";
import { UsageError } from "./errors.js";
import { configureOutput } from "./output/settings.js";
import { configureProgress } from "./progress.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The flags every command takes (`--version` is answered by `main` before the command runs). */
const COMMON_OPTIONS = {
  help: { type: "boolean", short: "h" },
  quiet: { type: "boolean", short: "q" },
  version: { type: "boolean", short: "V" },
} as const;

/**
 * `util.parseArgs` in strict mode plus the common flags, with its errors turned into one-line
 * `UsageError`s naming the command (an unknown option also names the closest valid one).
 */
export function parseCommandArgs<T extends Options>(command: string, argv: string[], options: T) {
  const all = { ...options, ...COMMON_OPTIONS };
  try {
    const parsed = parseArgs({ args: argv, options: all, allowPositionals: true, strict: true });
    const quiet = (parsed.values as { quiet?: boolean }).quiet === true;
    configureOutput({ quiet });
    configureProgress(quiet);
    return parsed;
  } catch (error) {
    throw new UsageError(`${command}: ${usageMessage(error as Error & { code?: string }, all)}`);
  }
}

/** A parseArgs error as one clean sentence. */
function usageMessage(error: Error & { code?: string }, options: Options): string {
  const unknown = /^Unknown option '([^']+)'/.exec(error.message);
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown !== null) {
    const given = unknown[1] as string;
    const names = Object.entries(options).flatMap(([name, o]) => [
      `--${name}`,
      ...(o.short === undefined ? [] : [`-${o.short}`]),
    ]);
    const close = closest(given.split("=")[0] as string, names);
    return `unknown option '${given}'${close === null ? "" : `; did you mean '${close}'?`} (--help lists the options)`;
  }
  const missing = /^Option '([^']+?)(?: <value>)?' argument missing/.exec(error.message);
  if (missing !== null) return `option '${missing[1]}' expects a value`;
  // Node's other messages are already one sentence; drop its advice about `--`.
  return error.message.split(". To specify")[0] as string;
}

/** The candidate nearest to `given` by edit distance, if near enough to be a typo. */
export function closest(given: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const d = editDistance(given, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(given.length / 3)) ? best : null;
}

/** Levenshtein distance (a dozen options: no library needed for two short strings). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current.push(
        Math.min(
          (previous[j] as number) + 1,
          (current[j - 1] as number) + 1,
          (previous[j - 1] as number) + cost,
        ),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
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
