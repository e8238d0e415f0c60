/** The keys the pipeline writes from an upload's key: one published copy per uploaded file. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { layerCName, REJECTED, rejectedPlace } from "#shared/pipeline/keys.js";

describe("layerCName", () => {
  it("puts .layer-c before the format extension; a compressed file's copy says so", () => {
    expect(layerCName("REPLAY.jsonl")).toBe("REPLAY.layer-c.jsonl");
    expect(layerCName("REPLAY.jsonl.gz")).toBe("REPLAY.layer-c-gz.jsonl");
    expect(layerCName("REPLAY.jsonl.GZ")).toBe("REPLAY.layer-c-GZ.jsonl");
    expect(layerCName("trace.rpk")).toBe("trace.layer-c.rpk");
    expect(layerCName("notes")).toBe("notes.layer-c");
    expect(layerCName("notes.gz")).toBe("notes.layer-c-gz");
  });

  it("x.jsonl and x.jsonl.gz never share a copy", () => {
    expect(layerCName("x.jsonl")).not.toBe(layerCName("x.jsonl.gz"));
  });

  it("two file names never share a copy name (property)", () => {
    const part = fc.constantFrom(
      "x",
      "REPLAY",
      "jsonl",
      "json",
      "gz",
      "GZ",
      "layer-c",
      "layer-c-gz",
      "from-gz",
      "a.b",
    );
    const name = fc.array(part, { minLength: 1, maxLength: 4 }).map((p) => p.join("."));
    fc.assert(
      fc.property(name, name, (a, b) => a === b || layerCName(a) !== layerCName(b)),
      { numRuns: 5000 },
    );
  });
});

describe("rejectedPlace", () => {
  const digest = "0f".repeat(32);

  it("keeps a rejected key with a readable tenant in that tenant's area", () => {
    for (const key of ["acme/s1/a/b.jsonl", "acme/../x.jsonl", "acme/s%2F1/f.jsonl", "acme/x.jsonl"])
      expect(rejectedPlace(key, key, digest), key).toEqual({
        key: { tenant: "acme", session: REJECTED, file: digest },
        verdictKey: `results/acme/_rejected/${digest}.json`,
      });
  });

  it("files a key with no readable tenant in the operator-only area", () => {
    for (const key of [
      "no-tenant.jsonl",
      "/s/f.jsonl",
      "a b/s/f.jsonl",
      "../s/f.jsonl",
      "a#b/s/f.jsonl",
      "t\u0007/s/f",
    ])
      expect(rejectedPlace(key, key, digest), key).toEqual({
        key: { tenant: REJECTED, session: digest.slice(0, 16), file: digest },
        verdictKey: `results/_rejected/${digest}.json`,
      });
  });

  it("never files under a tenant segment the scrubber changes (a secret in it)", () => {
    const place = rejectedPlace("ghp_token/s/f.jsonl", "[REDACTED:github-token]/s/f.jsonl", digest);
    expect(place.key.tenant).toBe(REJECTED);
  });
});
