/**
 * The shape layer: ids a cloud generates for resources, which read as generated runs but name
 * things (beside the credentials that must still be caught); random bodies that switch between
 * letters and digits less often than most; digests; base64 holding `/`; ARNs; counted runs.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Scrubber } from "#shared/redact/scrub.js";
import { expectHidden, expectKept } from "./helpers.js";

const scrub = (text: string): string => new Scrubber().scrub(text, "$.error.message");

describe("ids a cloud generates", () => {
  it("are no generated secrets: CDK logical ids, physical names, resource ids, IAM unique ids, user pools", () => {
    expectKept(
      scrub,
      [
        "MyGlobalTable5DC12DB4",
        "ClusterConfigCommand43AAE40F",
        "fnPostAuthFnCognitoA630A2B1",
        "MyStack-fn5FF616E3-G632ITHSP5HK",
        "ami-04681a1dbd79675a5",
        "subnet-0bb1c79de30f2a1c4",
        "AROAYBRETNYCYV6ZF2R93",
        "us-east-1_oiuR12Abd",
      ].map((id) => `resource ${id} created`),
    );
  });

  it("leave an access key id and a token that ends in hex to the rules that catch them", () => {
    expect(scrub("id AKIAYBRETNYCYV6ZF2R9 here")).toBe("id [REDACTED:aws-access-key-id] here");
    expect(scrub("got Xk3vT9xLm2Pz8Rw4Yb7Nq5DC12DB4 back")).toContain("[REDACTED:");
  });
});

const SEED = 20_261_128;
const random = (alphabet: string, length: number, count: number): string[] =>
  fc.sample(
    fc.array(fc.constantFrom(...alphabet), { minLength: length, maxLength: length }).map((a) => a.join("")),
    { seed: SEED, numRuns: count },
  );
const LOWER36 = "abcdefghijklmnopqrstuvwxyz0123456789";
const UPPER36 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const HEX = "0123456789abcdef";

/** The share of `tokens` redacted when each stands alone in free text. */
function caught(tokens: readonly string[]): number {
  return tokens.filter((t) => scrub(`ok ${t} done`) !== `ok ${t} done`).length / tokens.length;
}

describe("random bodies in free text, however few their switches between letters and digits", () => {
  // By the switch rate alone, about one body in thirteen of 24 base36 characters and one in
  // twenty-five of 32 hex went through: those are the random ones with the fewest switches.
  it("are caught: base36 in either case of 24, hex of 32", () => {
    expect(caught(random(LOWER36, 24, 1000))).toBeGreaterThanOrEqual(0.97);
    expect(caught(random(UPPER36, 24, 1000))).toBeGreaterThanOrEqual(0.97);
    expect(caught(random(HEX, 32, 1000))).toBeGreaterThanOrEqual(0.99);
    expect(scrub("-H 'Jenkins-Crumb:440561953171ba44ace9740562d172bb'")).toContain("[REDACTED:");
  });

  it("while identifiers of words and numbers, and build targets, are kept", () => {
    expectKept(scrub, [
      "getPeerX509Certificate(): X509Certificate",
      "i18n?: I18nSettingsOptional",
      'typeof import("@aws-sdk/core/protocols").AwsJson1_1Protocol;',
      "const http401ErrorRateMetric = dist.metric401ErrorRate();",
      "const convertToSecondsArm64 = new tasks.LambdaInvoke(",
      '"lightningcss-win32-arm64-msvc": "1.33.0"',
      '"node_modules/@rolldown/binding-win32-x64-msvc": {',
      "rollout: appconfig.RolloutStrategy.CANARY_10_PERCENT_20_MINUTES,",
      "model: mistralai/Mistral-7B-Instruct-v0.2",
      "dialect: org.hibernate.dialect.PostgreSQL95Dialect",
      "BedrockModel.META_LLAMA3_70B_INSTRUCT_V1",
      "DTSTART:20240229T120000Z",
    ]);
  });
});

describe("a base64 body holding `/`", () => {
  const BASE64 = `${LOWER36}ABCDEFGHIJKLMNOPQRSTUVWXYZ+/`;

  // Judged part by part as a path, one random body of 24 in six was kept (its parts too short).
  it("is judged whole too: 24 characters alone in free text, and a key block's last line", () => {
    expect(caught(random(BASE64, 24, 1000))).toBeGreaterThanOrEqual(0.93);
    expect(scrub("data:\n    Kx9ab/Qz8+Lm3Np7/Rt2VwQd\nWARN done")).toContain("[REDACTED:");
  });

  it("while paths, resource names and ARNs are kept", () => {
    expectKept(scrub, [
      "see src/lib/utils/index and OpenAgentsInc/openagents",
      "│ Stack2/DLQ2/Resource │",
      "pod/coredns-5cb4fb54c7-q222j   1/1     Running",
      "/usr/lib/x86_64-linux-gnu/libssl3",
      "see torvalds/linux/commit/12e217f37eb173f0c8f1b7309f4207c7dca20186",
      "GET /uploads/Xk3P9qLm2R/avatar",
      "'arn:aws:kinesis:us-east-2:123456789012:stream/f3j09j2230j',",
      "'arn:aws:kms:us-east-1:123456789012:key/g24efbna-az9b-42ro-m3bp-cq249l94fca6',",
      "arn:aws:cognito-idp:eu-west-1:123456789012:userpool/us-east-1_mtRyYQ14D",
    ]);
  });
});

describe("a body typed by counting", () => {
  it("is no generated run in free text, however random the rest (`…-1234fghijklmnopAA`)", () => {
    expectKept(scrub, [
      "ok sk-ant-api03-abc123xyz-456de-klMnopqrstuvwx-3456yza789bcde-1234fghijklmnopAA done",
    ]);
    expect(scrub("ok sk-ant-api03-abc123xyz-456de-Kq7wZ3xLr9Tk2Wm4Np7Vb1-9f8e7d6c5b done")).toContain(
      "[REDACTED:",
    );
    // Only where no other part is generated: a body beside a counted prefix is still a body.
    expect(scrub("run id 12345678/tOWvvSlTWjFBLkhnN8G9DyxyoOVS5Jko4isVSApg")).toContain("[REDACTED:");
  });
});

describe("a digest's length", () => {
  const hex40 = "12e217f37eb173f0c8f1b7309f4207c7dca20186";
  const hex64 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  // Assigned to a vendor's name (`deepgram = <40 hex>`) it was taken for a key in this pass, then
  // dropped: test vectors, tags and commits stand under every other name (`expected`, `want`,
  // `GITCOMMIT`), far more often than a vendor's hex key under its bare name.
  it("stays a digest alone, assigned, under a digest's or a commit's name, and after : (lock files)", () => {
    expectKept(scrub, [
      `HEAD is now at ${hex40}`,
      `SRCREV_moby = "${hex40}"`,
      `GITHUB_SHA=${hex40}`,
      `"shasum": "${hex40}"`,
      `"before": "${hex40}", "after": "${hex40}"`,
      `  ReactNativeCameraKit: ${hex40}`,
      `expected = "${hex64}"`,
      `want := "${hex40}"`,
      `GITCOMMIT=${hex40}`,
    ]);
  });
});

describe("a key in a URL's path", () => {
  it("is caught where the provider puts one there: node providers' project keys, push services' device tokens", () => {
    const shapes: [string, string][] = [
      [
        "'1': 'https://mainnet.infura.io/v3/ac08c9ada68044d38f55d4cb4749d54a',",
        "ac08c9ada68044d38f55d4cb4749d54a",
      ],
      ["wss://mainnet.infura.io/ws/v3/ac08c9ada68044d38f55d4cb4749d54a", "ac08c9ada68044d38f55d4cb4749d54a"],
      ["rpc: https://eth-mainnet.alchemyapi.io/v2/6wgSNoYMEzJ2s47Q593p9-9Xg5clkmAB", "6wgSNoYMEzJ2s47Q593p9"],
      [
        "rpc: https://eth-mainnet.g.alchemy.com/v2/Qm7z4kT9wLx2VbN8rPq5sYhJ3cF6dGaE",
        "Qm7z4kT9wLx2VbN8rPq5sYhJ3cF6dGaE",
      ],
      [
        "POST https://android.googleapis.com/gcm/send/cfUDlZL9YBQ:APA91bExYfB9ymMLJrR6rrDDSdGR614iMWXDHYVQpE2ETwMjJrghcWDKrEHwnay5FTCI57",
        "APA91bExYfB9ymMLJrR6rrDDSdGR614iMWXDHYVQpE2ETwMj",
      ],
    ];
    expectHidden(scrub, shapes);
  });

  it("while content-addressed files and page ids elsewhere are kept", () => {
    expectKept(scrub, [
      "https://cdn.example.com/assets/ac08c9ada68044d38f55d4cb4749d54a.js",
      "https://github.com/torvalds/linux/commit/96f79079f1d658895d188a78f303220c6f161b05",
      "https://docs.infura.io/api/networks/ethereum",
      "https://ipfs.infura.io/ipfs/QmT5NvUtoM5nWFfrQdVrFtvGfKFmG7AHE8P34isapyhCxX",
    ]);
  });
});

describe("values public by design, in the outputs that print them", () => {
  it("are kept: public keys by their label, age recipients, hashed known_hosts, OpenPGP key ids, X-Ray trace ids", () => {
    expectKept(scrub, [
      "interface: wg0\n  public key: ACENB/uTfInTm2nBSoplOa3TarXsKG6ww5Ez8q0hr+o=\n  private key: (hidden)",
      "peer: t56exGBv4XwnQy7Tf+hNTQQD/kY1VeJYJwq/57hxt7s=\n  endpoint: vpn:51820",
      "[Peer]\nPublicKey = ACENB/uTfInTm2nBSoplOa3TarXsKG6ww5Ez8q0hr+o=",
      "[Peer]\nPublicKey = /H3UpB4snpuJY5i1GtIdjtx9XC7DqPbalSl4aoIeUnI=",
      "const stripe = Stripe('pk_live_AcuV3NvRy6jEYu4eDuVlbrYBQ0SmOZQN7eRYlr7Ff3gqcJLjfbWAjVk21Fxz');",
      "posthog.init('phc_pzSpeDyKLfSVo7man91eiEstSRu9QTYaXYXmFbN78M3', { api_host: 'https://eu.i.posthog.com' });",
      "Public key: age16z4plq5rdqfeaza2qc6gnstqdnw0cl24f83rz0tkjrmsq40vyn2x8vhq4n",
      "age: >-\n  age1zvwf9wm2ju6wc54g6gq8r6kdwt9m9a9zf3ksmfrrv9dd6a85399deukcy4",
      "|1|dekBoYlUa6UlO9iAI1hLxDixVzY=|sgK//PNkRDboMk1fBdKg08nmv4I= ecdsa-sha2-nistp256",
      "ssb   cv25519/3D78C3083DC6F04A 2024-02-11 [E]",
      "< x-amzn-trace-id: Root=1-9e154c3e-b431863e10d710a5c2f3e4d6",
    ]);
  });

  it("while the private halves beside them are caught", () => {
    expect(
      scrub(
        "const stripe = require('stripe')('sk_live_AcuV3NvRy6jEYu4eDuVlbrYBQ0SmOZQN7eRYlr7Ff3gqcJLjfbWAjVk21Fxz');",
      ),
    ).not.toContain("AcuV3Nv");
    expect(scrub("[Interface]\nPrivateKey = ACENB/uTfInTm2nBSoplOa3TarXsKG6ww5Ez8q0hr+o=")).not.toContain(
      "ACENB",
    );
    expect(scrub("my_public_key_secret: ACENB/uTfInTm2nBSoplOa3TarXsKG6ww5Ez8q0hr+o=")).not.toContain(
      "ACENB",
    );
    expect(scrub("AGE-SECRET-KEY-15FERYXHRDZ9M6Y09MR8WRERWZGJ6F8NTXVHXYRDLM5AAHN0T09NL4UJY86")).toContain(
      "[REDACTED:",
    );
  });
});

describe("build tools' paths", () => {
  it("keep the hashes and scratch folders the tools name them by", () => {
    expectKept(scrub, [
      "/nix/store/kj9hfyxm25b9q2g0sa8k936k91fjgi4f-nodejs-22.11.0/bin/node",
      "  /nix/store/6cp643dzvlxxpkgbg5kzmwj47sam9zs2-glibc-2.39-52/lib/libc.so.6 (0x00007f6930107ed7)",
      "     Running unittests src/lib.rs (target/debug/deps/mycrate-40f842319e68ddc3)",
      "  Executable target/release/deps/app-3f9c2a7b1d4e8f60",
      "/root/.cache/go-build/21/5a9ab8e681aea3d73919677bbda9b3d27e7f1ef46ed0e7e5e8e6c9e51563308b-d",
      "/var/folders/7k/z_klmvt45hu43j_siom1tma7v3di8f0000gn/T/pytest-of-dev/pytest-0/test_login0",
      "  Stored in directory: /tmp/pip-ephem-wheel-cache-zz5fk2z9/wheels/77/c1/523f7ecf3a1e7fd41942e0dcfcd995969cf76a329208600be497ed",
      "/opt/ci/.cache/uv/archive-v0/0wBpIzuYl3QGkG0pRzS6j/lib",
      "/opt/ci/.npm/_cacache/index-v5/4f/2a/9c1e8b7d6a5f3e2d1c0b9a8f7e6d5c4b3a29d8e7f6a5b4c3d2e1f0a9b8c7",
      "/opt/ci/.cache/bazel/_bazel_u/4f2a9c1e8b7d6a5f3e2d1c0b9a8f7e6d/execroot/__main__/bazel-out",
    ]);
  });

  it("catch most of a token a line cut short, not a mask or a JSON header in base64", () => {
    expectHidden(scrub, [
      ["hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345…", "hf_AbCdEfGhIjKlMnOpQrSt"],
      ["see Kx9mPq2vLw7Qz8Lm3Np7Rt2VwQdq8...", "Kx9mPq2vLw7Qz8Lm3Np7"],
    ]);
    expectKept(scrub, [
      "ghp_abcDEF123…",
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...",
      "export T=ops_eyJzaWduSW5BZGRyZXNzIjoiaHR0cHM6...",
    ]);
  });

  it("while a token in a path's part is still one", () => {
    expectHidden(scrub, [
      ["cp key /srv/uploads/q7Xk2Lm9Pz5vRt4Wn8Ys3Jd6Hf1Gb0Ac/x", "q7Xk2Lm9Pz5vRt4Wn8Ys3Jd6Hf1Gb0Ac"],
      ["see /var/run/tokens/aB3kQ9xZ7mWq2Lp8Rt5Yv1Nc", "aB3kQ9xZ7mWq2Lp8Rt5Yv1Nc"],
    ]);
  });
});
