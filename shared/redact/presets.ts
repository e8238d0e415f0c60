/**
 * Layer C privacy presets (OpenAgents ADR-0016 / ADR-0017, dsrs PRIVACY.md).
 *
 * Secrets (API keys, tokens, passwords, private keys) are ALWAYS redacted, whatever the preset:
 * ADR-0017.R6 says Layer C never emits them. The preset only decides the privacy extras.
 */
import { ContractError } from "../errors.js";

/** Preset names, stable per ADR-0016. */
export const PRESETS = ["open_source", "private_repo", "paranoid"] as const;

/** One of {@link PRESETS}. */
export type Preset = (typeof PRESETS)[number];

/** The default preset when none is given (ADR-0016.R1). */
const DEFAULT_PRESET: Preset = "private_repo";

/** What a preset redacts on top of secrets. */
export interface PresetPolicy {
  name: Preset;
  /** Replace e-mail addresses (rule `email`). */
  redactEmails: boolean;
  /** Replace IPv4 / IPv6 addresses (rules `ipv4`, `ipv6`). */
  redactIps: boolean;
  /** Replace `/home/<user>`, `/Users/<user>`, `C:\Users\<user>` with `~` (rule `home-path`). */
  homePaths: boolean;
  /**
   * paranoid keeps only types, ids, timings, statuses, hashes. Applied by the per-format transform (it knows
   * the structure); `Scrubber` itself scrubs every string it is given the same way for all presets.
   */
  keepOnlyStructural: boolean;
}

const POLICIES: Readonly<Record<Preset, PresetPolicy>> = {
  // ADR-0016: open_source = "no redaction" beyond the mandatory secret removal.
  open_source: {
    name: "open_source",
    redactEmails: false,
    redactIps: false,
    homePaths: false,
    keepOnlyStructural: false,
  },
  // Default. Paths are redacted (PathsOnly); e-mails and IPs are personal data that a published (Layer C)
  // trace of a private repository should not carry either.
  private_repo: {
    name: "private_repo",
    redactEmails: true,
    redactIps: true,
    homePaths: true,
    keepOnlyStructural: false,
  },
  paranoid: {
    name: "paranoid",
    redactEmails: true,
    redactIps: true,
    homePaths: true,
    keepOnlyStructural: true,
  },
};

/** True when `value` names a preset. */
export function isPreset(value: unknown): value is Preset {
  return typeof value === "string" && (PRESETS as readonly string[]).includes(value);
}

/** The policy of preset `p` (a fresh copy; `private_repo` when `p` is undefined). */
export function presetPolicy(p: Preset = DEFAULT_PRESET): PresetPolicy {
  const policy = POLICIES[p];
  if (policy === undefined)
    throw new ContractError("redact.unknown_preset", `unknown privacy preset: ${String(p)}`);
  return { ...policy };
}
