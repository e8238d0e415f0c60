import { type ParseArgsConfig, parseArgs } from "node:util";
import { isProfile, PROFILES, type Profile } from "#shared/canonical/index.js";
import { UsageError } from "./errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** `util.parseArgs` in strict mode, with its errors turned into `UsageError`s naming the command. */
export function parseCommandArgs<T extends Options>(command: string, argv: string[], options: T) {
  try {
    return parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
}

/** Validates `--profile`; defaults to `jcs`. */
export function profileOption(command: string, value: string | undefined): Profile {
  if (value === undefined) return "jcs";
  if (!isProfile(value))
    throw new UsageError(`${command}: unknown profile '${value}'; expected one of ${PROFILES.join(", ")}`);
  return value;
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
