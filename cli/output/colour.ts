/** ANSI colour for terminal output: only on a terminal, never with NO_COLOR (no-color.org). */

/** The styles the renderers use. */
type Style = "red" | "yellow" | "green" | "cyan" | "bold" | "dim";

const SGR: Record<Style, [number, number]> = {
  red: [31, 39],
  yellow: [33, 39],
  green: [32, 39],
  cyan: [36, 39],
  bold: [1, 22],
  dim: [2, 22],
};

/** Applies a style, or returns the text unchanged when colour is off. */
export type Paint = (style: Style, text: string) => string;

/** No colour. */
export const plain: Paint = (_style, text) => text;

/**
 * Whether to colour what goes to `stream`: a TTY whose terminal has colours, and NO_COLOR unset or
 * empty (no-color.org: "when present and not an empty string"). `hasColors()` also honours
 * FORCE_COLOR and TERM=dumb; a pipe or a file never gets colour.
 */
function wantsColour(
  stream: { isTTY?: boolean; hasColors?: () => boolean },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return stream.isTTY === true && (stream.hasColors?.() ?? false);
}

/** The painter for `stream`. */
export function painterFor(stream: { isTTY?: boolean; hasColors?: () => boolean }): Paint {
  if (!wantsColour(stream)) return plain;
  return (style, text) => {
    const [on, off] = SGR[style];
    return `\u001b[${on}m${text}\u001b[${off}m`;
  };
}
