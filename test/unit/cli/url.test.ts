/** `url`: signed CloudFront URLs whose policy opens one tenant's prefix only. */
import { generateKeyPairSync, verify } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { urlCommand } from "../../../cli/commands/url.js";
import { UsageError } from "../../../cli/errors.js";

const DOMAIN = "d111111abcdef8.cloudfront.net";
const KEY_ID = "K2JCJMDEHXQW5F";
const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
let dir = "";
let keyFile = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "url-"));
  keyFile = join(dir, "private.pem");
  await writeFile(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs `url` with `args`, returning its exit code and what it printed. */
async function run(...args: string[]): Promise<{ code: number; out: string }> {
  let out = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  const code = await urlCommand(args, () => NOW);
  vi.restoreAllMocks();
  return { code, out };
}

const signed = (key: string, ...extra: string[]) =>
  run(key, "--domain", DOMAIN, "--key-pair-id", KEY_ID, "--private-key", keyFile, ...extra);

/** CloudFront's URL-safe base64 (`+=/` as `-_~`) decoded. */
const unsafe = (text: string) =>
  Buffer.from(text.replaceAll("-", "+").replaceAll("_", "=").replaceAll("~", "/"), "base64");

interface Policy {
  Statement: { Resource: string; Condition: { DateLessThan: { "AWS:EpochTime": number } } }[];
}

/** The URL's policy, parsed, after checking its signature with the public key. */
function policyOf(url: URL): Policy {
  const policy = unsafe(url.searchParams.get("Policy") ?? "");
  const signature = unsafe(url.searchParams.get("Signature") ?? "");
  expect(verify("sha256", policy, publicKey, signature)).toBe(true);
  return JSON.parse(policy.toString("utf8")) as Policy;
}

/** Does CloudFront's wildcard resource (`*` any run of characters, `?` one) match `address`? */
function opens(resource: string, address: string): boolean {
  const pattern = resource
    .split("")
    .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\/-]/g, "\\$&")))
    .join("");
  return new RegExp(`^${pattern}$`).test(address);
}

describe("url", () => {
  it("signs the copy's address with a policy whose one resource is its tenant's prefix", async () => {
    const { code, out } = await signed("acme/s-1/REPLAY.jsonl");
    expect(code).toBe(0);
    const url = new URL(out.trim());
    expect(`${url.origin}${url.pathname}`).toBe(`https://${DOMAIN}/acme/s-1/REPLAY.layer-c.jsonl`);
    expect(url.searchParams.get("Key-Pair-Id")).toBe(KEY_ID);
    expect(url.searchParams.get("Hash-Algorithm")).toBe("SHA256");
    expect(url.searchParams.has("Expires")).toBe(false);
    const policy = policyOf(url);
    expect(policy.Statement).toHaveLength(1);
    expect(policy.Statement[0]).toEqual({
      Resource: `https://${DOMAIN}/acme/*`,
      Condition: { DateLessThan: { "AWS:EpochTime": NOW / 1000 + 3600 } },
    });
  });

  it("tenant A's URL cannot open tenant B's copies, nor a tenant whose name starts like A's", async () => {
    const a =
      policyOf(new URL((await signed("acme/s-1/REPLAY.jsonl")).out.trim())).Statement[0]?.Resource ?? "";
    const b =
      policyOf(new URL((await signed("beta/s-9/other.jsonl")).out.trim())).Statement[0]?.Resource ?? "";
    expect(b).toBe(`https://${DOMAIN}/beta/*`);
    const copy = (tenant: string) => `https://${DOMAIN}/${tenant}/s-9/other.layer-c.jsonl`;
    expect(opens(a, copy("acme"))).toBe(true);
    expect(opens(a, `https://${DOMAIN}/acme/another-session/x.layer-c.json`)).toBe(true);
    for (const other of ["beta", "acme2", "acm", "x/acme"]) expect(opens(a, copy(other)), other).toBe(false);
    expect(opens(b, copy("acme"))).toBe(false);
    // The matcher itself can say yes to a wider pattern: the check above can fail.
    expect(opens(`https://${DOMAIN}/*`, copy("beta"))).toBe(true);
  });

  it("names the copy as published: a .gz upload's copy, and file names percent-encoded", async () => {
    const gz = new URL((await signed("acme/s-1/REPLAY.jsonl.gz")).out.trim());
    expect(gz.pathname).toBe("/acme/s-1/REPLAY.layer-c-gz.jsonl");
    const spaced = new URL((await signed("acme/s-1/my run.jsonl")).out.trim());
    expect(spaced.pathname).toBe("/acme/s-1/my%20run.layer-c.jsonl");
  });

  it("expires when asked, a week at most", async () => {
    for (const [text, seconds] of [
      ["90s", 90],
      ["30m", 1800],
      ["7d", 7 * 86_400],
    ] as const) {
      const policy = policyOf(new URL((await signed("acme/s/R.jsonl", "--expires", text)).out.trim()));
      expect(policy.Statement[0]?.Condition.DateLessThan["AWS:EpochTime"], text).toBe(NOW / 1000 + seconds);
    }
    for (const text of ["8d", "0s", "1y", "1.5h", "-1h", "3600"])
      await expect(signed("acme/s/R.jsonl", "--expires", text), text).rejects.toThrow(/--expires/);
  });

  it("refuses what it cannot sign, with a usage error", async () => {
    const notKey = join(dir, "public.pem");
    await writeFile(notKey, publicKey.export({ type: "spki", format: "pem" }));
    for (const [args, message] of [
      [["acme/s/R.jsonl", "--key-pair-id", KEY_ID, "--private-key", keyFile], /--domain is required/],
      [["acme/s/R.jsonl", "--domain", DOMAIN, "--private-key", keyFile], /--key-pair-id is required/],
      [["acme/s/R.jsonl", "--domain", DOMAIN, "--key-pair-id", KEY_ID], /--private-key is required/],
      [["acme/R.jsonl", "--domain", DOMAIN], /expected <tenant>\/<session>\/<file>/],
      [["../s/R.jsonl", "--domain", DOMAIN], /tenant/],
      [["acme/s/R.jsonl", "--domain", "evil.com/x", "--key-pair-id", KEY_ID], /--domain/],
      [["acme/s/R.jsonl", "--domain", DOMAIN, "--key-pair-id", "k-1"], /--key-pair-id/],
      [
        ["acme/s/R.jsonl", "--domain", DOMAIN, "--key-pair-id", KEY_ID, "--private-key", notKey],
        /no unencrypted PEM private key/,
      ],
    ] as const)
      await expect(
        urlCommand([...args], () => NOW),
        args.join(" "),
      ).rejects.toThrow(
        expect.objectContaining({ constructor: UsageError, message: expect.stringMatching(message) }),
      );
    await expect(
      urlCommand([
        "acme/s/R.jsonl",
        "--domain",
        DOMAIN,
        "--key-pair-id",
        KEY_ID,
        "--private-key",
        join(dir, "none.pem"),
      ]),
    ).rejects.toMatchObject({ code: "io.not_found" });
  });
});
