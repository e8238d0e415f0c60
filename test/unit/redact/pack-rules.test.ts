/**
 * A rule pack's secret rules: run beside the built-in ones by the scrubber and by every Layer C
 * path (whole documents, lines on this thread, lines fused with inspect), and refused when they
 * take a built-in rule's id.
 */
import { describe, expect, it } from "vitest";
import { redactChecked } from "../../../shared/redact/checked.js";
import { inspectRedactTask } from "../../../shared/redact/layer-c/fused.js";
import type { PackRule } from "../../../shared/redact/rules.js";
import { Scrubber } from "../../../shared/redact/scrub.js";

const TOKEN: PackRule = { id: "acme-token", pattern: "acmetok-[0-9]{4}-[0-9]{4}", needles: ["acmetok-"] };
const TEXT = "deploy done; notify acmetok-4821-9930 and acmetok-1111-2222";

async function copyOf(source: string, packRules?: readonly PackRule[]) {
  const redaction = redactChecked(
    (async function* () {
      yield Buffer.from(source);
    })(),
    {
      task: inspectRedactTask,
      file: "x.REPLAY.jsonl",
      allowUnverified: true,
      ...(packRules === undefined ? {} : { packRules }),
    },
  );
  const chunks: Buffer[] = [];
  for await (const chunk of redaction.chunks) chunks.push(Buffer.from(chunk));
  return { text: Buffer.concat(chunks).toString("utf8"), byRule: redaction.summary().by_rule };
}

describe("rule pack secret rules", () => {
  it("redacts what the pack's rule matches, which the built-in rules leave", () => {
    expect(new Scrubber().scrub(TEXT, "$.x")).toBe(TEXT);
    const scrubber = new Scrubber({ packRules: [TOKEN] });
    expect(scrubber.scrub(TEXT, "$.x")).toBe(
      "deploy done; notify [REDACTED:acme-token] and [REDACTED:acme-token]",
    );
    expect(scrubber.summary().by_rule).toEqual({ "acme-token": 2 });
  });

  it("runs in the Layer C copy (the read fused with inspect), counted by rule", async () => {
    const line = `{"event":"Verification","commands":["./notify acmetok-4821-9930"],"exit_codes":[0],"t":"2026-01-13T10:05:30Z"}\n`;
    const plain = await copyOf(line);
    expect(plain.text).toContain("acmetok-4821-9930");
    const packed = await copyOf(line, [TOKEN]);
    expect(packed.text).not.toContain("acmetok-4821-9930");
    expect(packed.text).toContain("[REDACTED:acme-token]");
    expect(packed.byRule["acme-token"]).toBe(1);
  });

  it("refuses a pack rule that takes a built-in rule's id", () => {
    expect(() => new Scrubber({ packRules: [{ ...TOKEN, id: "jwt" }] })).toThrow(/built-in rule/);
    expect(() => new Scrubber({ packRules: [{ ...TOKEN, id: "secretlint-aws" }] })).toThrow(/built-in rule/);
  });
});
