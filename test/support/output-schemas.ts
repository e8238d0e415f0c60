/** Validates `--json` outputs against the committed JSON Schemas in schemas/ (ajv, draft 2020-12). */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { PROJECT_ROOT } from "./corpus.js";

/** The folder of the committed schemas. */
export const SCHEMA_DIR = join(PROJECT_ROOT, "schemas");

const ajv = new Ajv2020({ allErrors: true, strict: true });
const validators = new Map(
  readdirSync(SCHEMA_DIR)
    .filter((name) => name.endsWith(".schema.json"))
    .map((name) => [
      name.replace(/\.schema\.json$/, ""),
      ajv.compile(JSON.parse(readFileSync(join(SCHEMA_DIR, name), "utf8"))),
    ]),
);

/** ajv's errors for `value` against `schemas/<name>.schema.json` (empty when it validates). */
export function schemaErrors(name: string, value: unknown): string[] {
  const validate = validators.get(name);
  if (validate === undefined) throw new Error(`no schemas/${name}.schema.json`);
  return validate(value)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ""} ${JSON.stringify(e.params)}`);
}
