/** Lossless JSON reading, the three producers' canonical forms, and SHA-256 tags. */
export {
  ByteCanonicalizer,
  ByteSink,
  canonicalizeBytes,
  type TopLevelMembers,
} from "./byte-canonical.js";
export { cutsOfSplit, type RawCuts, rawContainers } from "./byte-scan.js";
export { canonicalHash, SHA256_TAG, type Sha256Tag, sha256Tag } from "./hash.js";
export { DEFAULT_MAX_DEPTH, lineColumnAt, type ReadOptions, readJson } from "./json-reader.js";
export { isJsonObject, JsonNumber, type JsonObject, type JsonValue, setMember } from "./json-value.js";
export {
  type ByteLine,
  type CanonicalInputOptions,
  canonicalDocument,
  canonicalInto,
  canonicalJsonLines,
  decodeUtf8,
  isBlankBytes,
  type LineOptions,
  readByteLines,
} from "./jsonl.js";
export { compareCodePoints } from "./numbers.js";
export {
  type CanonicalOptions,
  canonicalize,
  isProfile,
  memberPath,
  PROFILES,
  type Profile,
  pathTo,
  rejectsLoneSurrogates,
} from "./profiles.js";
export {
  hashOf,
  inputOrder,
  type MemberHashes,
  nameBytes,
  readSplit,
  readView,
  type SplitLine,
  SplitView,
  splitInto,
  splitLine,
  valueAt,
} from "./shallow.js";
export { assertText, type NotText, notTextError, SNIFF_BYTES, sniffText } from "./sniff.js";
