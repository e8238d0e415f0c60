/**
 * Generators of the Layer C leak property over whole replay files (`leak-formats.property.test.ts`).
 *
 * A session is generated in two steps:
 * 1. a SKELETON: a valid session of one format whose free strings and object keys may hold MARKERS
 *    (`⟦P<n>@<where>⟧`) instead of secrets, hashes not yet computed;
 * 2. `render`: every marker becomes plant `n` (mod the number of plants) of the case, encoded raw, base64,
 *    base64url or percent-encoded; the plants actually used are recorded with where they went. Then the
 *    format's finalizer computes the real hashes (params_hash, output_hash, payload_hash, plan_hash, `.rpk`
 *    step hashes and checksum) over the rendered content, and the file is serialized.
 *
 * Secrets have realistic random bodies (same shapes as `leak-rules.property.test.ts`); filler text is made of
 * random words, identifiers, paths and numbers.
 */

import fc from "fast-check";
import { canonicalHash, JsonNumber, type JsonObject, type JsonValue } from "#shared/canonical/index.js";
import { STEP_TYPES } from "#shared/formats/replaykit/index.js";
import { isStructuralKey } from "#shared/redact/layer-c/policy.js";

// ---------------------------------------------------------------------------------------------------------
// Secrets

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_NUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const B64 = `${ALNUM}+/`;
const URLSAFE = `${ALNUM}_-`;

const chars = (alphabet: string, min: number, max = min): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(""));

/** A random body with at least one digit, one upper and one lower letter, like every real token. */
const token = (alphabet: string, min: number, max = min): fc.Arbitrary<string> =>
  fc
    .tuple(
      chars(alphabet, min - 3, max - 3),
      fc.constantFrom(..."0123456789"),
      fc.constantFrom(..."QWERTYUP"),
      fc.constantFrom(..."qwertyup"),
    )
    .map(([body, d, u, l]) => `${d}${body}${u}${l}`);

/**
 * A password. It never starts with `$`: `$QX0XJ219` (`$` then capitals, digits, `_`) is a variable
 * reference to the rules (`CODE_REFERENCE`, as `$DB_PASSWORD`), not a value.
 */
const password = fc
  .tuple(chars(`${ALNUM}!*-_.~+=`, 1), chars(`${ALNUM}!$*-_.~+=`, 7, 23))
  .map(([first, rest]) => `${first}${rest}9`);

/** One planted item: the text inserted, and the parts of it that must not survive redaction. */
export interface Plant {
  kind: string;
  text: string;
  secrets: string[];
}

const plant = (kind: string, arb: fc.Arbitrary<[string, string[]]>): fc.Arbitrary<Plant> =>
  arb.map(([text, secrets]) => ({ kind, text, secrets }));

/** Every kind of secret the rules know, with random bodies. */
export const PLANTS: Record<string, fc.Arbitrary<Plant>> = {
  "openai-legacy": plant(
    "openai-legacy",
    token(ALNUM, 48).map((b) => [`sk-${b}`, [`sk-${b}`]]),
  ),
  "openai-proj": plant(
    "openai-proj",
    token(URLSAFE, 100, 160).map((b) => [`sk-proj-${b}`, [`sk-proj-${b}`]]),
  ),
  anthropic: plant(
    "anthropic",
    token(URLSAFE, 93).map((b) => [`sk-ant-api03-${b}AA`, [`sk-ant-api03-${b}AA`]]),
  ),
  "aws-key-pair": plant(
    "aws-key-pair",
    fc
      .tuple(
        fc.constantFrom("AKIA", "ASIA"),
        chars(UPPER_NUM, 16),
        token(B64, 40),
        fc.constantFrom("\n", " ", ", "),
        fc.constantFrom(
          ["aws_access_key_id=", "aws_secret_access_key="],
          ["AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY="],
          ["AccessKeyId: ", "SecretAccessKey: "],
        ),
      )
      .map(([p, id, secret, sep, [l1, l2]]) => [`${l1}${p}${id}${sep}${l2}${secret}`, [`${p}${id}`, secret]]),
  ),
  "aws-key-id": plant(
    "aws-key-id",
    fc
      .tuple(fc.constantFrom("AKIA", "ASIA", "AROA"), chars(UPPER_NUM, 16))
      .map(([p, id]) => [`${p}${id}`, [`${p}${id}`]]),
  ),
  github: plant(
    "github",
    fc
      .tuple(fc.constantFrom("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), token(ALNUM, 36))
      .map(([p, b]) => [`${p}${b}`, [`${p}${b}`]]),
  ),
  "github-pat": plant(
    "github-pat",
    token(`${ALNUM}_`, 82).map((b) => [`github_pat_${b}`, [`github_pat_${b}`]]),
  ),
  slack: plant(
    "slack",
    fc
      .tuple(
        fc.constantFrom("xoxb", "xoxp", "xoxa", "xoxs", "xoxr", "xoxo"),
        chars("0123456789", 12),
        chars("0123456789", 13),
        token(ALNUM, 24),
      )
      .map(([p, a, b, c]) => [`${p}-${a}-${b}-${c}`, [`${p}-${a}-${b}-${c}`]]),
  ),
  jwt: plant(
    "jwt",
    fc
      .tuple(
        fc.constantFrom("HS256", "RS256", "ES384"),
        fc.integer({ min: 1, max: 1e9 }),
        chars("abcdefghij", 3, 12),
        token(URLSAFE, 43, 86),
      )
      .map(([alg, sub, name, sig]) => {
        const h = Buffer.from(JSON.stringify({ alg, typ: "JWT" })).toString("base64url");
        const p = Buffer.from(JSON.stringify({ sub: String(sub), name, iat: 1516239022 })).toString(
          "base64url",
        );
        const jwt = `${h}.${p}.${sig}`;
        return [jwt, [jwt, `${p}.${sig}`]];
      }),
  ),
  pem: plant(
    "pem",
    fc
      .tuple(
        fc.constantFrom(
          "RSA PRIVATE KEY",
          "PRIVATE KEY",
          "EC PRIVATE KEY",
          "OPENSSH PRIVATE KEY",
          "ENCRYPTED PRIVATE KEY",
        ),
        fc.array(token(B64, 64), { minLength: 2, maxLength: 6 }),
        fc.constantFrom("\n", "\\n", "\r\n"),
      )
      .map(([label, lines, nl]) => [
        [`-----BEGIN ${label}-----`, ...lines, `-----END ${label}-----`].join(nl),
        lines,
      ]),
  ),
  "url-password": plant(
    "url-password",
    fc
      .tuple(
        fc.constantFrom("https", "http", "ftp", "ssh", "git+https"),
        chars("abcdefgh", 3, 8),
        password,
        fc.constantFrom("example.com", "git.corp.internal:8443"),
      )
      .map(([s, u, p, h]) => [`${s}://${u}:${p}@${h}/path`, [p]]),
  ),
  "db-connection": plant(
    "db-connection",
    fc
      .tuple(
        fc.constantFrom("postgres", "postgresql", "mysql", "mongodb", "mongodb+srv", "redis", "rediss"),
        chars("abcdefgh", 0, 8),
        password,
      )
      .map(([s, u, p]) => [`${s}://${u}:${p}@db.internal:5432/app?sslmode=require`, [p]]),
  ),
  bearer: plant(
    "bearer",
    fc
      .tuple(
        fc.constantFrom("Authorization: Bearer ", "authorization: bearer ", "-H 'Authorization: Bearer "),
        token(`${URLSAFE}.~`, 20, 60),
      )
      .map(([h, t]) => [`${h}${t}${h.endsWith("Bearer ") && h.startsWith("-H") ? "'" : ""}`, [t]]),
  ),
  assignment: plant(
    "assignment",
    fc
      .tuple(
        fc.constantFrom("password=", "DB_PASSWORD=", "token: ", "api_key = ", "secret: '", "client_secret='"),
        password,
      )
      .map(([n, p]) => [`${n}${p}${n.endsWith("'") ? "'" : ""}`, [p]]),
  ),
};

export const PLANT_KINDS: readonly string[] = Object.keys(PLANTS);

export type Encoding = "raw" | "base64" | "base64url" | "percent";

export function encode(s: string, e: Encoding): string {
  return e === "raw" ? s : e === "percent" ? encodeURIComponent(s) : Buffer.from(s).toString(e);
}

/** The plants of one case, each with its encoding. */
export interface Plants {
  items: { plant: Plant; encoding: Encoding }[];
}

export const plantsArb = (kinds: readonly string[] = PLANT_KINDS): fc.Arbitrary<Plants> =>
  fc
    .array(
      fc.tuple(
        fc.oneof(...kinds.map((k) => PLANTS[k] as fc.Arbitrary<Plant>)),
        fc.constantFrom<Encoding>("raw", "raw", "raw", "raw", "base64", "base64url", "percent"),
      ),
      { minLength: 1, maxLength: 6 },
    )
    .map((items) => ({ items: items.map(([plant, encoding]) => ({ plant, encoding })) }));

// ---------------------------------------------------------------------------------------------------------
// Markers and filler text

/** Where a marker can go (reported in coverage and in failures). */
export type Where =
  | "params"
  | "output"
  | "nested-array"
  | "key"
  | "event-key"
  | "command"
  | "tool"
  | "error"
  | "span-name"
  | "metadata"
  | "unknown-event"
  | "unknown-field"
  | "unknown-structural"
  | "text";

const marker = (where: Where): fc.Arbitrary<string> => fc.nat({ max: 5 }).map((n) => `⟦P${n}@${where}⟧`);

const SEP = fc.constantFrom(
  " ",
  "\n",
  "\t",
  ", ",
  "; ",
  " (",
  ") ",
  ' "',
  '" ',
  " '",
  "' ",
  ": ",
  " [",
  "] ",
  " | ",
  "\r\n",
);
const word = fc.oneof(
  { weight: 5, arbitrary: fc.stringMatching(/^[a-z]{1,9}$/) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Z][a-z]{2,8}$/) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 99999 }).map(String) },
  { weight: 1, arbitrary: fc.stringMatching(/^(src|lib|test)\/[a-z]{2,8}\.(ts|rs|py)$/) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "npm",
      "test",
      "cargo",
      "ERROR:",
      "=>",
      "{",
      "}",
      "ok",
      "GET",
      "/api/v1/items",
    ),
  },
);
const words = (max: number): fc.Arbitrary<string> =>
  fc.array(word, { maxLength: max }).map((w) => w.join(" "));

/** Free text; with probability `p`, a secret marker between separators somewhere in it. */
const text = (where: Where, p = 0.35, maxWords = 8): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: Math.round((1 - p) * 100), arbitrary: words(maxWords) },
    {
      weight: Math.round(p * 100),
      arbitrary: fc
        .tuple(words(maxWords), SEP, marker(where), SEP, words(maxWords))
        .map(([a, s1, m, s2, b]) => `${a}${s1}${m}${s2}${b}`),
    },
  );

/** Text that always holds a marker. */
const secretText = (where: Where): fc.Arbitrary<string> => text(where, 1);

/** Non-empty free text (fields the schemas require non-empty). */
export const nonEmptyText = (where: Where, p = 0.35): fc.Arbitrary<string> =>
  fc.tuple(fc.stringMatching(/^[a-z]{2,8}$/), text(where, p, 5)).map(([a, b]) => `${a} ${b}`);

// Keys the bodies avoid: hash-named keys are kept verbatim by design, and ReplayKit normalizes timestamp and
// path keys (the hashes would still match, but that is not what this test is about).
const RESERVED_KEY =
  /^(hash|checksum)$|_hash$|^(timestamp|created_at|updated_at|started_at|ended_at|captured_at|path|file|filepath|file_path|cwd|dir|directory|working_directory)$|_path$|_dir$|^__proto__$/;

const plainKey = fc
  .oneof(
    fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/),
    fc.constantFrom(
      "name",
      "query",
      "args",
      "url",
      "cmd",
      "env",
      "headers",
      "notes",
      "log",
      "lines",
      "config",
    ),
  )
  .filter((k) => !RESERVED_KEY.test(k));

/** An object key: usually plain, sometimes a marker (a secret AS the key). */
const key = (where: Where): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 9, arbitrary: plainKey },
    { weight: 1, arbitrary: marker("key").map((m) => `k ${m} ${where}`) },
  );

const int = (min: number, max: number): fc.Arbitrary<JsonNumber> =>
  fc.integer({ min, max }).map((n) => new JsonNumber(String(n)));

/** A random JSON body (tool params, outputs, metadata) with markers in strings, keys and nested arrays. */
const body = (where: Where, depth = 3): fc.Arbitrary<JsonValue> => {
  const tie = fc.letrec<{ value: JsonValue; obj: JsonObject; arr: JsonValue[] }>((rec) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      text(where),
      int(-1000, 100000),
      fc.boolean(),
      fc.constant(null),
      rec("arr"),
      rec("obj"),
    ),
    arr: fc.array(fc.oneof(text("nested-array"), rec("value")), { maxLength: 4 }),
    obj: fc
      .array(fc.tuple(key(where), rec("value")), { maxLength: 5 })
      .map((entries) => Object.fromEntries(entries) as JsonObject),
  }));
  return depth <= 0 ? text(where) : tie.obj;
};

/** A body that is an object (schemas that want one). */
const objectBody = (where: Where): fc.Arbitrary<JsonObject> =>
  fc.tuple(body(where), text(where, 0.5)).map(([b, t]) => ({ ...(b as JsonObject), note: t }) as JsonObject);

/** Options of the session generators. */
export interface GenOptions {
  /**
   * Plant secrets in the NAMES of unknown top-level members of events / spans / steps / entries / documents
   * (placement "event-key"). Default true.
   */
  eventKeySecrets?: boolean;
  /**
   * Add unknown top-level members with structural-looking names (`aws_access_key_id`, `expires_at`, …) holding
   * secrets (placement "unknown-structural"). Default true.
   */
  structuralNameSecrets?: boolean;
  /**
   * `.rpk` only: give each step input members whose names Layer C keeps inside masked raw content
   * (structural names and allow-listed ones, such as `call_id`, `status`, `tool`, `name`), holding
   * secrets (placement "params"). Default false.
   */
  keptNameSecrets?: boolean;
}

/** Member names `.rpk` masking keeps inside raw content (structural, or on a preset's allow-list). */
const KEPT_NAMES = ["call_id", "status", "type", "tool", "name", "model", "event_type", "started_at"];

/**
 * Realistic unknown member names that LOOK structural to Layer C (`isStructuralKey`: `*_id`, `*_at`, `*_ms`,
 * …), whose values may be secrets (placement "unknown-structural").
 */
const STRUCTURAL_LOOKING = [
  "aws_access_key_id",
  "client_id",
  "key_id",
  "installation_id",
  "expires_at",
  "retry_after_ms",
];

/** Unknown fields added to a known event (names sometimes a marker, see `GenOptions`). */
const unknownFields = (maxFields = 2, opts: GenOptions = {}): fc.Arbitrary<JsonObject> => {
  const plainName = fc.stringMatching(/^x_[a-z]{2,10}$/).filter((k) => !isStructuralKey(k));
  const plain = fc.tuple(plainName, fc.oneof(text("unknown-field", 0.6), body("unknown-field")));
  const secretName = fc.tuple(
    marker("event-key").map((m) => `x ${m}`),
    fc.oneof(text("unknown-field", 0.6), body("unknown-field")),
  );
  const structural = fc.tuple(fc.constantFrom(...STRUCTURAL_LOOKING), secretText("unknown-structural"));
  const entries: fc.WeightedArbitrary<[string, JsonValue]>[] = [{ weight: 3, arbitrary: plain }];
  if (opts.eventKeySecrets !== false) entries.push({ weight: 1, arbitrary: secretName });
  if (opts.structuralNameSecrets !== false) entries.push({ weight: 1, arbitrary: structural });
  return fc
    .array(fc.oneof(...entries), { maxLength: maxFields })
    .map((e) => Object.fromEntries(e) as JsonObject);
};

const isoTime = fc
  .integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 })
  .map((ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z"));

const idArb = (prefix: string): fc.Arbitrary<string> =>
  fc.stringMatching(/^[a-z0-9]{6,12}$/).map((s) => `${prefix}_${s}`);

// ---------------------------------------------------------------------------------------------------------
// Rendering

/** Where each used plant went, for coverage and messages. */
export interface Used {
  plant: Plant;
  encoding: Encoding;
  where: Where;
}

const MARKER = /⟦P(\d+)@([a-z-]+)⟧/g;

/** Replaces the markers of `value` (strings and keys) with the plants; returns the used ones. */
export function render<T extends JsonValue>(value: T, plants: Plants, used: Used[]): T {
  const sub = (s: string): string =>
    s.includes("⟦")
      ? s.replace(MARKER, (_m, n: string, where: string) => {
          const item = plants.items[Number(n) % plants.items.length] as Plants["items"][number];
          used.push({ plant: item.plant, encoding: item.encoding, where: where as Where });
          return encode(item.plant.text, item.encoding);
        })
      : s;
  const walk = (v: JsonValue): JsonValue => {
    if (typeof v === "string") return sub(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object" || v instanceof JsonNumber) return v;
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) out[sub(k)] = walk(x);
    return out;
  };
  return walk(value) as T;
}

export const hashOa = (v: JsonValue): string => canonicalHash(v, "openagents");
export const hashRk = (v: JsonValue): string => canonicalHash(v, "replaykit");

// ---------------------------------------------------------------------------------------------------------
// Sessions

/** A generated file: its bytes, how many events/lines/steps/entries it has, and where the plants went. */
export interface Session {
  format:
    | "replay-v1"
    | "replay-dsrs"
    | "replay-adr0003"
    | "braintrust-spans"
    | "replaykit-rpk"
    | "replay-bundle";
  bytes: string;
  /** The parsed original (events of a JSON Lines file, or the document). */
  value: JsonValue;
  events: number;
  used: Used[];
}

const num = (x: number): JsonNumber => new JsonNumber(String(x));
const toolName = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom("bash", "read_file", "edit_file", "mcp__github__create_issue", "web_fetch"),
  },
  { weight: 1, arbitrary: nonEmptyText("tool", 0.6) },
);
const unknownType = fc.oneof(
  fc.constantFrom("AgentThought", "Checkpoint", "Note", "ModelCall", "Compaction"),
  fc.stringMatching(/^[A-Z][a-z]{3,8}[A-Z][a-z]{2,6}$/),
);
const unitInterval = fc.integer({ min: 0, max: 100 }).map((n) => new JsonNumber((n / 100).toFixed(2)));
const utility = fc.integer({ min: -100, max: 100 }).map((n) => new JsonNumber((n / 100).toFixed(2)));

/** Timestamps in order, one per event. */
const times = (n: number): fc.Arbitrary<string[]> =>
  fc
    .tuple(isoTime, fc.array(fc.integer({ min: 0, max: 120_000 }), { minLength: n, maxLength: n }))
    .map(([start, deltas]) => {
      let ms = Date.parse(start);
      return deltas.map((d) => {
        ms += d;
        return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
      });
    });

type Middle = "call" | "verification" | "runtime" | "unknown";
const middles = (extra: Middle[]): fc.Arbitrary<Middle[]> =>
  fc.array(fc.constantFrom<Middle>("call", "call", ...extra), { minLength: 1, maxLength: 6 });

function lines(events: JsonObject[], format: Session["format"], used: Used[]): Session {
  return {
    format,
    bytes: `${events.map((e) => JSON.stringify(e)).join("\n")}\n`,
    value: events,
    events: events.length,
    used,
  };
}

function withHash(e: JsonObject, from: string, to: string): JsonObject {
  return Object.hasOwn(e, from) ? { ...e, [to]: hashOa(e[from] as JsonValue) } : e;
}

/** REPLAY.jsonl v1 (`type`/`ts`, `step_id`). */
const replayV1 = (plants: fc.Arbitrary<Plants>, opts: GenOptions = {}): fc.Arbitrary<Session> =>
  fc
    .record({
      plants,
      kinds: middles(["verification", "runtime", "unknown"]),
      sessionId: idArb("sess"),
      producer: nonEmptyText("metadata", 0.2),
      start: fc.record({
        policy_bundle_id: idArb("pb"),
        repo: objectBody("metadata"),
        lane: text("text"),
      }),
      unknown: unknownFields(2, opts),
      end: fc.record({
        status: fc.constantFrom("success", "failure", "cancelled", "timeout"),
        confidence: unitInterval,
        summary: text("text"),
      }),
    })
    .chain((s) =>
      fc
        .tuple(
          times(s.kinds.length + 2),
          fc.array(
            fc.record({
              tool: toolName,
              params: objectBody("params"),
              ok: fc.boolean(),
              output: body("output"),
              latency: fc.integer({ min: 0, max: 90_000 }),
              effects: fc.array(text("nested-array"), { maxLength: 3 }),
              error: fc.record({
                message: secretText("error"),
                code: fc.constantFrom("E_TOOL", "ETIMEDOUT"),
              }),
              command: nonEmptyText("command", 0.7),
              exit: fc.integer({ min: 0, max: 2 }),
              payload: body("params"),
              rtype: fc.oneof(
                fc.constantFrom("agent.message", "tool.progress"),
                nonEmptyText("unknown-event", 0.3),
              ),
              utype: unknownType,
              umsg: text("unknown-event", 0.7),
              ubody: body("unknown-event"),
              extra: unknownFields(2, opts),
            }),
            { minLength: s.kinds.length, maxLength: s.kinds.length },
          ),
        )
        .map(([ts, details]) => {
          const used: Used[] = [];
          const p = s.plants;
          const events: JsonObject[] = [
            {
              type: "ReplayHeader",
              replay_version: num(1),
              producer: s.producer,
              created_at: ts[0] as string,
            },
            { type: "SessionStart", ts: ts[0] as string, session_id: s.sessionId, ...s.start, ...s.unknown },
          ];
          let seq = 0;
          s.kinds.forEach((kind, i) => {
            const d = details[i] as (typeof details)[number];
            const t = ts[i + 1] as string;
            const stepId = `step_${i}`;
            if (kind === "call") {
              events.push({
                type: "ToolCall",
                ts: t,
                session_id: s.sessionId,
                step_id: stepId,
                tool: d.tool,
                params: d.params,
                ...d.extra,
              });
              events.push({
                type: "ToolResult",
                ts: t,
                step_id: stepId,
                ok: d.ok,
                output: d.output,
                latency_ms: num(d.latency),
                side_effects: d.effects,
                error: d.ok ? null : d.error,
              });
            } else if (kind === "verification") {
              events.push({
                type: "Verification",
                ts: t,
                command: d.command,
                exit_code: num(d.exit),
                ...d.extra,
              });
            } else if (kind === "runtime") {
              events.push({
                type: "RuntimeEvent",
                ts: t,
                seq: num(seq++),
                runtime_event_type: d.rtype,
                payload: d.payload,
                idempotency_key: `idem_${i}`,
              });
            } else {
              events.push({
                type: d.utype,
                ts: t,
                message: d.umsg,
                tool: d.tool,
                kind: d.umsg,
                details: d.ubody,
                ...d.extra,
              });
            }
          });
          events.push({
            type: "SessionEnd",
            ts: ts[ts.length - 1] as string,
            session_id: s.sessionId,
            ...s.end,
          });
          const rendered = render(events as JsonValue, p, used) as JsonObject[];
          const final = rendered.map((e) =>
            withHash(
              withHash(withHash(e, "params", "params_hash"), "output", "output_hash"),
              "payload",
              "payload_hash",
            ),
          );
          return lines(final, "replay-v1", used);
        }),
    );

/** REPLAY.jsonl, dsrs dialect (`event`/`t`, calls paired by `id`). */
const replayDsrs = (plants: fc.Arbitrary<Plants>, opts: GenOptions = {}): fc.Arbitrary<Session> =>
  fc
    .record({
      plants,
      kinds: middles(["verification", "unknown"]),
      sessionId: idArb("sess"),
      producer: nonEmptyText("metadata", 0.2),
      policy: text("text"),
      plan: body("params"),
      unknown: unknownFields(2, opts),
      end: fc.record({
        status: fc.constantFrom("Success", "Failed", "Cancelled", "Timeout"),
        confidence: unitInterval,
      }),
    })
    .chain((s) =>
      fc
        .tuple(
          times(s.kinds.length + 3),
          fc.array(
            fc.record({
              tool: toolName,
              params: body("params"),
              output: body("output"),
              exit: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
              utility,
              latency: fc.integer({ min: 0, max: 90_000 }),
              status: fc.constantFrom("Success", "Failed", "Skipped"),
              commands: fc.array(nonEmptyText("command", 0.6), { minLength: 1, maxLength: 3 }),
              utype: unknownType,
              umsg: text("unknown-event", 0.7),
              ubody: body("unknown-event"),
              extra: unknownFields(2, opts),
            }),
            { minLength: s.kinds.length, maxLength: s.kinds.length },
          ),
        )
        .map(([ts, details]) => {
          const used: Used[] = [];
          let calls = 0;
          let latency = 0;
          const events: JsonObject[] = [
            {
              event: "ReplayHeader",
              replay_version: num(1),
              producer: s.producer,
              created_at: ts[0] as string,
            },
            {
              event: "SessionStart",
              t: ts[0] as string,
              session_id: s.sessionId,
              issue_number: num(42),
              policy_version: s.policy,
              ...s.unknown,
            },
            { event: "PlanStart", t: ts[1] as string, plan: s.plan, step_count: num(s.kinds.length) },
          ];
          s.kinds.forEach((kind, i) => {
            const d = details[i] as (typeof details)[number];
            const t = ts[i + 2] as string;
            if (kind === "call") {
              calls++;
              latency += d.latency;
              events.push({
                event: "ToolCall",
                t,
                id: `call_${i}`,
                tool: d.tool,
                params: d.params,
                step_id: `s${i}`,
                ...d.extra,
              });
              const result: JsonObject = {
                event: "ToolResult",
                t,
                id: `call_${i}`,
                output: d.output,
                step_utility: d.utility,
                latency_ms: num(d.latency),
              };
              if (d.exit !== undefined) result.exit_code = num(d.exit);
              events.push(result);
              events.push({
                event: "StepComplete",
                t,
                step_id: `s${i}`,
                status: d.status,
                iterations: num(1),
              });
            } else if (kind === "verification") {
              events.push({
                event: "Verification",
                t,
                commands: d.commands,
                exit_codes: d.commands.map(() => num(0)),
                verification_delta: num(1),
                ...d.extra,
              });
            } else {
              events.push({
                event: d.utype,
                t,
                message: d.umsg,
                tool: d.tool,
                phase: d.umsg,
                details: d.ubody,
              });
            }
          });
          events.push({
            event: "SessionEnd",
            t: ts[ts.length - 1] as string,
            ...s.end,
            total_tool_calls: num(calls),
            total_latency_ms: num(latency),
          });
          const rendered = render(events as JsonValue, s.plants, used) as JsonObject[];
          const final = rendered.map((e) => {
            // PlanStart carries the hash of its plan (kept by the copy; the plan itself is free content).
            if (e.event === "PlanStart") {
              const { plan, ...rest } = e;
              return { ...rest, plan_hash: hashOa(plan as JsonValue), plan_text: plan as JsonValue };
            }
            return withHash(withHash(e, "params", "params_hash"), "output", "output_hash");
          });
          return lines(final, "replay-dsrs", used);
        }),
    );

/** REPLAY.jsonl, ADR-0003 variant (no timestamps on events, calls paired by `id`). */
const replayAdr0003 = (plants: fc.Arbitrary<Plants>, opts: GenOptions = {}): fc.Arbitrary<Session> =>
  fc
    .record({
      plants,
      kinds: middles(["verification", "unknown"]),
      sessionId: idArb("sess"),
      started: isoTime,
      task: text("command", 0.6),
      context: objectBody("metadata"),
      instructions: text("text"),
      unknown: unknownFields(2, opts),
      endOutcome: fc.constantFrom("success", "failure", "timeout"),
      errorMessage: secretText("error"),
      details: fc.array(
        fc.record({
          tool: toolName,
          params: body("params"),
          output: body("output"),
          utility,
          latency: fc.integer({ min: 0, max: 90_000 }),
          effects: fc.array(fc.oneof(text("nested-array"), body("nested-array")), { maxLength: 3 }),
          ci: text("command"),
          utype: unknownType,
          umsg: text("unknown-event", 0.7),
          ubody: body("unknown-event"),
          extra: unknownFields(2, opts),
        }),
        { minLength: 6, maxLength: 6 },
      ),
    })
    .map((s) => {
      const used: Used[] = [];
      const events: JsonObject[] = [
        {
          type: "ReplayHeader",
          version: "1.0.0",
          session_id: s.sessionId,
          started_at: s.started,
          policy_bundle_id: "pb_default",
        },
        {
          type: "SessionStart",
          task: s.task,
          context: s.context,
          instructions: s.instructions,
          ...s.unknown,
        },
      ];
      s.kinds.forEach((kind, i) => {
        const d = s.details[i] as (typeof s.details)[number];
        if (kind === "call") {
          events.push({ type: "ToolCall", id: `tc_${i}`, tool: d.tool, params: d.params, ...d.extra });
          events.push({
            type: "ToolResult",
            id: `tc_${i}`,
            output: d.output,
            step_utility: d.utility,
            latency_ms: num(d.latency),
            side_effects: d.effects,
          });
        } else if (kind === "verification") {
          events.push({
            type: "Verification",
            tests_before: num(3),
            tests_after: num(5),
            delta: num(2),
            ci_status: d.ci,
            ...d.extra,
          });
        } else {
          events.push({ type: d.utype, message: d.umsg, tool: d.tool, event_type: d.umsg, details: d.ubody });
        }
      });
      const end: JsonObject = { type: "SessionEnd", ended_at: s.started, outcome: s.endOutcome };
      if (s.endOutcome !== "success") end.error_message = s.errorMessage;
      events.push(end);
      const rendered = render(events as JsonValue, s.plants, used) as JsonObject[];
      const final = rendered.map((e) =>
        withHash(withHash(e, "params", "params_hash"), "output", "output_hash"),
      );
      return lines(final, "replay-adr0003", used);
    });

const messages = (where: Where): fc.Arbitrary<JsonValue> =>
  fc
    .array(fc.tuple(fc.constantFrom("system", "user", "assistant"), text(where, 0.4)), {
      minLength: 1,
      maxLength: 3,
    })
    .map((m) => [...m.map(([role, content]) => ({ role, content })), { role: "user", content: "continue" }]);

/** Braintrust span trace: a root, turns (`task`, "Turn …"), and `llm`/`tool` children. */
const braintrust = (plants: fc.Arbitrary<Plants>, opts: GenOptions = {}): fc.Arbitrary<Session> =>
  fc
    .record({
      plants,
      rootId: idArb("root"),
      start: fc.integer({ min: 1_700_000_000, max: 1_800_000_000 }),
      rootName: nonEmptyText("span-name"),
      rootMeta: objectBody("metadata"),
      rootInput: body("params"),
      turns: fc.array(
        fc.record({
          input: fc.oneof(text("params", 0.5), messages("params")),
          name: text("span-name"),
          meta: objectBody("metadata"),
          output: body("output"),
          children: fc.array(
            fc.record({
              kind: fc.constantFrom("llm", "tool"),
              name: text("span-name"),
              toolName: toolName,
              model: fc.constantFrom("gpt-4o", "claude-sonnet-4", "o3-mini"),
              input: fc.oneof(messages("params"), body("params")),
              output: fc.oneof(fc.record({ content: text("output", 0.5) }), body("output")),
              meta: objectBody("metadata"),
              error: fc.option(secretText("error"), { nil: undefined }),
              tags: fc.array(text("nested-array", 0.2, 2), { maxLength: 2 }),
              extra: unknownFields(2, opts),
            }),
            { minLength: 1, maxLength: 3 },
          ),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    })
    .map((s) => {
      const used: Used[] = [];
      let clock = s.start;
      const created = (): { created: string; metrics: JsonObject } => {
        const start = clock;
        clock += 2;
        return {
          created: new Date(start * 1000).toISOString(),
          metrics: { start: num(start), end: num(start + 1) },
        };
      };
      const root = s.rootId;
      const spans: JsonObject[] = [
        {
          id: `${root}_row`,
          span_id: root,
          root_span_id: root,
          span_parents: [],
          ...created(),
          input: s.rootInput,
          metadata: { ...s.rootMeta, model: "gpt-4o", session_id: `sess_${root}` },
          span_attributes: { name: s.rootName, type: "task" },
          is_root: true,
        },
      ];
      s.turns.forEach((turn, i) => {
        const turnId = `${root}_t${i}`;
        spans.push({
          id: `${turnId}_row`,
          span_id: turnId,
          root_span_id: root,
          span_parents: [root],
          ...created(),
          input: turn.input,
          output: turn.output,
          metadata: turn.meta,
          span_attributes: { name: `Turn ${i + 1} ${turn.name}`, type: "task" },
        });
        turn.children.forEach((c, j) => {
          const span: JsonObject = {
            id: `${turnId}_c${j}_row`,
            span_id: `${turnId}_c${j}`,
            root_span_id: root,
            span_parents: [turnId],
            ...created(),
            input: c.input,
            output: c.output,
            metadata:
              c.kind === "llm"
                ? { ...c.meta, model: c.model, prompt_hash: "" }
                : { ...c.meta, tool_name: c.toolName },
            span_attributes: { name: c.kind === "tool" ? c.toolName : c.name, type: c.kind },
            tags: c.tags,
            scores: { relevance: num(1) },
            ...c.extra,
          };
          if (c.error !== undefined) span.error = c.error;
          spans.push(span);
        });
      });
      const rendered = render(spans as JsonValue, s.plants, used) as JsonObject[];
      // An llm span records the hash of its prompt in its metadata (kept by the copy).
      for (const span of rendered) {
        const meta = span.metadata as JsonObject;
        if (meta.prompt_hash === "") meta.prompt_hash = hashOa(span.input as JsonValue);
      }
      return lines(rendered, "braintrust-spans", used);
    });

/** Serializes a document on one line or pretty-printed (the reader's multi-line document mode). */
function documentBytes(doc: JsonObject, pretty: boolean): string {
  return `${pretty ? JSON.stringify(doc, null, 2) : JSON.stringify(doc)}\n`;
}

/** ReplayKit `.rpk`: real step hashes (replaykit profile, volatile keys stripped) and checksum. */
const replaykit = (plants: fc.Arbitrary<Plants>, opts: GenOptions = {}): fc.Arbitrary<Session> =>
  fc
    .record({
      plants,
      runId: idArb("run"),
      created: isoTime,
      pretty: fc.boolean(),
      metaNote: text("metadata"),
      fingerprint: objectBody("metadata"),
      agent: text("command"),
      steps: fc.array(
        fc.record({
          type: fc.constantFrom(...STEP_TYPES),
          input:
            opts.keptNameSecrets === true
              ? fc
                  .tuple(body("params"), fc.subarray(KEPT_NAMES, { minLength: 1 }), secretText("params"))
                  .map(([b, names, t]) => ({
                    ...(b as JsonObject),
                    ...Object.fromEntries(names.map((n) => [n, t])),
                  }))
              : body("params"),
          output: body("output"),
          meta: objectBody("metadata"),
          latency: fc.option(fc.integer({ min: 0, max: 9000 }), { nil: undefined }),
          requestId: fc.option(idArb("req"), { nil: undefined }),
          extra: unknownFields(1, opts),
        }),
        { minLength: 1, maxLength: 6 },
      ),
      runExtra: unknownFields(1, opts),
      docExtra: unknownFields(1, opts),
    })
    .map((s) => {
      const used: Used[] = [];
      const steps: JsonObject[] = s.steps.map((st, i) => {
        const metadata: JsonObject = { ...st.meta };
        if (st.latency !== undefined) metadata.latency_ms = num(st.latency);
        if (st.requestId !== undefined) metadata.request_id = st.requestId;
        return {
          id: `step-${String(i + 1).padStart(4, "0")}`,
          type: st.type,
          input: st.input,
          output: st.output,
          metadata,
          hash: "",
          timestamp: s.created,
          ...st.extra,
        };
      });
      const skeleton: JsonObject = {
        version: "1.0",
        metadata: { run_id: s.runId, created_at: s.created, note: s.metaNote },
        payload: {
          run: {
            id: s.runId,
            timestamp: s.created,
            environment_fingerprint: s.fingerprint,
            runtime_versions: { python: "3.12.1", replaykit: "1.0.0" },
            steps,
            source: "capture",
            agent: s.agent,
            ...s.runExtra,
          },
        },
        checksum: "",
        ...s.docExtra,
      };
      const doc = render(skeleton, s.plants, used);
      const run = (doc.payload as JsonObject).run as JsonObject;
      for (const step of run.steps as JsonObject[]) {
        step.hash = canonicalHash(
          {
            type: step.type as JsonValue,
            input: step.input as JsonValue,
            output: step.output as JsonValue,
            metadata: step.metadata as JsonValue,
          },
          "replaykit",
          { stripVolatile: true },
        );
      }
      doc.checksum = hashRk({
        version: doc.version as JsonValue,
        metadata: doc.metadata as JsonValue,
        payload: doc.payload as JsonValue,
      });
      return {
        format: "replaykit-rpk",
        bytes: documentBytes(doc, s.pretty),
        value: doc,
        events: steps.length,
        used,
      } satisfies Session;
    });

/** OpenAgents ReplayBundle: timeline of phase/tool/assistant entries (and unknown ones). */
const replayBundle = (plants: fc.Arbitrary<Plants>, opts: GenOptions = {}): fc.Arbitrary<Session> =>
  fc
    .record({
      plants,
      id: idArb("bundle"),
      created: isoTime,
      pretty: fc.boolean(),
      meta: fc.record({
        issue_url: text("metadata"),
        model: fc.constantFrom("claude-sonnet-4", "gpt-4o"),
        notes: text("metadata"),
      }),
      receiptsCi: text("command"),
      topExtra: unknownFields(1, opts),
      entries: fc.array(
        fc.record({
          kind: fc.constantFrom("call", "call", "assistant", "phase", "unknown"),
          tool: toolName,
          input: body("params"),
          result: body("output"),
          ok: fc.boolean(),
          error: secretText("error"),
          say: text("output", 0.5),
          phase: text("text"),
          utype: fc.stringMatching(/^[a-z]{4,8}_[a-z]{3,6}$/),
          umsg: text("unknown-event", 0.7),
          ubody: body("unknown-event"),
          dt: fc.integer({ min: 0, max: 5000 }),
          extra: unknownFields(1, opts),
        }),
        { minLength: 1, maxLength: 6 },
      ),
    })
    .map((s) => {
      const used: Used[] = [];
      let t = 0;
      const timeline: JsonObject[] = [];
      const at = (dt: number): JsonNumber => {
        t += dt;
        return num(t);
      };
      for (const e of s.entries) {
        if (e.kind === "call") {
          timeline.push({
            t: at(e.dt),
            type: "tool_call",
            tool: e.tool,
            data: { input: e.input, tool: e.tool },
          });
          const data: JsonObject = { result: e.result, ok: e.ok };
          if (!e.ok) data.error = e.error;
          timeline.push({ t: at(e.dt), type: "tool_result", tool: e.tool, data });
        } else if (e.kind === "assistant") {
          timeline.push({ t: at(e.dt), type: "assistant", data: { text: e.say, summary: e.say } });
        } else if (e.kind === "phase") {
          timeline.push({ t: at(e.dt), type: "phase_start", data: { phase: e.phase } });
          timeline.push({ t: at(e.dt), type: "phase_end", data: { phase: e.phase, status: "success" } });
        } else {
          timeline.push({
            t: at(e.dt),
            type: e.utype,
            tool: e.tool,
            data: { message: e.umsg, tool: e.tool, status: "done", details: e.ubody },
          });
        }
      }
      const skeleton: JsonObject = {
        version: "1.0",
        id: s.id,
        created_at: s.created,
        metadata: { ...s.meta, duration_seconds: num(t), cost_usd: new JsonNumber("0.25") },
        timeline,
        receipts: { tests_run: num(4), tests_passed: num(4), ci_status: s.receiptsCi, files_changed: num(2) },
        ...s.topExtra,
      };
      const doc = render(skeleton, s.plants, used);
      return {
        format: "replay-bundle",
        bytes: documentBytes(doc, s.pretty),
        value: doc,
        events: timeline.length,
        used,
      } satisfies Session;
    });

export const FORMATS: Record<
  Session["format"],
  (p: fc.Arbitrary<Plants>, opts?: GenOptions) => fc.Arbitrary<Session>
> = {
  "replay-v1": replayV1,
  "replay-dsrs": replayDsrs,
  "replay-adr0003": replayAdr0003,
  "braintrust-spans": braintrust,
  "replaykit-rpk": replaykit,
  "replay-bundle": replayBundle,
};
