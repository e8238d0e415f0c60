/**
 * The documentation's links hold: every relative link of the README and of docs/*.md (and the
 * folder READMEs) names a file that exists, and every `#anchor` a heading of the file it points
 * to, slugged as GitHub slugs headings (github-slugger). External links are not fetched.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import GithubSlugger from "github-slugger";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../support/corpus.js";

const DOCS = [
  "README.md",
  ...readdirSync(join(PROJECT_ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
  "infra/README.md",
  "functions/README.md",
].filter((f) => existsSync(join(PROJECT_ROOT, f)));

/** The text outside fenced code blocks (a link in a code sample is not a link). */
function prose(text: string): string {
  let fenced = false;
  return text
    .split("\n")
    .filter((line) => {
      if (line.startsWith("```")) fenced = !fenced;
      return !fenced && !line.startsWith("```");
    })
    .join("\n");
}

/** The anchors of `file`'s headings. */
function anchorsOf(file: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const line of prose(readFileSync(file, "utf8")).split("\n")) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading?.[1] !== undefined) anchors.add(slugger.slug(heading[1].replaceAll("`", "")));
  }
  return anchors;
}

/** The broken links of `doc`: `target` as written and why. */
function brokenLinks(doc: string): string[] {
  const path = join(PROJECT_ROOT, doc);
  const broken: string[] = [];
  for (const m of prose(readFileSync(path, "utf8")).matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
    const target = m[1] as string;
    if (/^[a-z]+:/i.test(target)) continue;
    const [file, anchor] = target.split("#") as [string, string | undefined];
    const into = file === "" ? path : resolve(dirname(path), file);
    if (!existsSync(into)) {
      broken.push(`${doc}: ${target} (no ${relative(PROJECT_ROOT, into)})`);
      continue;
    }
    if (anchor !== undefined && into.endsWith(".md") && !anchorsOf(into).has(anchor))
      broken.push(`${doc}: ${target} (no heading #${anchor})`);
  }
  return broken;
}

describe("documentation links", () => {
  it("covers the README and every file of docs/", () => {
    expect(DOCS).toContain("README.md");
    expect(DOCS.filter((d) => d.startsWith("docs/")).length).toBeGreaterThanOrEqual(7);
  });

  it.each(DOCS)("%s: every relative link and anchor resolves", (doc) => {
    expect(brokenLinks(doc)).toEqual([]);
  });

  it("finds a broken file link and a broken anchor", () => {
    const slugger = new GithubSlugger();
    expect(slugger.slug("The local stack: npm start")).toBe("the-local-stack-npm-start");
    expect(anchorsOf(join(PROJECT_ROOT, "docs", "pipeline.md")).has("limits")).toBe(true);
    expect(anchorsOf(join(PROJECT_ROOT, "docs", "pipeline.md")).has("no-such-heading")).toBe(false);
  });
});
