/**
 * The key that signs the pipeline's attestations: a KMS asymmetric key (ECC_NIST_P256,
 * SIGN_VERIFY, `ECDSA_SHA_256`). Its policy lets the ingest role `kms:Sign` and nothing more; the
 * account keeps administering it through IAM (the default statement), which is also how an
 * operator fetches the public key (`aws kms get-public-key`) that `verify-attestation --key` takes.
 */
import { RemovalPolicy } from "aws-cdk-lib";
import { type IRole, PolicyStatement } from "aws-cdk-lib/aws-iam";
import { Key, KeySpec, KeyUsage } from "aws-cdk-lib/aws-kms";
import { Construct } from "constructs";

/** What `AttestationKey` is configured with. */
export interface AttestationKeyProps {
  /** The role that signs (the ingest function's). */
  signer: IRole;
}

/** The signing key and its policy. */
export class AttestationKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string, props: AttestationKeyProps) {
    super(scope, id);
    this.key = new Key(this, "Key", {
      description: "replay-pipeline: signs the pipeline's verdict attestations (DSSE, ECDSA P-256)",
      keySpec: KeySpec.ECC_NIST_P256,
      keyUsage: KeyUsage.SIGN_VERIFY,
      // Attestations outlive a stack: their public key must stay fetchable to check them.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.allowSigning("IngestRoleSignsOnly", props.signer);
  }

  /** Lets `role` sign with the key (`kms:Sign`, the one algorithm), in the key's own policy. */
  allowSigning(sid: string, role: IRole): void {
    // In the key's own policy, not the role's: the role gets no KMS action anywhere else.
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid,
        principals: [role],
        actions: ["kms:Sign"],
        resources: ["*"],
        // Exactly how functions/adapters/kms-signer.ts signs: a SHA-256 digest, ECDSA.
        conditions: {
          StringEquals: { "kms:SigningAlgorithm": "ECDSA_SHA_256", "kms:MessageType": "DIGEST" },
        },
      }),
    );
  }
}
