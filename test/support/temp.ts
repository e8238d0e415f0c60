/**
 * Temporary folders of a test file, removed after its last test. The run's global setup points
 * TMPDIR at a folder of its own and fails the run on whatever is left in it, so a test that makes
 * a folder some other way must remove it itself.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const made: string[] = [];

// Registered when a test file first imports this module, on that file's root suite.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new folder `<tmpdir>/<prefix>XXXXXX`, removed after the test file's last test. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
