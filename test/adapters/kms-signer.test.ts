import "aws-sdk-client-mock-vitest/extend";
import { createHash, generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KMSClient, KMSServiceException, SignCommand } from "@aws-sdk/client-kms";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { IN_TOTO_PAYLOAD_TYPE, pae } from "#shared/attest/dsse.js";
import type { Envelope } from "#shared/attest/index.js";
import { memoryPorts } from "#shared/pipeline/memory-ports.js";
import { processObject } from "#shared/pipeline/process-object.js";
import { KmsEnvelopeSigner } from "../../functions/adapters/kms-signer.js";
import { TransientError } from "../../shared/errors.js";
import { fileWriter, runCli } from "../support/cli.js";
import { PROJECT_ROOT } from "../support/corpus.js";
import { signDigest } from "../support/kms-fake.js";
import { tempDir } from "../support/temp.js";

const KEY_ARN = "arn:aws:kms:eu-west-1:111122223333:key/0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0";
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
const client = new KMSClient({ region: "eu-west-1" });
const kms = mockClient(client);
const file = fileWriter(tempDir("kms-signer-"));
// The public key as `aws kms get-public-key` hands it out (DER SubjectPublicKeyInfo), and as PEM.
const publicDer = file("public-key.der", publicKey.export({ type: "spki", format: "der" }));
const publicPem = file("public-key.pem", publicKey.export({ type: "spki", format: "pem" }) as string);
const FIX = join(PROJECT_ROOT, "examples", "fix-auth.REPLAY.jsonl");

beforeEach(() => {
  kms.reset();
  // KMS with a real P-256 key: ECDSA over the digest it is sent, DER, as the service answers.
  kms.on(SignCommand).callsFake((input: { Message: Uint8Array; KeyId: string }) => ({
    KeyId: input.KeyId,
    Signature: new Uint8Array(signDigest(privateKey, input.Message)),
    SigningAlgorithm: "ECDSA_SHA_256",
  }));
});

/** The pipeline's stored attestation of the fix-auth replay, signed through `signer` (or unsigned). */
async function pipelineAttestation(signer: KmsEnvelopeSigner | null): Promise<Envelope> {
  const ports = { ...memoryPorts(), signer };
  const key = "acme/s-1/fix-auth.REPLAY.jsonl";
  await processObject(ports.objects.put(key, readFileSync(FIX)), ports, {
    toolVersion: "t",
    parallel: { workers: 0 },
  });
  return JSON.parse(ports.publisher.documents.get(`results/${key}.intoto.json`) as string) as Envelope;
}

describe("KmsEnvelopeSigner", () => {
  it("asks KMS for ECDSA_SHA_256 over the SHA-256 digest of the PAE bytes, by the key's ARN", async () => {
    const message = pae(IN_TOTO_PAYLOAD_TYPE, Buffer.from("{}"));
    const signature = await new KmsEnvelopeSigner(client, KEY_ARN).sign(message);
    expect(kms).toHaveReceivedCommandOnce(SignCommand);
    expect(kms).toHaveReceivedCommandWith(SignCommand, {
      KeyId: KEY_ARN,
      MessageType: "DIGEST",
      SigningAlgorithm: "ECDSA_SHA_256",
      Message: createHash("sha256").update(message).digest(),
    });
    // DER: a SEQUENCE of two INTEGERs.
    expect(signature[0]).toBe(0x30);
  });

  it("throttling is a TransientError naming the key: the message is retried", async () => {
    kms.on(SignCommand).rejects(
      new KMSServiceException({
        name: "ThrottlingException",
        $fault: "client",
        $metadata: { httpStatusCode: 400 },
        message: "Rate exceeded",
      }),
    );
    const error = await new KmsEnvelopeSigner(client, KEY_ARN).sign(Buffer.from("x")).catch((e) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as Error).message).toContain(`signing an attestation with KMS key ${KEY_ARN}`);
  });
});

describe("the pipeline's signed attestation, checked offline by verify-attestation --key", () => {
  it("is a DSSE envelope whose one signature names the KMS key", async () => {
    const envelope = await pipelineAttestation(new KmsEnvelopeSigner(client, KEY_ARN));
    expect(envelope.payloadType).toBe(IN_TOTO_PAYLOAD_TYPE);
    expect(envelope.signatures).toEqual([{ keyid: KEY_ARN, sig: expect.any(String) }]);
    expect(kms).toHaveReceivedCommandOnce(SignCommand);
  });

  it.each([
    ["DER", publicDer],
    ["PEM", publicPem],
  ])("verifies with the public key as %s; a tampered payload fails with exit 1", async (_, key) => {
    const envelope = await pipelineAttestation(new KmsEnvelopeSigner(client, KEY_ARN));
    const signed = file("signed.intoto.json", JSON.stringify(envelope));
    const checked = runCli(["verify-attestation", signed, "--key", key, "--replay", FIX]);
    expect(checked.stderr).toBe("");
    expect(checked.code).toBe(0);
    expect(checked.stdout).toMatch(/signature by ecdsa-p256:[0-9a-f]{16} checks out; .*: PASSED \(passed\)/);

    const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8"));
    statement.predicate.timeVerified = "2000-01-01T00:00:00.000Z";
    const tampered = file(
      "tampered.intoto.json",
      JSON.stringify({ ...envelope, payload: Buffer.from(JSON.stringify(statement)).toString("base64") }),
    );
    const out = runCli(["verify-attestation", tampered, "--key", key]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("error attest.bad_signature:");
  });

  it("another P-256 key does not verify it", async () => {
    const envelope = await pipelineAttestation(new KmsEnvelopeSigner(client, KEY_ARN));
    const other = generateKeyPairSync("ec", { namedCurve: "prime256v1" }).publicKey;
    const otherKey = file("other.pem", other.export({ type: "spki", format: "pem" }) as string);
    const out = runCli([
      "verify-attestation",
      file("a.intoto.json", JSON.stringify(envelope)),
      "--key",
      otherKey,
    ]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("does not match the payload");
  });

  it("an unsigned one (the local stack: signatures []) is reported unsigned, and fails when --key is given", async () => {
    const envelope = await pipelineAttestation(null);
    expect(envelope.signatures).toEqual([]);
    const path = file("unsigned.intoto.json", JSON.stringify(envelope));
    const plain = runCli(["verify-attestation", path]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain("unsigned;");
    const keyed = runCli(["verify-attestation", path, "--key", publicPem]);
    expect(keyed.code).toBe(1);
    expect(keyed.stderr).toContain("error attest.unsigned:");
    expect(keyed.stderr).toContain("its DSSE envelope has no signature");
    expect(kms).not.toHaveReceivedCommand(SignCommand);
  });
});
