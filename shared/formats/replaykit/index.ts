/** ReplayKit `.rpk` artifacts: schemas, the producer's hashes, the reader, and what Layer C keeps. */
export { RPK_FIELDS } from "./fields.js";
export { computeChecksum, computeStepHash, type StepContent, stepContent } from "./hashes.js";
export { isReplaykitArtifact, replaykitFormat } from "./reader.js";
export { LEGACY_VERSION, RUN_KEYS, STEP_KEYS, STEP_TYPES } from "./schema.js";
