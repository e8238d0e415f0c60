/**
 * The scrubber's output, pinned: digests of what it makes of generated replay text dense in
 * secrets (and of ordinary text), recorded with the code before the speed work of issue 20
 * (3486b9f), then again after one meant change of detection (a bare value is a reference to a
 * credential only when written as a name: `PINAyAAA9` is a password), which moved `dense`, `all`,
 * `keyed` and `context`, and another (documentation's words are a password where one must stand),
 * which moved `plain`: a JSON line read as one string holds `"labels":["token","token",…]`; and a
 * third (secretlint's AWS range made whole and its label kept, a flag's argument no name), which
 * moved `dense`, `all`, `keyed` and `vendor`, and a fourth (a URL's escaped password alone, not
 * secretlint's whole URL from the decoded view), which moved `dense`, `all` and `keyed`, and a
 * fifth (a source location is no value; a value ending in a credential's word names nothing),
 * which moved both `plain` digests, `dense`, `all`, `keyed` and `context`, and a sixth (a
 * `trace=` id and a body counted by hand are no generated run; a random body with few switches
 * between letters and digits is), which moved `dense` and `shape`, and a seventh (a base64 body
 * holding `/` is judged whole too; a run inside an ARN is a resource's name), which moved `dense`,
 * `all`, `keyed` and `shape`, and an eighth (a quoted name's pair form only when the name is
 * quoted whole: a JSON line's `"…verify token","temperature":0.7` lost its member name), which
 * moved `all`, `keyed`, `context` and the whole-line `plain`, and a ninth (a review's: a pair's
 * value is no JSON member's name, `"query":"NPM_TOKEN","globs":[…]` kept `globs`; counted runs and
 * build targets excuse a run only when no other part of it is generated; words may hold four
 * consonants in a row, `Instruct`), which moved `all`, `keyed`, `context` and `shape`, and a tenth
 * (a scheme's word alone is no `Authorization` credential: a line's start cut after `Bearer glpat`
 * keeps `Bearer`), which moved `all`, `keyed` and `context`, and an eleventh (`.npmrc`'s registry
 * credentials a rule of the structure layer: that layer alone now takes `:_authToken=npm_…`),
 * which moved `structure`. Speed work must not change a
 * byte of it; a change of detection that is
 * meant changes these digests, and the new ones are recorded with it (say why in the commit).
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type Preset, Scrubber } from "#shared/redact/index.js";
import { LineRedactor } from "#shared/redact/layer-c/lines.js";
import type { ScrubOptions } from "#shared/redact/scrub.js";
import { ReplayGenerator } from "../../../bench/generate.js";

/** The first lines of a generated session (`secrets`: the `secrets-dense` shape). */
function generated(seed: number, events: number, secrets: boolean): string[] {
  const gen = new ReplayGenerator(seed);
  const lines = [gen.header(), gen.sessionStart()];
  while (lines.length < events) lines.push(...(secrets ? gen.nextSecretEvents() : gen.nextEvents()));
  lines.push(gen.sessionEnd({ secrets }));
  return lines;
}

/** Digest of the Layer C copy of `lines` and of its counts. */
function layerCDigest(lines: readonly string[], preset: Preset): string {
  const redactor = new LineRedactor("replay-v1", preset, { file: "generated" });
  const hash = createHash("sha256");
  lines.forEach((line, i) => {
    hash.update(redactor.line(Buffer.from(line), i + 1).text);
  });
  hash.update(JSON.stringify(redactor.snapshot()));
  return hash.digest("hex").slice(0, 16);
}

/**
 * Digest of each whole line scrubbed as one string (escaped JSON: long, multi-line in effect),
 * of a line's start scrubbed as a member name, and of the counts.
 */
function scrubDigest(lines: readonly string[], options: ScrubOptions): string {
  const scrubber = new Scrubber(options);
  const hash = createHash("sha256");
  for (const line of lines) {
    hash.update(scrubber.scrub(line, "$.line")).update("\0");
    hash.update(scrubber.scrubKey(line.slice(0, 160), "$.name")).update("\0");
  }
  hash.update(JSON.stringify(scrubber.summary()));
  return hash.digest("hex").slice(0, 16);
}

const DENSE = generated(20, 240, true);
const PLAIN = generated(21, 400, false);

describe("scrubber output (pinned digests)", () => {
  it("Layer C of text dense in secrets and of ordinary text", () => {
    expect({
      dense: layerCDigest(DENSE, "private_repo"),
      plain: layerCDigest(PLAIN, "private_repo"),
    }).toEqual({ dense: "24bb15d5b386e61c", plain: "82e3053d1b70acc4" });
  });

  it("whole lines scrubbed as strings, every layer and each layer alone", () => {
    expect({
      all: scrubDigest(DENSE, {}),
      keyed: scrubDigest(DENSE, { preset: "open_source", key: new Uint8Array(32).fill(7) }),
      vendor: scrubDigest(DENSE, { layers: ["vendor"] }),
      context: scrubDigest(DENSE, { layers: ["context"] }),
      shape: scrubDigest(DENSE, { layers: ["shape"] }),
      structure: scrubDigest(DENSE, { layers: ["structure"] }),
      plain: scrubDigest(PLAIN, {}),
    }).toEqual({
      all: "f537c557856fc557",
      keyed: "931a7f17c9c128ac",
      vendor: "a85f5d0f878b2872",
      context: "de98ead20e6d8a00",
      shape: "1fe0b4a4d8a403c1",
      structure: "0ebb2e9ff59e2cf5",
      plain: "ca87ff6fa1d01b7b",
    });
  });

  it("the digests notice a change of detection (one rule switched off)", () => {
    const all = scrubDigest(DENSE, {});
    expect(scrubDigest(DENSE, { disableRules: ["jwt"] })).not.toBe(all);
    expect(scrubDigest(DENSE, { disableRules: ["generated-token"] })).not.toBe(all);
  });
});
