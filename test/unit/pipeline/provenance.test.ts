import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { RULE_MODULES, rulesDescription, rulesDigest } from "../../../shared/pipeline/provenance.js";
import { PATTERN_RULES } from "../../../shared/redact/rules.js";
import { PROJECT_ROOT } from "../../support/corpus.js";

/** The sources each `RULE_MODULES` entry versions (files, or folders: every .ts in them). */
const SOURCES: Record<string, string[]> = {
  "redact/rules": [
    "shared/redact/rules.ts",
    "shared/redact/rule-helpers.ts",
    "shared/redact/rule-types.ts",
    "shared/redact/secretlint-scanner.ts",
  ],
  "redact/detect": ["shared/redact/detect"],
  "redact/layer-c": ["shared/redact/layer-c", "shared/redact/checked.ts"],
  "redact/scrub": [
    "shared/redact/scrub.ts",
    "shared/redact/plain-view.ts",
    "shared/redact/text-lines.ts",
    "shared/redact/presets.ts",
  ],
  "formats/replay-jsonl": ["shared/formats/replay-jsonl"],
  "formats/replay-bundle": ["shared/formats/replay-bundle"],
  "formats/braintrust": ["shared/formats/braintrust"],
  "formats/replaykit": ["shared/formats/replaykit"],
  "formats/verdict": ["shared/formats/validate.ts", "shared/formats/inspect.ts", "shared/formats/types.ts"],
  "receipt/verify": ["shared/receipt"],
};

/** The fixture: each module's version with the sha256 of its sources, and the default digest. */
const FIXTURE = join(PROJECT_ROOT, "test/fixtures/rule-modules.json");

function filesOf(path: string): string[] {
  const full = join(PROJECT_ROOT, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full)
    .filter((n) => n.endsWith(".ts"))
    .sort()
    .flatMap((n) => filesOf(join(path, n)));
}

/**
 * What of a source file can change behaviour: its JavaScript, without types, comments or layout
 * (TypeScript's own transpile). A comment, a type's name or a reformat is not a new rule version;
 * any change to the code is.
 */
function behaviourOf(file: string): string {
  const text = readFileSync(join(PROJECT_ROOT, file), "utf8");
  return ts.transpileModule(text, {
    compilerOptions: { target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext, removeComments: true },
  }).outputText;
}

function sourceHash(module: string): string {
  const hash = createHash("sha256");
  for (const file of (SOURCES[module] ?? []).flatMap(filesOf).sort())
    hash.update(`${file}\0`).update(behaviourOf(file)).update("\0");
  return hash.digest("hex");
}

interface Fixture {
  digest: string;
  modules: Record<string, { version: number; sources: string }>;
}

function current(): Fixture {
  return {
    digest: rulesDigest("private_repo"),
    modules: Object.fromEntries(
      Object.entries(RULE_MODULES).map(([m, version]) => [m, { version, sources: sourceHash(m) }]),
    ),
  };
}

describe("provenance: the rules digest", () => {
  it("is one sha256 per preset, stable, and differs between presets", () => {
    const all = ["open_source", "private_repo", "paranoid"] as const;
    const digests = all.map((p) => rulesDigest(p));
    for (const d of digests) expect(d).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(new Set(digests).size).toBe(3);
    expect(rulesDigest("private_repo")).toBe(digests[1]);
  });

  it("has a digest of its own for a rule pack's rules, the built-in description unchanged without one", () => {
    const pack = [{ id: "acme-token", pattern: "acmetok-[0-9]{4}", needles: ["acmetok-"] }];
    const withPack = rulesDigest("private_repo", pack);
    expect(withPack).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(withPack).not.toBe(rulesDigest("private_repo"));
    expect(
      rulesDigest("private_repo", [{ ...pack[0], pattern: "acmetok-[0-9]{5}" } as (typeof pack)[0]]),
    ).not.toBe(withPack);
    expect(rulesDigest("private_repo", [])).toBe(rulesDigest("private_repo"));
    expect(JSON.stringify(rulesDescription("private_repo"))).not.toContain("pack_rules");
  });

  it("describes every rule's expressions, so a changed regular expression changes it", () => {
    const description = JSON.stringify(rulesDescription("private_repo"));
    for (const rule of PATTERN_RULES) {
      expect(description).toContain(JSON.stringify(rule.id));
      if (rule.pattern !== undefined) expect(description).toContain(JSON.stringify(rule.pattern.source));
    }
  });

  it("has a version per rule module, each module's sources listed", () => {
    expect(Object.keys(SOURCES).sort()).toEqual(Object.keys(RULE_MODULES).sort());
  });

  it("changes with the rules: a module whose sources changed has a bumped version, and the fixture follows", () => {
    const want = JSON.parse(readFileSync(FIXTURE, "utf8")) as Fixture;
    const have = current();
    const update = `update test/fixtures/rule-modules.json to:\n${JSON.stringify(have, null, 2)}`;
    for (const [module, { version, sources }] of Object.entries(have.modules)) {
      const was = want.modules[module];
      expect(was, `${module} is new: ${update}`).toBeDefined();
      if (was === undefined) continue;
      // The sources changed and the version did not: the digest would not say the rules changed.
      if (was.version === version)
        expect(
          sources,
          `${module}'s sources changed: bump RULE_MODULES["${module}"] in shared/pipeline/provenance.ts, then ${update}`,
        ).toBe(was.sources);
      else expect.fail(`${module}'s version changed: ${update}`);
    }
    // The rule table (expressions, presets) changed without the fixture's digest: the snapshot is old.
    expect(have.digest, `the rules digest changed: ${update}`).toBe(want.digest);
  });
});
