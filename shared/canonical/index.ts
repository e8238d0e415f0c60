/** Lossless JSON reading, the three producers' canonical forms, and SHA-256 tags. */
export { ByteCanonicalizer, ByteSink } from "./byte-canonical.js";
export { cutsOfSplit, type RawCuts, rawContainers } from "./byte-scan.js";
export { canonicalHash, isSha256Tag, SHA256_TAG, type Sha256Tag, sha256Tag } from "./hash.js";
export { DEFAULT_MAX_DEPTH, lineColumnAt, readJson } from "./json-reader.js";
export { isJsonObject, JsonNumber, type JsonObject, type JsonValue, setMember } from "./json-value.js";
export {
  type ByteLine,
  canonicalDocument,
  canonicalJsonLines,
  decodeUtf8,
  isBlankBytes,
  prependGroup,
  readByteLineGroups,
} from "./jsonl.js";
export { compareCodePoints } from "./numbers.js";
export {
  canonicalize,
  isProfile,
  memberPath,
  PROFILES,
  type Profile,
} from "./profiles.js";
export {
  hashOf,
  inputOrder,
  type MemberHashes,
  memberValue,
  nameBytes,
  readSplit,
  type SplitLine,
  SplitView,
  splitInto,
  splitLine,
} from "./shallow.js";
export { assertText } from "./sniff.js";
