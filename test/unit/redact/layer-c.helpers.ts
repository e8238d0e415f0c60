/** Helpers of the Layer C tests: run `redactFile` over bytes and read the copy back. */
import {
  decodeUtf8,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  readJson,
} from "../../../shared/canonical/index.js";
import { type LayerCOptions, type LayerCSummary, redactFile } from "../../../shared/redact/layer-c.js";
import type { Preset } from "../../../shared/redact/presets.js";

/** The presets, in the order ADR-0016 lists them. */
export const ALL_PRESETS: Preset[] = ["open_source", "private_repo", "paranoid"];

/** The Layer C copy of `input` as text, with its summary. */
export async function redactBytes(
  input: string | Buffer,
  options: Partial<LayerCOptions> = {},
  chunkSize = 0,
): Promise<{ text: string; summary: LayerCSummary }> {
  const bytes = typeof input === "string" ? Buffer.from(input) : input;
  async function* source(): AsyncGenerator<Uint8Array> {
    if (chunkSize <= 0) {
      yield bytes;
      return;
    }
    for (let i = 0; i < bytes.length; i += chunkSize) yield bytes.subarray(i, i + chunkSize);
  }
  const result = redactFile(source(), { file: "input", ...options });
  const parts: Buffer[] = [];
  for await (const chunk of result.chunks) parts.push(Buffer.from(chunk));
  return { text: Buffer.concat(parts).toString("utf8"), summary: result.summary() };
}

/** Each output line parsed. */
export function parseLines(text: string): JsonObject[] {
  return text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => readJson(decodeUtf8(Buffer.from(l))) as JsonObject);
}

/** An async byte source of a buffer. */
export async function* bytesOf(buffer: Buffer): AsyncGenerator<Uint8Array> {
  yield buffer;
}

/** `sha256:` followed by 64 times `c`. */
export const fakeHash = (c: string): string => `sha256:${c.repeat(64)}`;

/** Every string value and member name of `v`, in document order. */
export function stringsOf(v: JsonValue, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out);
  else if (isJsonObject(v))
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      stringsOf(x, out);
    }
  return out;
}
