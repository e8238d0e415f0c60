/** Error kinds, for a queue: an input error is a verdict, a transient one is retried, the rest are not. */
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import {
  CanonicalizationError,
  ContractError,
  ERROR_KINDS,
  JsonInputError,
  kindOf,
  RedactError,
  ReplayPipelineError,
  StreamLimitError,
  TransientError,
  WorkerPoolError,
} from "#shared/errors.js";
import { UsageError } from "../../cli/errors.js";

describe("kindOf", () => {
  it("gives each typed error the kind of its code", () => {
    expect(kindOf(new JsonInputError("json.syntax", "expected a value"))).toBe("input");
    expect(kindOf(new CanonicalizationError("canonical.non_finite", "too large"))).toBe("input");
    expect(kindOf(new StreamLimitError("gzip.ratio", "a gzip bomb?"))).toBe("input");
    expect(kindOf(new RedactError("redact.spool_short_write", "short"))).toBe("transient");
    expect(kindOf(new RedactError("redact.not_finished", "too early"))).toBe("bug");
    expect(kindOf(new WorkerPoolError("worker.no_script", "no script"))).toBe("config");
    expect(kindOf(new ContractError("receipt.no_session", "no session"))).toBe("bug");
    expect(kindOf(new UsageError("unknown flag"))).toBe("config");
  });

  it("takes a throw site's kind over the code's, and TransientError is always transient", () => {
    expect(kindOf(new ReplayPipelineError("io.write", "disk full", {}, { kind: "transient" }))).toBe(
      "transient",
    );
    expect(kindOf(new ReplayPipelineError("io.write", "no such folder"))).toBe("config");
    const throttled = new TransientError("io.throttled", "slow down", {}, { cause: new Error("503") });
    expect(throttled).toBeInstanceOf(ReplayPipelineError);
    expect(kindOf(throttled)).toBe("transient");
    expect(throttled.code).toBe("io.throttled");
  });

  it("calls Node's 'not now' system errors transient", async () => {
    for (const code of ["ENOSPC", "EMFILE", "ENFILE", "EAGAIN", "ETIMEDOUT", "ECONNRESET"])
      expect(kindOf(Object.assign(new Error(code), { code }))).toBe("transient");
  });

  it("calls anything else a bug: other system errors, plain errors, non-errors", async () => {
    const missing = await readFile("/no/such/file").catch((e: unknown) => e);
    expect((missing as NodeJS.ErrnoException).code).toBe("ENOENT");
    expect(kindOf(missing)).toBe("bug");
    expect(kindOf(new TypeError("x is undefined"))).toBe("bug");
    expect(kindOf("a string")).toBe("bug");
    expect(kindOf(null)).toBe("bug");
    expect(kindOf(undefined)).toBe("bug");
  });

  it("knows a kind for every code", () => {
    for (const kind of Object.values(ERROR_KINDS))
      expect(["input", "transient", "config", "bug"]).toContain(kind);
  });
});
