// Writes schemas/<output>.schema.json, the JSON Schema of each --json output, from the zod schemas
// in cli/output/schemas.ts (bundled to dist/ by the build), and shared/formats/layer-c-fields.json,
// the field lists Layer C keeps, from the format schemas. test/unit/cli/schemas.test.ts and
// test/unit/formats/layer-c-fields.test.ts fail when the committed files differ from what this writes.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const { jsonSchemas, layerCFieldsJson } = await import("../dist/schemas.js");
const dir = join(import.meta.dirname, "..", "schemas");
mkdirSync(dir, { recursive: true });
for (const name of readdirSync(dir)) if (name.endsWith(".schema.json")) rmSync(join(dir, name));
const files = jsonSchemas();
for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
console.log(`schemas: wrote ${Object.keys(files).length} files to schemas/`);
// The field lists Layer C keeps, as data the line worker reads without zod.
writeFileSync(
  join(import.meta.dirname, "..", "shared", "formats", "layer-c-fields.json"),
  layerCFieldsJson(),
);
console.log("schemas: wrote shared/formats/layer-c-fields.json");
