/**
 * The revisit of a spooled copy's earlier lines (`Revisit`): `mark` gives every line before the
 * end to `revise` once, with the offset it starts at, whatever the chunks the spool reads it in;
 * `read` gives the copy with the lines it changed revised again in their place, the carrier line
 * swapped wherever it stands, and nothing else moved. On the memory spool and the file spool
 * (which reads 1 MiB at a time).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Revisit } from "#shared/redact/layer-c/revisit.js";
import { LinesSpool, type SpooledLine } from "#shared/redact/layer-c/spool.js";
import { fileSpool, memorySpool, type Spool } from "#shared/spool/index.js";
import { tempDir } from "../../../support/temp.js";

async function text(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString("utf8");
}

/** Line `k` of a spool: `k` and a filler of `size` characters (some lines cross a 1 MiB chunk). */
const lineOf = (k: number, size: number): string => `{"k":${k},"t":"${"ab".repeat(size >> 1)}"}`;

async function spoolOf(port: Spool, lines: readonly string[]): Promise<LinesSpool> {
  const spool = await LinesSpool.create(port);
  for (const line of lines) await spool.append(`${line}\n`);
  await spool.close();
  return spool;
}

describe("Revisit", () => {
  const dir = tempDir("revisit-");
  const ports: [string, () => Spool][] = [
    ["memory spool", memorySpool],
    ["file spool", () => fileSpool(dir)],
  ];

  for (const [name, port] of ports) {
    it(`reads back the lines revise changes, before the end only, and the carrier (${name})`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: 0, max: 400_000 }), { minLength: 1, maxLength: 12 }),
          fc.nat(),
          fc.nat(),
          async (sizes, cut, at) => {
            const lines = sizes.map((size, k) => lineOf(k, size));
            const spool = await spoolOf(port(), lines);
            const last = cut % lines.length;
            const startOf = (k: number): number =>
              lines.slice(0, k).reduce((n, line) => n + Buffer.byteLength(line) + 1, 0);
            const end = startOf(last);
            // Every third line changes, its new text shorter or longer than the old; `k` is read
            // from the line itself, so both passes give the same.
            const revise = (line: SpooledLine): string | undefined => {
              const k = Number(/"k":(\d+)/.exec(line.bytes.toString("latin1"))?.[1]);
              return k % 3 === 0 ? `{"k":${k},"changed":${"1".repeat(k % 5)}}` : undefined;
            };
            const seen: SpooledLine[] = [];
            const revisit = new Revisit(spool, end, revise);
            await revisit.mark((line) => seen.push(line));
            const expected = lines.map((line, k) =>
              k < last && k % 3 === 0 ? `{"k":${k},"changed":${"1".repeat(k % 5)}}` : line,
            );
            const changed = expected.flatMap((line, k) => (line === lines[k] ? [] : [k]));
            expect(seen.map((l) => l.bytes.toString("utf8"))).toEqual(changed.map((k) => lines[k]));
            expect(seen.map((l) => l.start)).toEqual(changed.map(startOf));
            expect(revisit.size).toBe(changed.length);
            const c = at % lines.length;
            const carrier = {
              start: startOf(c),
              length: Buffer.byteLength(lines[c] as string) + 1,
              bytes: Buffer.from('{"carrier":1}\n'),
            };
            expected[c] = '{"carrier":1}';
            expect(await text(revisit.read(carrier))).toBe(`${expected.join("\n")}\n`);
            await spool.remove();
          },
        ),
        { numRuns: 15 },
      );
    });
  }
});
