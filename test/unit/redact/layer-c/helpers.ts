/** Helpers of the Layer C tests: run `redactFile` over bytes and read the copy back. */
import {
  decodeUtf8,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  readJson,
} from "#shared/canonical/index.js";
import { REPLAY_EVENT_FIELDS } from "#shared/formats/index.js";
import type { CheckedOptions } from "#shared/redact/checked.js";
import {
  Context,
  inspectRedactTask,
  type LayerCSummary,
  type Preset,
  redactChecked,
  redactReplayEvent,
  Scrubber,
} from "#shared/redact/index.js";
import { RPK_MASK } from "#shared/redact/layer-c/documents.js";
import { isStructuralKey, UNKNOWN_EVENT_ALLOW } from "#shared/redact/layer-c/policy.js";

/** The presets, in the order ADR-0016 lists them. */
export const ALL_PRESETS: Preset[] = ["open_source", "private_repo", "paranoid"];

/**
 * The Layer C copy of `input` as text, with its summary, as `redact` makes it (inspected on the
 * way; these tests are about the transform, so a failed or invalid input is copied unless
 * `allowUnverified: false` is given).
 */
export async function redactBytes(
  input: string | Buffer,
  options: Partial<CheckedOptions> = {},
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
  const result = redactChecked(source(), {
    task: inspectRedactTask,
    file: "input",
    allowUnverified: true,
    ...options,
  });
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

/** `sha256:` followed by 64 times `c`. */
export const fakeHash = (c: string): string => `sha256:${c.repeat(64)}`;

/**
 * Where a `.rpk` copy's raw content (`copy`, a step's input or output) is not the original's masked
 * in place (`redactReplaykit`): every array keeps its length and every object its members (a member
 * whose name was scrubbed is not compared, since its name changed; scrubbed names may coincide), null
 * and booleans stay, and every other string or number is `RPK_MASK` unless its member is a name Layer
 * C keeps (structural, or the preset's allow-list). Returns the paths that break this; empty when
 * none does.
 */
export function unmaskedPaths(
  original: JsonValue,
  copy: JsonValue | undefined,
  preset: Preset,
  key: string,
  path = "$",
): string[] {
  if (Array.isArray(original)) {
    if (!Array.isArray(copy) || copy.length !== original.length) return [`${path}: array changed`];
    return original.flatMap((v, i) => unmaskedPaths(v, copy[i], preset, key, `${path}[${i}]`));
  }
  if (isJsonObject(original)) {
    if (!isJsonObject(copy) || Object.keys(copy).length > Object.keys(original).length)
      return [`${path}: object changed`];
    return Object.entries(original).flatMap(([k, v]) =>
      Object.hasOwn(copy, k) ? unmaskedPaths(v, copy[k], preset, k, `${path}.${k}`) : [],
    );
  }
  if (original === null || typeof original === "boolean")
    return copy === original ? [] : [`${path}: changed`];
  if (isStructuralKey(key) || UNKNOWN_EVENT_ALLOW[preset].has(key)) return [];
  return copy === RPK_MASK ? [] : [`${path}: ${JSON.stringify(copy)} is not masked`];
}

/**
 * The Layer C copy (`private_repo`) of the `error` of a failed ToolResult whose error is
 * `{ message: "Command failed", ...details }`: free content Layer C keeps and scrubs.
 */
export function copyOfError(details: JsonObject): JsonObject {
  const ctx = new Context("private_repo", new Scrubber({ preset: "private_repo" }));
  const event = {
    type: "ToolResult",
    ts: "2026-01-01T00:00:00Z",
    session_id: "sess_1",
    step_id: "step_1",
    ok: false,
    latency_ms: 5,
    side_effects: [],
    error: { message: "Command failed", ...details },
  };
  const copy = redactReplayEvent(
    readJson(JSON.stringify(event)) as JsonObject,
    ctx,
    REPLAY_EVENT_FIELDS["replay-v1"],
  );
  return JSON.parse(JSON.stringify(copy)).error as JsonObject;
}

export { stringsOf } from "../../../../bench/secret-recall.js";
