/**
 * `process`'s default worker threads follow the machine's cores: none on two cores or fewer (a
 * worker costs more CPU than two cores can pay back), one per core beyond the first above that.
 */
import { afterEach, describe, expect, it, vi } from "vitest";

const cores = vi.hoisted(() => ({ n: 8 }));
vi.mock("node:os", async (importOriginal) => {
  const os = await importOriginal<typeof import("node:os")>();
  return { ...os, availableParallelism: () => cores.n };
});

const { processWorkers } = await import("../../../cli/worker-script.js");
const { defaultWorkers } = await import("#shared/parallel/index.js");

describe("processWorkers", () => {
  afterEach(() => {
    cores.n = 8;
  });

  it("takes no worker on one or two cores", () => {
    for (const n of [1, 2]) {
      cores.n = n;
      expect(processWorkers()).toBe(0);
    }
  });

  it("takes one per core beyond the first from three cores, as the other commands do", () => {
    for (const [n, workers] of [
      [3, 2],
      [4, 3],
      [16, 7],
    ] as const) {
      cores.n = n;
      expect(processWorkers()).toBe(workers);
      expect(defaultWorkers()).toBe(workers);
    }
  });
});
