import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { SessionDiff } from "#shared/diff/types.js";
import type { InspectReport } from "#shared/formats/index.js";
import type { FileRecord } from "#shared/pipeline/ports.js";
import type { VerdictDocument } from "#shared/pipeline/process-object.js";
import type { VerifyReport } from "#shared/receipt/index.js";
import type { LayerCSummary } from "#shared/redact/index.js";
import {
  type fileRecord,
  type inspectReport,
  jsonSchemas,
  type layerCSummary,
  OUTPUT_SCHEMAS,
  type sessionDiff,
  type verdictDocument,
  type verifyReport,
} from "../../../cli/output/schemas.js";
import { PROJECT_ROOT } from "../../support/corpus.js";
import { SCHEMA_DIR, schemaErrors } from "../../support/output-schemas.js";
import { tempDir } from "../../support/temp.js";

const BIN = join(PROJECT_ROOT, "bin", "replay-pipeline.js");
const EX = (name: string) => join(PROJECT_ROOT, "examples", name);
const dir = tempDir("schemas-");

function json(...args: string[]): unknown[] {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: PROJECT_ROOT });
  return result.stdout
    .toString("utf8")
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
}

describe("schemas/: the JSON Schema of every --json output", () => {
  it("is what `npm run schemas` writes from the zod schemas (committed files up to date)", () => {
    const want = jsonSchemas();
    const have = readdirSync(SCHEMA_DIR).filter((n) => n.endsWith(".schema.json"));
    expect(have.sort()).toEqual(Object.keys(want).sort());
    for (const [name, text] of Object.entries(want))
      expect(readFileSync(join(SCHEMA_DIR, name), "utf8"), `${name}: run npm run schemas`).toBe(text);
  });

  it("infers exactly the types the code writes", () => {
    expectTypeOf<z.infer<typeof inspectReport>>().toEqualTypeOf<InspectReport>();
    expectTypeOf<z.infer<typeof verifyReport>>().toEqualTypeOf<VerifyReport>();
    // An intersection in LayerCSummary["original"] defeats exact equality: assignable both ways.
    expectTypeOf<z.infer<typeof layerCSummary>>().toExtend<LayerCSummary>();
    expectTypeOf<LayerCSummary>().toExtend<z.infer<typeof layerCSummary>>();
    expectTypeOf<z.infer<typeof fileRecord>>().toEqualTypeOf<FileRecord>();
    expectTypeOf<z.infer<typeof verdictDocument>>().toExtend<VerdictDocument>();
    expectTypeOf<VerdictDocument>().toExtend<z.infer<typeof verdictDocument>>();
    expect(Object.keys(OUTPUT_SCHEMAS)).toContain("inspect");
    expectTypeOf<z.infer<typeof sessionDiff>>().toEqualTypeOf<Omit<SessionDiff, "entries">>();
  });

  it("rejects what a reader must not get: a missing member, an extra one, a wrong verdict", () => {
    const [report] = json("inspect", EX("fix-auth.REPLAY.jsonl"), "--json") as [Record<string, unknown>];
    expect(schemaErrors("inspect", report)).toEqual([]);
    const { replay_hash: _, ...missing } = report;
    expect(schemaErrors("inspect", missing).join()).toMatch(/replay_hash/);
    expect(schemaErrors("inspect", { ...report, extra: 1 }).join()).toMatch(/additional/);
    expect(schemaErrors("inspect", { ...report, verdict: "ok" }).join()).toMatch(/\/verdict/);
    expect(schemaErrors("inspect", { ...report, schema_version: 2 }).join()).toMatch(/schema_version/);
  });

  it.each([
    ["fix-auth.REPLAY.jsonl"],
    ["tampered.REPLAY.jsonl"],
    ["autopilot.bundle.json"],
    ["support-chat.trace.jsonl"],
    ["summarize.rpk"],
  ])("inspect --json of %s validates, carrying tool and schema version", (name) => {
    const [report] = json("inspect", EX(name), "--json");
    expect(schemaErrors("inspect", report)).toEqual([]);
    expect(report).toMatchObject({ tool_version: expect.any(String), schema_version: 1 });
  });

  it("inspect --json of an invalid, binary and gzip file validates", () => {
    const bad = join(dir, "bad.jsonl");
    writeFileSync(bad, '{"type":"ReplayHeader"\n\u0000\u0001');
    const gz = join(dir, "fix.REPLAY.jsonl.gz");
    writeFileSync(gz, gzipSync(readFileSync(EX("fix-auth.REPLAY.jsonl"))));
    for (const file of [bad, gz, join(PROJECT_ROOT, "test", "fixtures", "bad-inputs", "binary-garbage.bin")])
      expect(schemaErrors("inspect", json("inspect", file, "--json")[0]), file).toEqual([]);
  });

  it("diff --json validates, equal or not", () => {
    for (const b of ["fix-auth.REPLAY.jsonl", "tampered.REPLAY.jsonl"]) {
      const [diff] = json("diff", EX("fix-auth.REPLAY.jsonl"), EX(b), "--json");
      expect(schemaErrors("diff", diff), b).toEqual([]);
    }
  });

  it("verify, scan, redact, process and verify-attestation --json validate", () => {
    const [verify] = json(
      "verify",
      EX("fix-auth.REPLAY.jsonl"),
      "--receipt",
      EX("fix-auth.RECEIPT.json"),
      "--json",
    );
    expect(schemaErrors("verify", verify)).toEqual([]);
    const [noReceipt] = json("verify", EX("fix-auth.REPLAY.jsonl"), "--json");
    expect(schemaErrors("verify", noReceipt)).toEqual([]);
    // The RECEIPT.json of the examples is checked against its replay, not listed as a row.
    const rows = json("scan", "examples", "--json");
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(rows.some((row) => (row as { receipt?: unknown }).receipt !== undefined)).toBe(true);
    for (const row of rows) expect(schemaErrors("scan", row)).toEqual([]);
    for (const name of ["fix-auth.REPLAY.jsonl", "summarize.rpk"]) {
      const [summary] = json("redact", EX(name), "-o", join(dir, `copy-${name}`), "--json");
      expect(schemaErrors("redact", summary), name).toEqual([]);
    }
    const docs = json("process", "examples", "--out", join(dir, "out"), "--json");
    expect(docs.length).toBeGreaterThanOrEqual(6);
    for (const doc of docs) expect(schemaErrors("process", doc)).toEqual([]);
    const attestation = join(dir, "a.intoto.json");
    json("inspect", EX("fix-auth.REPLAY.jsonl"), "--attest", attestation, "-q");
    const [checked] = json("verify-attestation", attestation, "--json");
    expect(schemaErrors("verify-attestation", checked)).toEqual([]);
  });

  it("runs over several files print JSON Lines that validate: receipts paired, copies, errors", () => {
    const runs = tempDir("schemas-many-");
    for (const name of ["fix-auth.REPLAY.jsonl", "fix-auth.RECEIPT.json", "tampered.REPLAY.jsonl"])
      writeFileSync(join(runs, name), readFileSync(EX(name)));
    const missing = join(dir, "missing-many.jsonl");
    const inspected = json("inspect", runs, missing, "--json", "-q");
    expect(inspected).toHaveLength(3);
    const [first, second, error] = inspected as Record<string, unknown>[];
    expect(first).toHaveProperty("receipt_check.verdict", "passed");
    for (const report of [first, second]) expect(schemaErrors("inspect", report)).toEqual([]);
    expect(schemaErrors("error", error)).toEqual([]);
    expect(error).toMatchObject({ error: { code: "io.not_found", file: missing } });
    const verified = json("verify", runs, "--json", "-q");
    expect(verified).toHaveLength(2);
    for (const report of verified) expect(schemaErrors("verify", report)).toEqual([]);
    const copies = json("redact", runs, "-o", join(dir, "copies"), "--json", "-q");
    // The tampered replay is refused (no copy, its report on stderr): one line, the good one's.
    expect(copies).toHaveLength(1);
    for (const line of copies) expect(schemaErrors("redact", line)).toEqual([]);
    expect(copies[0]).toMatchObject({ file: join(runs, "fix-auth.REPLAY.jsonl"), layer: "C" });
  });

  it("a read error with --json is one JSON object with the error, which validates", () => {
    for (const args of [
      ["inspect", join(dir, "missing.jsonl"), "--json"],
      ["verify", EX("fix-auth.REPLAY.jsonl"), "--receipt", join(dir, "nope.json"), "--json"],
      ["scan", join(dir, "no-such-folder"), "--json"],
    ]) {
      const out = json(...args);
      expect(out, args.join(" ")).toHaveLength(1);
      expect(schemaErrors("error", out[0])).toEqual([]);
      expect(out[0]).toMatchObject({ error: { code: "io.not_found", kind: "config" } });
    }
  });
});
