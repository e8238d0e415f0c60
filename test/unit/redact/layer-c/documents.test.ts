import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { decodeUtf8, isJsonObject, type JsonObject, readJson } from "#shared/canonical/index.js";
import { inspect } from "#shared/formats/index.js";
import { computeChecksum, computeStepHash, stepContent } from "#shared/formats/replaykit/index.js";
import { RPK_MASK, RPK_REDACTION_POLICY_VERSION } from "#shared/redact/layer-c/documents.js";
import { corpusBytes } from "../../../support/corpus.js";
import { tempDir } from "../../../support/temp.js";
import { ALL_PRESETS, redactBytes } from "./helpers.js";

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
  const SECRETS = [
    "4111 1111 1111 1111",
    "sk-supersecretkey111111",
    "AKIAIOSFODNN7EXAMPLE",
    "sk-sensitive-body-token-12345",
    "session=abcd1234",
    "customer@example.com",
    '"shh"',
  ];

  it("masks step input/output in place with ReplayKit's mask and recomputes each step hash", async () => {
    const { text } = await redactBytes(original);
    const copy = read(text);
    const before = steps(source);
    const after = steps(copy);
    expect(after.map((s) => s.id)).toEqual(before.map((s) => s.id));
    const [request, response] = after as [JsonObject, JsonObject];
    // Every raw value is masked, not only sensitive names and patterns as ReplayKit's default policy
    // does: Layer C publishes no raw content (ADR-0017).
    expect(request.input).toEqual({
      body: { card_number: RPK_MASK, email: RPK_MASK, token: RPK_MASK },
      headers: { Authorization: RPK_MASK, "X-Api-Key": RPK_MASK },
      method: RPK_MASK,
      url: RPK_MASK,
    });
    // Statuses and booleans stay: a mask would read as content (`ok: "[REDACTED]"`).
    expect(request.output).toEqual({ status: "sent" });
    expect(JSON.parse(JSON.stringify(response.output))).toEqual({
      body: { ok: true, receipt_email: RPK_MASK },
      headers: { "Set-Cookie": RPK_MASK },
      status_code: RPK_MASK,
    });
    after.forEach((step, i) => {
      expect(step.hash).toBe(computeStepHash(stepContent(step, false)));
      expect(step.hash).not.toBe((before[i] as JsonObject).hash);
      expect(Object.keys(step).sort()).toEqual(Object.keys(before[i] as JsonObject).sort());
    });
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  });

  it("records the original hashes and ReplayKit's bundle markers; the copy inspects as passed", async () => {
    for (const preset of ALL_PRESETS) {
      const { text, summary } = await redactBytes(original, { preset });
      const copy = read(text);
      const metadata = copy.metadata as JsonObject;
      expect(JSON.parse(JSON.stringify(metadata.redaction))).toEqual(summary);
      expect(summary.original).toMatchObject({
        checksum: source.checksum,
        step_hashes: steps(source).map((s) => s.hash),
      });
      expect(summary.signature).toBeUndefined();
      expect(metadata).toMatchObject({
        run_id: (source.metadata as JsonObject).run_id,
        bundle: true,
        source_run_id: "run-m5-source-001",
        redaction_profile: preset,
        redaction_policy_version: RPK_REDACTION_POLICY_VERSION,
      });
      expect(copy.checksum).toBe(computeChecksum(copy.version ?? null, metadata, copy.payload ?? null));
      const r = await report(text);
      expect(r.verdict, JSON.stringify(r.errors)).toBe("passed");
      expect(r.notices.map((n) => n.code)).toEqual(["rpk.bundle", "rpk.layer_c", "layer_c.copy"]);
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    }
  });

  it("drops a signature, which covered the unredacted content, and records that", async () => {
    const signed = {
      ...source,
      signature: { algorithm: "hmac-sha256", key_id: "k", value: `hmac-sha256:${"a".repeat(64)}` },
    };
    const { text, summary } = await redactBytes(JSON.stringify(signed));
    expect(read(text).signature).toBeUndefined();
    expect(summary.signature).toBe("removed");
    expect(summary.by_rule["layer_c.signature_removed"]).toBe(1);
    // Nothing is left that needs a key: no unverifiable signature row.
    expect((await report(text)).verdict).toBe("passed");
  });

  it("paranoid masks every free-form value in place, keeping names, ids, types, statuses and timestamps", async () => {
    const { text } = await redactBytes(original, { preset: "paranoid" });
    const copy = read(text);
    const run = (copy.payload as JsonObject).run as JsonObject;
    expect(run.environment_fingerprint).toEqual({ cwd: RPK_MASK, os: RPK_MASK, owner_email: RPK_MASK });
    expect(run.runtime_versions).toEqual({ python: RPK_MASK, replaykit: RPK_MASK });
    expect(run.timestamp).toBe("2026-02-21T20:00:00.000000Z");
    for (const step of steps(copy)) {
      for (const value of Object.values(step.metadata as JsonObject)) expect(value).toBe(RPK_MASK);
    }
    expect((steps(copy)[0] as JsonObject).output).toEqual({ status: "sent" });
    expect((await report(text)).verdict).toBe("passed");
  });

  it("scrubs the home directory out of environment_fingerprint.cwd", async () => {
    const { text } = await redactBytes(original, { preset: "private_repo" });
    expect(text).not.toContain("/Users/alice");
    expect(text).toContain('"cwd":"~/replaykit"');
    // An e-mail in free-form metadata is personal data for private_repo (open_source keeps it).
    expect(text).not.toContain("alice@example.com");
  });

  it("drops an unknown raw-named step member whole and masks a step that is not an object", async () => {
    const doc = JSON.parse(original.toString("utf8"));
    doc.payload.run.steps[0].content = "leaked prompt text";
    doc.payload.run.steps.push("sk-proj-stray-step-text");
    const { text, summary } = await redactBytes(JSON.stringify(doc));
    const after = steps(read(text));
    expect(after[0]?.content).toBeUndefined();
    expect(after[0]?.content_hash).toBeUndefined();
    expect(after[2]).toBe(RPK_MASK);
    expect(summary.original?.step_hashes).toEqual([...steps(source).map((s) => s.hash), null]);
    expect(text).not.toContain("leaked prompt text");
    expect(text).not.toContain("stray-step");
  });

  it("reports a value ReplayKit cannot hash at its path in the file", async () => {
    const doc = JSON.parse(original.toString("utf8"));
    doc.payload.run.steps[1].metadata.started_at = "0001-01-01T00:30:00+01:00";
    await expect(redactBytes(JSON.stringify(doc))).rejects.toMatchObject({
      code: "canonical.timestamp_range",
      location: { path: "$.payload.run.steps[1].metadata.started_at" },
    });
  });

  it("a 0.9 artifact keeps its layout; request/response masked, step_hash and checksum recomputed", async () => {
    const legacyStep = (id: string, request: unknown, response: unknown): Record<string, unknown> => {
      const step = { id, type: "model.request", request, response, metadata: { provider: "p" } };
      const hash = computeStepHash(stepContent(read(JSON.stringify(step)), true));
      return { ...step, step_hash: hash };
    };
    const run = { id: "l", timestamp: "t", steps: [legacyStep("a", { prompt: "plan" }, { text: "answer" })] };
    const doc: Record<string, unknown> = { version: "0.9", metadata: { run_id: "l" }, payload: { run } };
    const value = read(JSON.stringify(doc));
    doc.checksum = computeChecksum(value.version ?? null, value.metadata ?? null, value.payload ?? null);
    const { text } = await redactBytes(JSON.stringify(doc));
    const copy = read(text);
    expect(copy.version).toBe("0.9");
    const [step] = steps(copy) as [JsonObject];
    expect(step.request).toEqual({ prompt: RPK_MASK });
    expect(step.response).toEqual({ text: RPK_MASK });
    expect(step.hash).toBeUndefined();
    expect(step.step_hash).toBe(computeStepHash(stepContent(step, true)));
    const r = await report(text);
    expect(r.errors).toEqual([]);
    expect(r.checks_total).toEqual({ passed: 2, failed: 0, unverifiable: 0 });
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
    const { redactCommand } = await import("../../../../cli/commands/redact.js");
    const dir = tempDir("redact-cli-");
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
