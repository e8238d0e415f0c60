/** `--attest FILE [--sign-key KEY]`: the verdict as an in-toto / SLSA VSA statement, signed or not. */
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type AttestationInput,
  attestationKey,
  buildAttestation,
  keyIdOf,
  signStatement,
} from "#shared/attest/index.js";
import type { InspectReport, Verdict } from "#shared/formats/index.js";
import { UsageError } from "../errors.js";
import { outputError, toInputError, toolVersion } from "../io.js";

/** The options of the commands that can attest their verdict. */
export const ATTEST_OPTIONS = {
  attest: { type: "string" },
  "sign-key": { type: "string" },
} as const;

/** The `resourceUri` of a file given on the command line (`-` is standard input). */
function resourceUriOf(file: string): string {
  return file === "-" ? "urn:replay-pipeline:stdin" : pathToFileURL(resolve(file)).href;
}

/** The files a run attests, as `cli/inputs.ts` expands them. */
interface AttestedInputs {
  many: boolean;
  files: readonly { path: string }[];
}

/** True when `path` is an existing folder. */
function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/**
 * Refuses, before any work is done, `--sign-key` without `--attest`, and with several files an
 * `--attest` that is not an existing folder or two files of the same name (their statements,
 * `<folder>/<file name>.intoto.json`, would overwrite each other).
 */
export function checkAttestOptions(
  command: string,
  values: { attest?: string; "sign-key"?: string },
  inputs?: AttestedInputs,
): void {
  if (values["sign-key"] !== undefined && values.attest === undefined)
    throw new UsageError(`${command}: --sign-key signs the attestation; give --attest FILE too`);
  if (values.attest === undefined || inputs === undefined || !inputs.many) return;
  if (!isFolder(values.attest))
    throw new UsageError(
      `${command}: --attest ${values.attest} is not a folder; with several files, --attest names an existing folder for <file name>.intoto.json of each`,
    );
  const seen = new Map<string, string>();
  for (const { path } of inputs.files) {
    const other = seen.get(basename(path));
    if (other !== undefined)
      throw new UsageError(
        `${command}: --attest: ${other} and ${path} have the same file name; their attestations would overwrite each other (attest them in separate runs)`,
      );
    seen.set(basename(path), path);
  }
}

/**
 * Where `--attest` puts the attestation of `file`: the path given for one file, or
 * `<folder>/<file name>.intoto.json` when it names a folder (always so with several files).
 */
export function attestTarget(
  attest: string | undefined,
  file: string,
  inputs: { many: boolean },
): string | undefined {
  if (attest === undefined) return undefined;
  return inputs.many || isFolder(attest) ? join(attest, `${basename(file)}.intoto.json`) : attest;
}

/**
 * Writes the attestation of a verdict to `--attest FILE`: the Statement as JSON, or with
 * `--sign-key` a DSSE envelope (HMAC-SHA256 for raw key bytes, Ed25519 or ECDSA P-256 for a private key).
 */
export async function writeAttestation(
  command: string,
  values: { attest?: string; "sign-key"?: string },
  report: InspectReport,
  verdict: Verdict,
  extra: { hmacKey?: Uint8Array; receipt?: { path: string; bytes: Uint8Array } | null } = {},
): Promise<void> {
  const path = values.attest;
  if (path === undefined) return;
  const input: AttestationInput = {
    name: report.file,
    resourceUri: resourceUriOf(report.file),
    replayHash: report.replay_hash,
    verdict,
    command,
    format: report.format,
    checksTotal: report.checks_total,
    errorsTotal: report.errors_total,
    toolVersion: toolVersion(),
    timeVerified: new Date().toISOString(),
    policy: { keyId: extra.hmacKey === undefined ? null : keyIdOf(extra.hmacKey) },
    receipt:
      extra.receipt == null
        ? null
        : {
            uri: resourceUriOf(extra.receipt.path),
            sha256: `sha256:${createHash("sha256").update(extra.receipt.bytes).digest("hex")}`,
          },
  };
  const statement = buildAttestation(input);
  let body: object = statement;
  const keyPath = values["sign-key"];
  if (keyPath !== undefined) {
    let bytes: Buffer;
    try {
      bytes = await readFile(keyPath);
    } catch (error) {
      throw toInputError(keyPath, error);
    }
    body = signStatement(statement, attestationKey(bytes, "sign"));
  }
  try {
    await writeFile(path, `${JSON.stringify(body, null, 2)}\n`);
  } catch (error) {
    throw outputError(path, error);
  }
}
