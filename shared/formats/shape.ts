/**
 * What a file's first readable line says the content is: the one detection both readers of a
 * file share (`inspect`'s front end, and Layer C's writer through it or through `redactFile`).
 */
import { decodeUtf8, type JsonValue, readJson } from "../canonical/index.js";
import { ReplayPipelineError } from "../errors.js";
import { detectFormat, readerFor } from "./registry.js";
import type { ContentShape } from "./types.js";

/** The shape `bytes`, a file's first readable line, gives its content. */
export function contentShape(bytes: Buffer): ContentShape {
  let value: JsonValue;
  try {
    value = readJson(decodeUtf8(bytes));
  } catch (error) {
    if (!(error instanceof ReplayPipelineError)) throw error;
    const text = bytes.toString("utf8").trim();
    return text === "{" || text === "[" ? { kind: "document" } : { kind: "unreadable", error };
  }
  const format = detectFormat(value);
  if (format === null) return { kind: "unknown", value };
  return readerFor(format).kind === "document"
    ? { kind: "one-line-document", format, value }
    : { kind: "lines", format, value };
}
