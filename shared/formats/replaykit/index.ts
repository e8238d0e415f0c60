/** ReplayKit `.rpk` artifacts: schemas, the producer's hashes, the reader, and what Layer C keeps. */
export { RPK_FIELDS } from "./fields.js";
export { computeChecksum, computeStepHash, stepContent } from "./hashes.js";
export { isReplaykitArtifact, replaykitFormat } from "./reader.js";
export { LEGACY_VERSION, STEP_TYPES } from "./schema.js";
