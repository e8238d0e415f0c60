/**
 * `url`: a signed CloudFront URL of one published Layer C copy, for a stack that publishes
 * privately (`publishing=private`). The URL's custom policy grants the copy's tenant prefix
 * (`https://<domain>/<tenant>/*`) until it expires, so a URL handed to one tenant opens that
 * tenant's copies and never another's. Signing is offline: the private key never leaves this
 * machine, and no AWS call is made.
 */
import { createPrivateKey } from "node:crypto";
import { readFile } from "node:fs/promises";
import { getSignedUrl } from "@aws-sdk/cloudfront-signer";
import { layerCKey, parseObjectKey, publishedUrlPath, tenantPolicy } from "#shared/pipeline/index.js";
import { parseCommandArgs } from "../args.js";
import { UsageError } from "../errors.js";
import { toInputError, writeOut } from "../io.js";

/** Help text of `url`. */
export const URL_HELP = `Usage: replay-pipeline url <tenant>/<session>/<file> --domain D --key-pair-id K --private-key FILE [--expires 1h]

Prints a CloudFront URL of the file's published Layer C copy, signed with a custom policy that
opens every copy of the tenant (https://D/<tenant>/*) and nothing else, until it expires. For a
stack deployed with publishing=private; signing is offline (no AWS call, the key stays here).

Options:
  --domain D           the distribution's domain (stack output PublishedDomainName)
  --key-pair-id K      the trusted public key's id (stack output PublishedKeyPairId)
  --private-key FILE   PEM private key of the key pair whose public key the stack trusts
  --expires T          how long the URL works: 90s, 30m, 1h (default), 7d at most
  -h, --help           this help

Exit 0 with the URL on standard output; 2 on a usage or read error.`;

const OPTIONS = {
  domain: { type: "string" },
  "key-pair-id": { type: "string" },
  "private-key": { type: "string" },
  expires: { type: "string" },
} as const;

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
/** The longest a URL may work: a week, so a leaked one does not open a tenant's copies for long. */
const MAX_EXPIRES_SECONDS = 7 * 86_400;
const DOMAIN =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;
// CloudFront public key ids (K…) and the older key pair ids (APKA…): upper-case letters and digits.
const KEY_PAIR_ID = /^[A-Z0-9]{8,64}$/;

/** `--expires` in seconds: a whole number with a unit (s, m, h, d), from 1 s to a week. */
function expiresSeconds(text: string): number {
  const match = /^(\d{1,7})([smhd])$/.exec(text);
  const seconds = match === null ? Number.NaN : Number(match[1]) * (UNIT_SECONDS[match[2] as string] ?? 0);
  if (!(seconds >= 1 && seconds <= MAX_EXPIRES_SECONDS))
    throw new UsageError(`url: --expires '${text}' is not a duration from 1s to 7d (like 90s, 30m, 1h, 7d)`);
  return seconds;
}

function required(name: string, value: string | undefined): string {
  if (value === undefined || value === "") throw new UsageError(`url: --${name} is required`);
  return value;
}

/** `url`: prints one signed URL. */
export async function urlCommand(argv: string[], now: () => number = Date.now): Promise<number> {
  const { values, positionals } = parseCommandArgs("url", argv, OPTIONS);
  if (values.help === true) {
    await writeOut(`${URL_HELP}\n`);
    return 0;
  }
  if (positionals.length !== 1)
    throw new UsageError("url: give one <tenant>/<session>/<file> (the file as it was uploaded)");
  const parsed = parseObjectKey(positionals[0] as string);
  if (!parsed.ok) throw new UsageError(`url: ${parsed.problem.message}`);
  const domain = required("domain", values.domain);
  if (!DOMAIN.test(domain))
    throw new UsageError(`url: --domain '${domain}' is not a host name (like d111111abcdef8.cloudfront.net)`);
  const keyPairId = required("key-pair-id", values["key-pair-id"]);
  if (!KEY_PAIR_ID.test(keyPairId))
    throw new UsageError(
      `url: --key-pair-id '${keyPairId}' is not a CloudFront key id (like K2JCJMDEHXQW5F)`,
    );
  const keyFile = required("private-key", values["private-key"]);
  const expiresAt = Math.floor(now() / 1000) + expiresSeconds(values.expires ?? "1h");
  let privateKey: string;
  try {
    privateKey = await readFile(keyFile, "utf8");
  } catch (error) {
    throw toInputError(keyFile, error);
  }
  try {
    createPrivateKey(privateKey);
  } catch {
    throw new UsageError(`url: --private-key ${keyFile} holds no unencrypted PEM private key`);
  }
  const url = getSignedUrl({
    url: `https://${domain.toLowerCase()}${publishedUrlPath(layerCKey(parsed.key))}`,
    policy: tenantPolicy(domain.toLowerCase(), parsed.key.tenant, expiresAt),
    keyPairId,
    privateKey,
    algorithm: "SHA256",
  });
  await writeOut(`${url}\n`);
  return 0;
}
