/**
 * What every command's output obeys, set once from the common flags when the command line is
 * parsed: `--quiet` (only errors: no summaries, notes or warnings). One process runs one command,
 * so this is process-wide on purpose.
 */
const state = { quiet: false };

/** Sets the common output flags (called by `parseCommandArgs`). */
export function configureOutput(flags: { quiet?: boolean }): void {
  state.quiet = flags.quiet === true;
}

/** True with `--quiet`. */
export function isQuiet(): boolean {
  return state.quiet;
}

/** A warning on standard error (`replay-pipeline <command>: warning: …`), unless `--quiet`. */
export function warn(command: string, text: string): void {
  if (!state.quiet) process.stderr.write(`replay-pipeline ${command}: warning: ${text}\n`);
}
