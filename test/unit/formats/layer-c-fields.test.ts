/**
 * The field lists Layer C keeps, as the data the line worker reads (`layer-c-fields.json`): the
 * format schemas' own lists, and no zod in the worker.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { layerCFieldsJson } from "../../../cli/output/schemas.js";
import { SPAN_FIELD_SET_OF_SCHEMA } from "../../../shared/formats/braintrust/fields.js";
import { REPLAY_EVENT_FIELDS, SPAN_FIELD_SET } from "../../../shared/formats/layer-c-fields.js";
import { REPLAY_EVENT_FIELDS_OF_SCHEMAS } from "../../../shared/formats/replay-jsonl/fields.js";
import { PROJECT_ROOT } from "../../support/corpus.js";

describe("Layer C's field lists as data", () => {
  it("are what npm run schemas writes from the format schemas (run it when this fails)", () => {
    const committed = readFileSync(join(PROJECT_ROOT, "shared", "formats", "layer-c-fields.json"), "utf8");
    expect(committed).toBe(layerCFieldsJson());
  });

  it("read back as the schemas' own field sets, every dialect and event type", () => {
    expect(REPLAY_EVENT_FIELDS).toEqual(REPLAY_EVENT_FIELDS_OF_SCHEMAS);
    expect(SPAN_FIELD_SET).toEqual(SPAN_FIELD_SET_OF_SCHEMA);
    expect(REPLAY_EVENT_FIELDS["replay-v1"].byType.get("ToolCall")?.known.has("params_hash")).toBe(true);
  });

  it("leave zod out of the line worker (it costs every worker thread about 14 MB)", () => {
    const worker = readFileSync(join(PROJECT_ROOT, "dist", "line-worker.js"), "utf8");
    expect(worker).toContain("@secretlint/secretlint-rule-preset-recommend");
    expect(worker).not.toMatch(/from "zod"/);
  });
});
