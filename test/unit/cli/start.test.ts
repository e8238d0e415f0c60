/** The live table of `replay-pipeline start`: one line per outcome, keys as the scrubber passes them. */
import { describe, expect, it } from "vitest";
import { liveRow, tornRow } from "../../../cli/commands/start.js";

const TOKEN = `ghp_${"7Hq2Lm9Xz4Vb8Nc1Rt6Yw3PdK5sJ0aQeUiO".slice(0, 36)}`;
const NOW = new Date("2026-11-27T09:29:07Z");

describe("start: the live table", () => {
  it("shows a key holding a secret as the scrubber passes it, on every kind of line", () => {
    const key = `acme/s1/token=${TOKEN}.jsonl`;
    for (const outcome of [
      { type: "retry", key, receives: 1 },
      { type: "dead-letter", key, receives: 2, path: ".local/dlq/x.json" },
    ] as const) {
      const line = liveRow(outcome, NOW);
      expect(line).not.toContain(TOKEN);
      expect(line).toContain("[REDACTED:");
    }
  });

  it("shows an ordinary key as it is", () => {
    expect(liveRow({ type: "retry", key: "acme/s1/REPLAY.jsonl", receives: 1 }, NOW)).toBe(
      "09:29:07  RETRY         acme/s1/REPLAY.jsonl  (receive 1)\n",
    );
  });
});

describe("start: a torn object found at start", () => {
  it("names its bucket and key (scrubbed), what is wrong and where it went", () => {
    const line = tornRow({
      bucket: "ingest",
      key: `acme/s1/token=${TOKEN}.jsonl`,
      reason: "its metadata file is empty",
      setAsideIn: ".local/data/torn/2026-11-27T09-29-07.000Z/ingest/acme/s1",
    });
    expect(line).not.toContain(TOKEN);
    expect(line).toMatch(
      /^torn object s3:\/\/ingest\/acme\/s1\/token=\[REDACTED:[^\]]+\][^:]*: its metadata file is empty; set aside in \.local\/data\/torn\/.+\/ingest\/acme\/s1\n$/,
    );
    expect(
      tornRow({
        bucket: "ingest",
        key: "a/b/c.jsonl",
        reason: "r; it could not be set aside: EACCES",
        setAsideIn: null,
      }),
    ).toBe("torn object s3://ingest/a/b/c.jsonl: r; it could not be set aside: EACCES\n");
  });
});
