import { describe, expect, it } from "vitest";
import {
  canonicalDocument,
  canonicalHash,
  canonicalize,
  isJsonObject,
  type JsonValue,
  readJson,
  sha256Tag,
} from "#shared/canonical/index.js";
import { corpusBytes, corpusList, corpusText } from "../support/corpus.js";

function obj(value: JsonValue | undefined): Record<string, JsonValue> {
  if (!isJsonObject(value)) throw new Error("expected an object");
  return value;
}

function arr(value: JsonValue | undefined): JsonValue[] {
  if (!Array.isArray(value)) throw new Error("expected an array");
  return value;
}

function str(value: JsonValue | undefined): string {
  if (typeof value !== "string") throw new Error("expected a string");
  return value;
}

describe("RFC 8785 vectors (cyberphone/json-canonicalization)", () => {
  const names = corpusList("rfc8785", "input");
  it("has the six vectors", () => {
    expect(names).toEqual([
      "arrays.json",
      "french.json",
      "structures.json",
      "unicode.json",
      "values.json",
      "weird.json",
    ]);
  });
  it.each(names)("%s canonicalizes byte-exactly to output/ and outhex/", (name) => {
    const out = canonicalize(readJson(corpusText("rfc8785", "input", name)), "jcs");
    const bytes = Buffer.from(out, "utf8");
    expect(bytes.equals(corpusBytes("rfc8785", "output", name))).toBe(true);
    const hex = corpusText("rfc8785", "outhex", name.replace(/\.json$/, ".txt"))
      .trim()
      .split(/\s+/)
      .join("");
    expect(bytes.toString("hex")).toBe(hex.toLowerCase());
    // The byte fast path (what the CLI runs) must agree.
    expect(canonicalDocument(corpusBytes("rfc8785", "input", name), "jcs").equals(bytes)).toBe(true);
  });
});

describe("ES6 number serialization (es6_numbers_first1000.txt)", () => {
  const lines = corpusText("rfc8785", "es6_numbers_first1000.txt")
    .split("\n")
    .filter((l) => l !== "");
  it("has 1000 lines", () => expect(lines).toHaveLength(1000));
  it("prints every IEEE-754 value as expected", () => {
    const view = new DataView(new ArrayBuffer(8));
    const wrong: string[] = [];
    for (const line of lines) {
      const [hex, expected] = line.split(",") as [string, string];
      view.setBigUint64(0, BigInt(`0x${hex}`));
      const value = view.getFloat64(0);
      // Written with 17 significant digits, not the shortest form, so the serializer must find it.
      const text = Number.isFinite(value) ? value.toExponential(16) : String(value);
      const got = canonicalize(readJson(`[${text}]`), "jcs").slice(1, -1);
      if (got !== expected) wrong.push(`${hex}: got ${got}, expected ${expected}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe("OpenAgents khala payload hash vectors", () => {
  const file = obj(readJson(corpusText("openagents", "khala_payload_hash_vectors.v1.json")));
  const vectors = arr(file.vectors);
  it("has five vectors", () => expect(vectors).toHaveLength(5));
  it.each(vectors.map((v) => [str(obj(v).name), obj(v)] as const))("%s", (_name, vector) => {
    const canonical = canonicalize(vector.payload as JsonValue, "openagents");
    expect(canonical).toBe(str(vector.canonical_json));
    expect(sha256Tag(canonical)).toBe(str(vector.sha256));
    const fast = canonicalDocument(Buffer.from(JSON.stringify(vector.payload)), "openagents");
    expect(fast.toString("utf8")).toBe(str(vector.canonical_json));
  });
});

describe("OpenAgents runtime histories and their REPLAY.jsonl files", () => {
  const fixtures = arr(
    obj(readJson(corpusText("openagents", "run_workflow_histories_v1.type-ts.json"))).fixtures,
  ).map(obj);
  const replays = corpusList("openagents", "replays-type-ts");
  it("has a replay for each of the three fixtures", () => {
    expect(replays).toEqual(fixtures.map((f) => `${str(f.id)}.REPLAY.jsonl`).sort());
  });

  it.each(fixtures.map((f) => [str(f.id), f] as const))(
    "%s: replay_hash is the raw bytes' sha256",
    (id, fixture) => {
      expect(sha256Tag(corpusBytes("openagents", "replays-type-ts", `${id}.REPLAY.jsonl`))).toBe(
        str(obj(fixture.expected).replay_hash),
      );
    },
  );

  it.each(fixtures.map((f) => [str(f.id), f] as const))(
    "%s: trajectory_hash recomputed from the events",
    (_id, fixture) => {
      const trajectory: JsonValue[] = arr(fixture.events).map((e) => {
        const event = obj(e);
        return {
          seq: event.seq as JsonValue,
          event_type: event.event_type as JsonValue,
          payload: event.payload ?? {},
          idempotency_key: event.idempotency_key ?? null,
          recorded_at: str(event.recorded_at).replace(/Z$/, "+00:00"),
        };
      });
      expect(canonicalHash(trajectory, "openagents")).toBe(str(obj(fixture.expected).trajectory_hash));
    },
  );

  it.each(replays)("%s: every RuntimeEvent.payload_hash recomputes", (name) => {
    const lines = corpusText("openagents", "replays-type-ts", name)
      .split("\n")
      .filter((l) => l !== "");
    const events = lines.map((l) => obj(readJson(l))).filter((e) => e.type === "RuntimeEvent");
    expect(events.length).toBeGreaterThan(0);
    for (const event of events)
      expect(canonicalHash(event.payload as JsonValue, "openagents")).toBe(str(event.payload_hash));
  });
});

describe("ReplayKit .rpk runs", () => {
  const runs = corpusList("replaykit", "runs");
  it("has the six runs", () => expect(runs).toHaveLength(6));

  it.each(runs)("%s: envelope checksum and every step hash recompute", (name) => {
    const artifact = obj(readJson(corpusText("replaykit", "runs", name), { rejectLoneSurrogates: false }));
    const envelope: JsonValue = {
      version: artifact.version as JsonValue,
      metadata: artifact.metadata as JsonValue,
      payload: artifact.payload as JsonValue,
    };
    expect(canonicalHash(envelope, "replaykit")).toBe(str(artifact.checksum));
    const steps = arr(obj(obj(artifact.payload).run).steps).map(obj);
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) {
      const hashed: JsonValue = {
        type: step.type as JsonValue,
        input: step.input as JsonValue,
        output: step.output as JsonValue,
        metadata: step.metadata ?? {},
      };
      expect(
        canonicalHash(hashed, "replaykit", { stripVolatile: true }),
        `${name} step ${str(step.id)}`,
      ).toBe(str(step.hash));
    }
  });
});
