/** The run's temp folder check (test/global-setup.ts): what a run leaves there fails it. */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runTempFolder } from "../support/run-temp-folder.js";

describe("the run's temp folder", () => {
  it("is where os.tmpdir() points during the run, and passes when left empty", () => {
    const outer = tmpdir();
    const check = runTempFolder();
    const root = tmpdir();
    expect(root).not.toBe(outer);
    expect(root.startsWith(outer)).toBe(true);
    expect(process.env.NODE_DISABLE_COMPILE_CACHE).toBe("1");
    check();
    expect(tmpdir()).toBe(outer);
    expect(existsSync(root)).toBe(false);
  });

  it("fails naming each leftover (a folder with what is in it), and is removed all the same", () => {
    const check = runTempFolder();
    const root = tmpdir();
    mkdirSync(join(root, "cdk.out-x"));
    writeFileSync(join(root, "cdk.out-x", "manifest.json"), "{}");
    writeFileSync(join(root, "stray.txt"), "");
    expect(check).toThrow(/left 2 entries[\s\S]*cdk\.out-x\/ \(manifest\.json\)[\s\S]*stray\.txt/);
    expect(existsSync(root)).toBe(false);
  });
});
