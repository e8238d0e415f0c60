/** Comparing two sessions of any formats, Layer C copies included: alignment, comparison, output. */
export { diffSessions } from "./compare.js";
export { diffHtml, diffText } from "./render.js";
