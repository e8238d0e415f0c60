/**
 * The CLI as a user installs it: `npm pack` of this checkout, the tarball installed into an empty
 * folder, and the installed binary run from there (`--version`, `inspect` of a packaged example,
 * `start --once` on the packaged examples, without `--openssl-legacy-provider`). Prints the
 * tarball's and the installation's size; removes every folder it made.
 */
import { spawnSync } from "node:child_process";
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../support/corpus.js";

/** Environment without npm's own variables (a `npm test` run sets npm_config_prefix and the like, which would point the nested npm at this project); node of this run first on PATH. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}` };
}

function npm(args: string[], cwd: string) {
  const result = spawnSync("npm", args, { cwd, env: cleanEnv(), encoding: "utf8", timeout: 300_000 });
  expect(result.status, `npm ${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** Bytes of every file under `path` (symbolic links not followed). */
function sizeOf(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

const folders: string[] = [];
let installed: string;
let bin: string;

beforeAll(() => {
  const packed = mkdtempSync(join(tmpdir(), "pack-"));
  installed = mkdtempSync(join(tmpdir(), "pack-install-"));
  folders.push(packed, installed);
  // No `prepare` (the build): the global setup built dist/, and a rebuild would swap the chunks
  // under the other test files running the binary.
  const [entry] = JSON.parse(
    npm(["pack", "--json", "--ignore-scripts", "--pack-destination", packed], PROJECT_ROOT),
  ) as { filename: string; entryCount: number }[];
  expect(entry).toBeDefined();
  const tarball = join(packed, (entry as { filename: string }).filename);
  npm(["install", "--prefer-offline", "--no-audit", "--no-fund", "--prefix", installed, tarball], installed);
  bin = join(installed, "node_modules", ".bin", "replay-pipeline");
  const tarballBytes = lstatSync(tarball).size;
  const installBytes = sizeOf(join(installed, "node_modules"));
  console.log(
    `pack-install: tarball ${mb(tarballBytes)} (${tarballBytes} bytes, ${entry?.entryCount} files); installed node_modules ${mb(installBytes)} (${installBytes} bytes)`,
  );
}, 600_000);

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** The installed binary, run from the install folder as its shell would (`#!/usr/bin/env node`). */
function run(...args: string[]) {
  const result = spawnSync(bin, args, {
    cwd: installed,
    env: cleanEnv(),
    encoding: "utf8",
    timeout: 180_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Node 22 is the runtime; an older one (a developer's) gets the AWS SDK's warning about it. */
const NODE_22 = Number(process.versions.node.split(".")[0]) >= 22;

describe("the installed package", () => {
  it("holds the bundle, the examples and the schemas, not the sources or the tests", () => {
    const root = join(installed, "node_modules", "replay-pipeline");
    const names = readdirSync(root).sort();
    expect(names).toEqual(
      ["CHANGELOG.md", "LICENSE", "README.md", "bin", "dist", "examples", "package.json", "schemas"].sort(),
    );
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(pkg.private).toBeUndefined();
    expect(
      readdirSync(join(root, "dist")).filter((n) => !/^(cli|cli-chunk-\w+|line-worker)\.js$/.test(n)),
    ).toEqual([]);
  });

  it("replay-pipeline --version names the version and the commit", () => {
    const out = run("--version");
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    const version = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")).version;
    expect(out.stdout).toMatch(
      new RegExp(
        `^replay-pipeline ${version.replaceAll(".", "\\.")} \\(commit ([0-9a-f]{7,}|unknown)\\)\\n$`,
      ),
    );
  });

  it("inspect of a packaged example passes", () => {
    const out = run("inspect", "node_modules/replay-pipeline/examples/fix-auth.REPLAY.jsonl");
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^node_modules\/replay-pipeline\/examples\/fix-auth\.REPLAY\.jsonl: PASSED/);
  });

  it("start --once starts the local servers on the packaged examples, stops them, exits 0", () => {
    const out = run("start", "--once", "--memory", "--s3-port", "0", "--dynamo-port", "0");
    if (NODE_22) expect(out.stderr).toBe("");
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^local stack: S3 http:\/\/127\.0\.0\.1:\d+ /);
    const examples = readdirSync(join(installed, "node_modules", "replay-pipeline", "examples"));
    const files = examples.filter((n) => n.includes("."));
    expect(out.stdout).toContain(`every example (${files.length}) has a recorded verdict`);
    expect(out.stdout).toMatch(/FAILED +examples\/tampered\/tampered\.REPLAY\.jsonl/);
    // The stack's file goes when the servers stop.
    expect(readdirSync(join(installed, ".local"))).not.toContain("stack.json");
  });
});
