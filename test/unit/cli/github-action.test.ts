/**
 * action.yml against its entry (cli/github-action.ts): the metadata parses, every input the entry
 * reads is declared and handed to it under the runner's name, every declared input is used, every
 * output is one the entry sets; AWS access is by OIDC only; the snippet in docs/pipeline.md uses real inputs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PROJECT_ROOT } from "../../support/corpus.js";

interface ActionStep {
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}

interface ActionMetadata {
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

const text = readFileSync(join(PROJECT_ROOT, "action.yml"), "utf8");
const action = parse(text) as ActionMetadata;
const entry = readFileSync(join(PROJECT_ROOT, "cli", "github-action.ts"), "utf8");
const steps = action.runs.steps;
const push = steps.find((s) => s.id === "push") as ActionStep;

/** The inputs the entry reads: every `getInput("…")`, `getBooleanInput("…")` call. */
function entryReads(): Set<string> {
  const calls = entry.match(/\bget(?:Boolean|Multiline)?Input\(/g) ?? [];
  const literal = [...entry.matchAll(/\bget(?:Boolean|Multiline)?Input\("([^"]+)"/g)].map(
    (m) => m[1] as string,
  );
  // A read by a computed name would escape this check.
  expect(literal).toHaveLength(calls.length);
  expect(entry).not.toMatch(/process\.env\.INPUT_|process\.env\[["'`]INPUT_/);
  return new Set(literal);
}

/** The inputs an expression `${{ … inputs.NAME … }}` or `if: inputs.NAME …` in `value` uses. */
function expressionInputs(value: unknown): string[] {
  return [...JSON.stringify(value ?? null).matchAll(/\binputs\.([A-Za-z0-9_-]+)/g)].map(
    (m) => m[1] as string,
  );
}

describe("action.yml", () => {
  it("is a composite action that sets up Node 22 and runs the built entry", () => {
    expect(action.runs.using).toBe("composite");
    const node = steps.find((s) => s.uses?.startsWith("actions/setup-node@"));
    expect(node?.with?.["node-version"]).toBe(22);
    expect(push.run).toBe('node "$GITHUB_ACTION_PATH/dist/action.js"');
    expect(readFileSync(join(PROJECT_ROOT, "scripts", "build.mjs"), "utf8")).toContain(
      'action: "./cli/github-action.ts"',
    );
  });

  it("hands the entry exactly the inputs it reads, under the runner's names, each one declared", () => {
    const reads = entryReads();
    expect(reads.size).toBeGreaterThan(10);
    const handed = new Set<string>();
    for (const [variable, value] of Object.entries(push.env ?? {})) {
      const [name] = expressionInputs(value);
      expect(name, variable).toBeDefined();
      // The runner's naming: INPUT_, upper case, spaces to _ (hyphens kept).
      expect(variable).toBe(`INPUT_${(name as string).replaceAll(" ", "_").toUpperCase()}`);
      expect(value).toBe(`\${{ inputs.${name} }}`);
      handed.add(name as string);
    }
    expect([...handed].sort()).toEqual([...reads].sort());
    for (const name of reads) expect(Object.keys(action.inputs), name).toContain(name);
  });

  it("uses every input it declares: read by the entry or by another of its steps", () => {
    const used = new Set([...entryReads(), ...steps.filter((s) => s !== push).flatMap(expressionInputs)]);
    expect(Object.keys(action.inputs).filter((name) => !used.has(name))).toEqual([]);
    expect([...used].filter((name) => !(name in action.inputs))).toEqual([]);
    for (const name of ["files", "tenant", "session"]) expect(action.inputs[name]?.required, name).toBe(true);
  });

  it("declares the outputs the entry sets, and only those", () => {
    const set = new Set([...entry.matchAll(/\bsetOutput\("([^"]+)"/g)].map((m) => m[1] as string));
    expect(Object.keys(action.outputs).sort()).toEqual([...set].sort());
    for (const [name, output] of Object.entries(action.outputs))
      expect(output.value).toBe(`\${{ steps.push.outputs.${name} }}`);
    for (const name of ["verdict", "exit-code", "attestations"]) expect(set).toContain(name);
  });

  it("gets AWS credentials by OIDC only: a role to assume, never keys", () => {
    const aws = steps.find((s) => s.uses?.startsWith("aws-actions/configure-aws-credentials@"));
    expect(aws?.if).toBe("inputs.role-to-assume != ''");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub's expression syntax
    expect(aws?.with?.["role-to-assume"]).toBe("${{ inputs.role-to-assume }}");
    expect(text).not.toMatch(/aws-access-key-id|aws-secret-access-key|AWS_SECRET_ACCESS_KEY/);
    expect(action.inputs["role-to-assume"]?.description).toContain("id-token: write");
  });

  it("is shown in docs/pipeline.md with id-token: write and inputs it declares", () => {
    const readme = readFileSync(join(PROJECT_ROOT, "docs", "pipeline.md"), "utf8");
    const at = readme.indexOf("/replay-pipeline@main");
    expect(at).toBeGreaterThan(0);
    const block = readme.slice(readme.lastIndexOf("```yaml", at), readme.indexOf("```\n", at));
    const workflow = parse(block.replace("```yaml", "")) as {
      permissions: Record<string, string>;
      jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }>;
    };
    expect(workflow.permissions["id-token"]).toBe("write");
    const step = Object.values(workflow.jobs)
      .flatMap((j) => j.steps)
      .find((s) => s.uses?.endsWith("/replay-pipeline@main"));
    const given = Object.keys(step?.with ?? {});
    expect(given).toContain("role-to-assume");
    for (const name of given) expect(Object.keys(action.inputs), name).toContain(name);
  });
});
