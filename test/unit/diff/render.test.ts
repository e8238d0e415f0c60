import { describe, expect, it } from "vitest";
import { diffHtml, diffSessions, diffText } from "#shared/diff/index.js";
import { readSessionView } from "#shared/view/index.js";
import { chunksOf, everyFormat } from "../../support/sessions.js";

const FILES = everyFormat();

async function pair() {
  const read = async (name: string) =>
    (await readSessionView(chunksOf(FILES[name] as Buffer), { file: name, parallel: { workers: 0 } })).view;
  return diffSessions(
    await read("examples/fix-auth.REPLAY.jsonl"),
    await read("examples/tampered.REPLAY.jsonl"),
  );
}

describe("diffText", () => {
  it("reads like git diff: file lines, the first divergence, -/+ field values, a summary", async () => {
    const text = diffText(await pair());
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^--- a\/examples\/fix-auth\.REPLAY\.jsonl \(replay-dsrs, passed/);
    expect(lines[1]).toMatch(/^\+\+\+ b\/examples\/tampered\.REPLAY\.jsonl \(replay-dsrs, failed/);
    expect(text).toContain("first divergence: a#1 b#1 tool file_read tc_001: changed params");
    expect(text).toMatch(/^- {3}params: sha256:2432e75f/m);
    expect(text).toMatch(/^\+ {3}params: sha256:7bb8939a/m);
    expect(text).toContain("1 changed (0 moved), 0 added, 0 removed, 1 equal");
  });
});

describe("diffHtml", () => {
  it("is one self-contained page, side by side, with names escaped", async () => {
    const diff = await pair();
    diff.a.file = "<script>alert(1)</script>";
    const page = diffHtml(diff);
    expect(page).not.toContain("<script");
    expect(page).toContain("&#60;script&#62;");
    expect(page).not.toMatch(/\b(?:src|href)\s*=\s*["']?https?:/i);
    expect(page).toContain('<tr class="changed">');
  });
});
