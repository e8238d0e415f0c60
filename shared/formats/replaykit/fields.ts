/** What Layer C keeps of a ReplayKit run and its steps: the members the producer writes, 1.x and 0.9. */
import { LEGACY_RUN_KEYS, LEGACY_STEP_KEYS, RUN_KEYS, STEP_KEYS } from "./schema.js";

/** A step's raw content: 1.x `input`/`output`; 0.9 also `request`/`response`, which stand in for them. */
const CONTENT = ["input", "output"];
const LEGACY_CONTENT = [...CONTENT, "request", "response"];

/**
 * The run and step members of every version (`run`, `step`: the step's content left out), and a
 * step's content members in 1.x (`stepContent`) and in 0.9 (`legacyStepContent`).
 */
export const RPK_FIELDS: {
  run: ReadonlySet<string>;
  step: ReadonlySet<string>;
  stepContent: ReadonlySet<string>;
  legacyStepContent: ReadonlySet<string>;
} = {
  run: new Set([...RUN_KEYS, ...LEGACY_RUN_KEYS]),
  step: new Set([...STEP_KEYS, ...LEGACY_STEP_KEYS].filter((k) => !LEGACY_CONTENT.includes(k))),
  stepContent: new Set(CONTENT),
  legacyStepContent: new Set(LEGACY_CONTENT),
};
