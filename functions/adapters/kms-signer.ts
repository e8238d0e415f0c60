/**
 * The attestation signer over a KMS asymmetric key (ECC_NIST_P256, SIGN_VERIFY): the ingest role
 * may `kms:Sign` with it and nothing else, and the private key never leaves KMS. Whoever checks an
 * attestation fetches the public key once (`aws kms get-public-key`) and verifies offline.
 */
import { createHash } from "node:crypto";
import { type KMSClient, SignCommand } from "@aws-sdk/client-kms";
import type { EnvelopeSigner } from "../../shared/attest/index.js";
import { TransientError } from "../../shared/errors.js";
import { asAdapterError } from "./errors.js";

/** Signs DSSE PAE bytes with `ECDSA_SHA_256` by the KMS key `keyId` (its ARN: the envelope's keyid). */
export class KmsEnvelopeSigner implements EnvelopeSigner {
  constructor(
    private readonly kms: KMSClient,
    readonly keyid: string,
  ) {}

  /** The DER ECDSA signature over `message`, as KMS returns it. */
  async sign(message: Uint8Array): Promise<Uint8Array> {
    // KMS signs at most 4 KiB of RAW message, and a statement naming a long key can exceed that:
    // send the SHA-256 digest instead (MessageType DIGEST), which yields the same signature.
    const digest = createHash("sha256").update(message).digest();
    let signature: Uint8Array | undefined;
    try {
      const out = await this.kms.send(
        new SignCommand({
          KeyId: this.keyid,
          Message: digest,
          MessageType: "DIGEST",
          SigningAlgorithm: "ECDSA_SHA_256",
        }),
      );
      signature = out.Signature;
    } catch (error) {
      throw asAdapterError(error, `signing an attestation with KMS key ${this.keyid}`);
    }
    if (signature === undefined || signature.length === 0)
      throw new TransientError("aws.transient", `KMS key ${this.keyid} returned no signature`);
    return signature;
  }
}
