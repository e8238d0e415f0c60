import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  canonicalHash,
  decodeUtf8,
  isJsonObject,
  type JsonObject,
  type JsonValue,
  readJson,
} from "../../../shared/canonical/index.js";
import { inspect } from "../../../shared/formats/inspect.js";
import { corpusBytes } from "../../support/corpus.js";
import { ALL_PRESETS, redactBytes } from "./layer-c.helpers.js";

const read = (text: string): JsonObject =>
  readJson(decodeUtf8(Buffer.from(text)), { rejectLoneSurrogates: false }) as JsonObject;

async function report(text: string) {
  return (await inspect(Readable.from([Buffer.from(text)]), { file: "copy" })).report;
}

function steps(doc: JsonObject): JsonObject[] {
  const run = (doc.payload as JsonObject).run as JsonObject;
  return run.steps as JsonObject[];
}

describe("ReplayKit .rpk", () => {
  const original = corpusBytes("replaykit", "runs", "m5_source_unredacted.rpk");
  const source = read(original.toString("utf8"));

  it("keeps original step hashes, nulls step input/output with their hashes beside", async () => {
    const { text, summary } = await redactBytes(original);
    const copy = read(text);
    const before = steps(source);
    const after = steps(copy);
    expect(after).toHaveLength(before.length);
    after.forEach((step, i) => {
      const from = before[i] as JsonObject;
      expect(step.hash).toBe(from.hash);
      expect(step.id).toBe(from.id);
      expect(step.input).toBeNull();
      expect(step.output).toBeNull();
      expect(step.input_hash).toBe(canonicalHash(from.input as JsonValue, "replaykit"));
      expect(step.output_hash).toBe(canonicalHash(from.output as JsonValue, "replaykit"));
    });
    expect(summary.step_hashes).toBe("original");
    expect(summary.events).toBe(before.length);
    for (const secret of ["4111 1111 1111 1111", "sk-supersecretkey111111", "session=abcd1234"])
      expect(text).not.toContain(secret);
  });

  it("records the summary in metadata.redaction and recomputes a checksum inspect accepts", async () => {
    for (const preset of ALL_PRESETS) {
      const { text, summary } = await redactBytes(original, { preset });
      const copy = read(text);
      const metadata = copy.metadata as JsonObject;
      expect(JSON.parse(JSON.stringify(metadata.redaction))).toEqual(summary);
      expect(metadata.run_id).toBe((source.metadata as JsonObject).run_id);
      expect(copy.checksum).toBe(
        canonicalHash(
          { version: copy.version ?? null, metadata, payload: copy.payload ?? null },
          "replaykit",
        ),
      );
      const r = await report(text);
      expect(r.format).toBe("replaykit-rpk");
      expect(r.verdict).not.toBe("invalid");
      expect(r.checks.find((c) => c.check === "checksum")?.status).toBe("passed");
    }
  });

  it("removes a signature, which covered the unredacted content", async () => {
    const signed = {
      ...source,
      signature: { algorithm: "hmac-sha256", key_id: "k", value: `hmac-sha256:${"a".repeat(64)}` },
    };
    const { text, summary } = await redactBytes(JSON.stringify(signed));
    expect(read(text).signature).toBeUndefined();
    expect(summary.signature).toBe("removed");
    expect(summary.by_rule["layer_c.signature_removed"]).toBe(1);
  });

  it("paranoid keeps only structural step metadata and empties free-form run objects", async () => {
    const { text } = await redactBytes(original, { preset: "paranoid" });
    const copy = read(text);
    const run = (copy.payload as JsonObject).run as JsonObject;
    expect(run.environment_fingerprint).toEqual({});
    for (const step of steps(copy)) {
      for (const key of Object.keys(step.metadata as JsonObject)) expect(["redaction"]).not.toContain(key);
      expect((step.metadata as JsonObject).secret).toBeUndefined();
    }
    expect(text).not.toContain("alice@example.com");
  });

  it("scrubs the home directory out of environment_fingerprint.cwd", async () => {
    const { text } = await redactBytes(original, { preset: "private_repo" });
    expect(text).not.toContain("/Users/alice");
  });
});

describe("ReplayBundle", () => {
  const original = corpusBytes("openagents", "replaybundle-sample.json");
  const source = read(original.toString("utf8"));

  it("replaces data.input and data.result with the hashes the reader computes", async () => {
    const { text, summary } = await redactBytes(original);
    const copy = read(text);
    const before = source.timeline as JsonObject[];
    const after = copy.timeline as JsonObject[];
    expect(after.map((e) => e.type)).toEqual(before.map((e) => e.type));
    expect(after.map((e) => JSON.stringify(e.t))).toEqual(before.map((e) => JSON.stringify(e.t)));
    const sourceReport = await inspect(Readable.from([original]), { file: "bundle" });
    const calls = sourceReport.session?.tool_calls ?? [];
    const callData = after.filter((e) => e.type === "tool_call").map((e) => e.data as JsonObject);
    const resultData = after.filter((e) => e.type === "tool_result").map((e) => e.data as JsonObject);
    expect(callData.map((d) => d.input_hash)).toEqual(calls.map((c) => c.params_hash));
    expect(resultData.map((d) => d.result_hash)).toEqual(calls.map((c) => c.output_hash));
    for (const d of [...callData, ...resultData]) {
      expect(d.input).toBeUndefined();
      expect(d.result).toBeUndefined();
    }
    expect(text).not.toContain("println");
    expect(summary.format).toBe("replay-bundle");
    expect(JSON.parse(JSON.stringify((copy.metadata as JsonObject).redaction))).toEqual(summary);
  });

  it("reads back under every preset and fails closed on unknown entry types", async () => {
    const doc = JSON.parse(original.toString("utf8")) as { timeline: unknown[]; extra?: string };
    doc.timeline.push({ t: 20000, type: "mystery", data: { secret: "classified", status: "done" } });
    doc.extra = "top-level unknown";
    for (const preset of ALL_PRESETS) {
      const { text } = await redactBytes(JSON.stringify(doc), { preset });
      const copy = read(text);
      const last = (copy.timeline as JsonObject[]).at(-1) as JsonObject;
      expect(last.data).toEqual({ status: "done" });
      // open_source keeps unknown scalar members of known objects (scrubbed); the others drop them.
      if (preset === "open_source") expect(copy.extra).toBe("top-level unknown");
      else expect(copy.extra).toBeUndefined();
      const r = await report(text);
      expect(r.verdict, JSON.stringify(r.errors)).not.toBe("invalid");
    }
  });
});

describe("redact CLI", () => {
  it("writes the copy to -o and the summary with --json", async () => {
    const { redactCommand } = await import("../../../cli/commands/redact.js");
    const dir = await mkdtemp(join(tmpdir(), "redact-cli-"));
    try {
      const input = join(dir, "run.rpk");
      const out = join(dir, "run.layer-c.rpk");
      await writeFile(input, corpusBytes("replaykit", "runs", "minimal_v1.rpk"));
      await expect(redactCommand([input, "-o", input])).rejects.toMatchObject({ code: "cli.usage" });
      await expect(redactCommand([input, "--preset", "nope"])).rejects.toMatchObject({ code: "cli.usage" });
      const written: string[] = [];
      const write = process.stdout.write.bind(process.stdout);
      process.stdout.write = ((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      }) as typeof process.stdout.write;
      try {
        expect(await redactCommand([input, "-o", out, "--preset", "paranoid", "--json"])).toBe(0);
      } finally {
        process.stdout.write = write;
      }
      const summary = JSON.parse(written.join("")) as { preset: string; layer: string };
      expect(summary).toMatchObject({ preset: "paranoid", layer: "C" });
      const copy = read(await readFile(out, "utf8"));
      expect(isJsonObject((copy.metadata as JsonObject).redaction)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
