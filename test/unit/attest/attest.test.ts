import { generateKeyPairSync, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { IN_TOTO_PAYLOAD_TYPE, pae } from "#shared/attest/dsse.js";
import {
  type AttestationInput,
  attestationKey,
  buildAttestation,
  type Envelope,
  type EnvelopeSigner,
  envelopeStatement,
  keyIdOf,
  signStatement,
  unverifiedStatement,
  VERDICT_EXTENSION,
  verifyEnvelope,
} from "#shared/attest/index.js";
import { POLICY_URI, STATEMENT_TYPE, VERIFIER_ID, VSA_PREDICATE_TYPE } from "#shared/attest/statement.js";
import { AttestationError } from "#shared/errors.js";
import { memoryPorts } from "#shared/pipeline/memory-ports.js";
import { processObject } from "#shared/pipeline/process-object.js";
import { PROJECT_ROOT } from "../../support/corpus.js";

const HASH = `sha256:${"ab".repeat(32)}`;
const INPUT: AttestationInput = {
  name: "runs/REPLAY.jsonl",
  resourceUri: "file:///runs/REPLAY.jsonl",
  replayHash: HASH,
  verdict: "passed",
  command: "inspect",
  format: "replay-v1",
  checksTotal: { passed: 3, failed: 0, unverifiable: 0 },
  errorsTotal: 0,
  toolVersion: "1.2.3",
  timeVerified: "2026-11-26T10:00:00.000Z",
  policy: { keyId: null },
};

/** RFC 3339 date-time in UTC, as in-toto's Timestamp field type asks. */
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe("buildAttestation: an in-toto Statement v1 with the SLSA VSA v1 predicate", () => {
  it("has every member VSA v1 requires, with the values its field rules ask for", () => {
    const s = buildAttestation(INPUT);
    expect(s._type).toBe(STATEMENT_TYPE);
    expect(s.predicateType).toBe(VSA_PREDICATE_TYPE);
    // Statement: a subject with a digest set (lower-case hex of the named algorithm).
    expect(s.subject).toEqual([{ name: "runs/REPLAY.jsonl", digest: { sha256: "ab".repeat(32) } }]);
    const p = s.predicate;
    expect(p.verifier.id).toBe(VERIFIER_ID);
    expect(() => new URL(p.verifier.id)).not.toThrow();
    expect(p.verifier.version).toEqual({ "replay-pipeline": "1.2.3" });
    expect(p.timeVerified).toMatch(RFC3339_UTC);
    expect(p.resourceUri).toBe("file:///runs/REPLAY.jsonl");
    // policy MUST contain a uri; its digest pins the settings.
    expect(p.policy.uri).toBe(POLICY_URI);
    expect(p.policy.digest?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(p.verificationResult).toBe("PASSED");
    // One level per track, none of our own starting with SLSA_.
    expect(p.verifiedLevels).toHaveLength(1);
    expect(p.verifiedLevels[0]?.startsWith("SLSA_")).toBe(false);
    // Extension members have URI names; the check totals are there.
    expect(() => new URL(VERDICT_EXTENSION)).not.toThrow();
    expect(p[VERDICT_EXTENSION]).toEqual({
      verdict: "passed",
      command: "inspect",
      format: "replay-v1",
      checks_total: { passed: 3, failed: 0, unverifiable: 0 },
      errors_total: 0,
    });
    expect(p.inputAttestations).toBeUndefined();
  });

  it.each(["failed", "invalid", "unverifiable"] as const)(
    "%s is FAILED with verifiedLevels [FAILED]: nothing unchecked attests a pass",
    (verdict) => {
      const p = buildAttestation({ ...INPUT, verdict }).predicate;
      expect(p.verificationResult).toBe("FAILED");
      expect(p.verifiedLevels).toEqual(["FAILED"]);
      expect(p[VERDICT_EXTENSION].verdict).toBe(verdict);
    },
  );

  it("names the receipt as an input attestation with its digest, and the key by id only", () => {
    const key = Buffer.from("a secret hmac key");
    const p = buildAttestation({
      ...INPUT,
      policy: { keyId: keyIdOf(key), preset: "private_repo" },
      receipt: { uri: "file:///runs/RECEIPT.json", sha256: `sha256:${"cd".repeat(32)}` },
    }).predicate;
    expect(p.inputAttestations).toEqual([
      { uri: "file:///runs/RECEIPT.json", digest: { sha256: "cd".repeat(32) } },
    ]);
    expect(p.policy.annotations).toEqual({ profile: null, preset: "private_repo", key_id: keyIdOf(key) });
    expect(JSON.stringify(p)).not.toContain("a secret hmac key");
    // A different policy has a different digest.
    expect(p.policy.digest).not.toEqual(buildAttestation(INPUT).predicate.policy.digest);
  });

  it("refuses a replay hash that is not sha256:<64 hex>", () => {
    expect(() => buildAttestation({ ...INPUT, replayHash: "sha256:xyz" })).toThrow(/expected sha256/);
  });
});

describe("DSSE envelopes", () => {
  it("PAE is the DSSE v1 encoding (the spec's own example)", () => {
    // DSSE protocol.md: PAE("http://example.com/HelloWorld", "hello world").
    expect(pae("http://example.com/HelloWorld", Buffer.from("hello world")).toString()).toBe(
      "DSSEv1 29 http://example.com/HelloWorld 11 hello world",
    );
    // Lengths are bytes, not characters.
    expect(pae("t", Buffer.from("é")).toString("utf8")).toBe("DSSEv1 1 t 2 é");
  });

  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const edPrivate = Buffer.from(privateKey.export({ type: "pkcs8", format: "pem" }) as string);
  const edPublic = Buffer.from(publicKey.export({ type: "spki", format: "pem" }) as string);
  const hmac = Buffer.from("shared hmac secret");
  const statement = buildAttestation(INPUT);
  const p256 = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const ecPrivate = Buffer.from(p256.privateKey.export({ type: "pkcs8", format: "pem" }) as string);
  const ecPublicDer = p256.publicKey.export({ type: "spki", format: "der" });

  it.each([
    ["HMAC-SHA256", hmac, hmac],
    ["Ed25519", edPrivate, edPublic],
    ["ECDSA P-256 (public key as DER, as KMS hands it out)", ecPrivate, ecPublicDer],
  ])("%s: round trip, then tampering with the payload or the signature is caught", (_, signKey, checkKey) => {
    const envelope = signStatement(statement, attestationKey(signKey, "sign"));
    expect(envelope.payloadType).toBe(IN_TOTO_PAYLOAD_TYPE);
    expect(JSON.parse(Buffer.from(envelope.payload, "base64").toString())).toEqual(statement);
    expect(verifyEnvelope(envelope, attestationKey(checkKey, "verify"))).toEqual(statement);

    const forged = { ...statement, predicate: { ...statement.predicate, verificationResult: "FAILED" } };
    const tampered: Envelope = {
      ...envelope,
      payload: Buffer.from(JSON.stringify(forged)).toString("base64"),
    };
    expect(() => verifyEnvelope(tampered, attestationKey(checkKey, "verify"))).toThrow(/does not match/);
    const sig = Buffer.from(envelope.signatures[0]?.sig as string, "base64");
    sig[0] = (sig[0] as number) ^ 1;
    const badSig: Envelope = {
      ...envelope,
      signatures: [{ keyid: envelope.signatures[0]?.keyid as string, sig: sig.toString("base64") }],
    };
    expect(() => verifyEnvelope(badSig, attestationKey(checkKey, "verify"))).toThrow(AttestationError);
    // The payload type is signed too: changing it breaks the signature, and a foreign type is refused.
    expect(() =>
      verifyEnvelope({ ...envelope, payloadType: "text/plain" }, attestationKey(checkKey, "verify")),
    ).toThrow(/expected application\/vnd.in-toto\+json/);
  });

  it("another key is refused; an RSA or other-curve key is refused with what was expected", () => {
    const envelope = signStatement(statement, attestationKey(hmac, "sign"));
    expect(() => verifyEnvelope(envelope, attestationKey(Buffer.from("other"), "verify"))).toThrow(
      /no signature by key/,
    );
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({
      type: "pkcs8",
      format: "pem",
    });
    expect(() => attestationKey(Buffer.from(rsa as string), "sign")).toThrow(
      /the PEM key is rsa; expected an Ed25519 or ECDSA P-256 key/,
    );
    const p384 = generateKeyPairSync("ec", { namedCurve: "secp384r1" }).publicKey;
    expect(() => attestationKey(p384.export({ type: "spki", format: "der" }), "verify")).toThrow(
      /the DER key is ec \(secp384r1\); expected an Ed25519 or ECDSA P-256 key/,
    );
    expect(() => attestationKey(edPublic, "sign")).toThrow(/expected an Ed25519 or ECDSA P-256 private key/);
    expect(() => attestationKey(ecPublicDer, "sign")).toThrow(/is a public key; expected .* private key/);
  });

  /** A signer as the KMS adapter is one, over a local P-256 key: DER ECDSA over SHA-256. */
  const localSigner: EnvelopeSigner = {
    keyid: "arn:aws:kms:eu-west-1:111122223333:key/test",
    sign: async (message) => sign("sha256", message, { key: p256.privateKey, dsaEncoding: "der" }),
  };

  it("envelopeStatement: signed through a signer port, verified by its public key whatever the keyid", async () => {
    const envelope = await envelopeStatement(statement, localSigner);
    expect(envelope.signatures.map((s) => s.keyid)).toEqual([localSigner.keyid]);
    expect(verifyEnvelope(envelope, attestationKey(ecPublicDer, "verify"))).toEqual(statement);
    const other = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).publicKey;
    expect(() =>
      verifyEnvelope(envelope, attestationKey(other.export({ type: "spki", format: "der" }), "verify")),
    ).toThrow(/does not match the payload/);
  });

  it("envelopeStatement without a signer: signatures [], readable unverified, refused as unsigned by a key", async () => {
    const envelope = await envelopeStatement(statement, null);
    expect(envelope).toEqual({
      payloadType: IN_TOTO_PAYLOAD_TYPE,
      payload: Buffer.from(JSON.stringify(statement)).toString("base64"),
      signatures: [],
    });
    expect(unverifiedStatement(envelope)).toEqual(statement);
    const error = (() => {
      try {
        return verifyEnvelope(envelope, attestationKey(ecPublicDer, "verify"));
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AttestationError);
    expect(error).toMatchObject({ code: "attest.unsigned" });
  });
});

describe("the pipeline stores the attestation beside each replay's verdict document", () => {
  it("results/<key>.intoto.json: an unsigned envelope (no signer) of a VSA whose subject digest is the replay_hash", async () => {
    const ports = memoryPorts();
    const bytes = readFileSync(join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl"));
    const key = "acme/s-1/fix-auth.REPLAY.jsonl";
    const result = await processObject(ports.objects.put(key, bytes), ports, {
      toolVersion: "9.9.9-test",
      parallel: { workers: 0 },
      now: () => new Date("2026-11-26T10:00:00Z"),
    });
    expect(result.record.verdict_key).toBe(`results/${key}.json`);
    const envelope = JSON.parse(ports.publisher.documents.get(`results/${key}.intoto.json`) as string);
    expect(envelope).toMatchObject({ payloadType: IN_TOTO_PAYLOAD_TYPE, signatures: [] });
    const stored = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8"));
    expect(stored).toMatchObject({
      _type: STATEMENT_TYPE,
      predicateType: VSA_PREDICATE_TYPE,
      subject: [{ name: key, digest: { sha256: (result.record.replay_hash as string).slice(7) } }],
      predicate: {
        verifier: { version: { "replay-pipeline": "9.9.9-test" } },
        timeVerified: "2026-11-26T10:00:00.000Z",
        resourceUri: "urn:replay-pipeline:object:acme/s-1/fix-auth.REPLAY.jsonl",
        verificationResult: "PASSED",
        policy: { uri: POLICY_URI, annotations: { preset: "private_repo", key_id: null } },
        [VERDICT_EXTENSION]: {
          verdict: "passed",
          command: "pipeline",
          checks_total: result.record.checks_total,
        },
      },
    });
  });

  it("a receipt gets no attestation of its own (it is an input, not a replay)", async () => {
    const ports = memoryPorts();
    const receipt = readFileSync(join(PROJECT_ROOT, "examples", "fix-auth.RECEIPT.json"));
    await processObject(ports.objects.put("acme/s-1/fix-auth.RECEIPT.json", receipt), ports, {
      toolVersion: "t",
      parallel: { workers: 0 },
    });
    expect([...ports.publisher.documents.keys()].filter((k) => k.endsWith(".intoto.json"))).toEqual([]);
  });
});

describe("attestationKey: a public key is never an HMAC secret", () => {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  it.each([
    ["a DER public key", publicKey.export({ type: "spki", format: "der" }), ["verify"]],
    ["a DER private key", privateKey.export({ type: "pkcs8", format: "der" }), ["sign", "verify"]],
  ] as const)("reads %s as the Ed25519 key it is", (_name, bytes, uses) => {
    for (const use of uses) expect(attestationKey(bytes, use).kind).toBe("ed25519");
    // The same key whichever form it came in.
    expect(attestationKey(bytes, "verify").keyid).toBe(
      attestationKey(Buffer.from(publicKey.export({ type: "spki", format: "pem" }) as string), "verify")
        .keyid,
    );
  });

  it("refuses an OpenSSH public key, which anyone holding it could sign with", () => {
    const ssh = Buffer.from(
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl me@host\n",
    );
    for (const use of ["sign", "verify"] as const)
      expect(() => attestationKey(ssh, use)).toThrow(/not an HMAC secret/);
  });

  it("still takes secret bytes as an HMAC key", () => {
    expect(attestationKey(Buffer.from("a shared secret of the CI"), "verify").kind).toBe("hmac-sha256");
  });
});
