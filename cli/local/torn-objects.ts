/**
 * Objects a crash left half-written in s3rver's folder. s3rver stores an object as
 * `<key>._S3rver_object`, then `<key>._S3rver_object.md5`, then `<key>._S3rver_metadata.json`;
 * a crash between the steps leaves an object whose metadata is missing or cut short, on which
 * every listing of its bucket fails (`InternalError`, naming no file), or whose bytes no longer
 * match its MD5. They are found before s3rver serves and moved aside, never deleted.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, readdir, readFile, rename, stat } from "node:fs/promises";
import { dirname, join, relative } from "node:path";

/** An object found torn at start. */
export interface TornObject {
  bucket: string;
  key: string;
  /** What is wrong with it. */
  reason: string;
  /** The folder its files were moved to, or null when they could not be (and why, in `reason`). */
  setAsideIn: string | null;
}

const OBJECT = "._S3rver_object";
/** s3rver's folder of multipart uploads in progress, in each bucket: no objects in it. */
const UPLOADS = "._S3rver_uploads";

/**
 * Finds the torn objects of every bucket in s3rver's `directory` and moves their files to
 * `<tornDir>/<time>/<bucket>/…` (same names), so the rest of the folder serves again.
 */
export async function setAsideTorn(directory: string, tornDir: string): Promise<TornObject[]> {
  const torn: TornObject[] = [];
  const into = join(tornDir, new Date().toISOString().replaceAll(":", "-"));
  for (const bucket of await folders(directory)) {
    const root = join(directory, bucket);
    for await (const objectPath of objectFiles(root)) {
      const reason = await tornReason(objectPath).catch(
        (error: unknown) => `its files cannot be read: ${String(error)}`,
      );
      if (reason === undefined) continue;
      const key = relative(root, objectPath).slice(0, -OBJECT.length);
      const target = join(into, bucket, relative(root, dirname(objectPath)));
      const moved = await moveFiles(objectPath, target);
      torn.push({
        bucket,
        key,
        reason: moved === undefined ? reason : `${reason}; it could not be set aside: ${moved}`,
        setAsideIn: moved === undefined ? target : null,
      });
    }
  }
  return torn;
}

async function folders(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory()).map((e) => e.name);
}

async function* objectFiles(folder: string): AsyncGenerator<string> {
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory() && entry.name !== UPLOADS) yield* objectFiles(path);
    else if (entry.isFile() && entry.name.endsWith(OBJECT)) yield path;
  }
}

/** Why the object at `objectPath` is torn, or undefined when it is whole. */
async function tornReason(objectPath: string): Promise<string | undefined> {
  const metadata = await readFile(metadataPath(objectPath), "utf8").catch((error: NodeJS.ErrnoException) =>
    error.code === "ENOENT" ? null : Promise.reject(error),
  );
  if (metadata === null) return "it has no metadata file";
  if (metadata.trim() === "") return "its metadata file is empty";
  try {
    const parsed: unknown = JSON.parse(metadata);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      return "its metadata file is not a JSON object";
  } catch {
    return "its metadata file is not JSON (cut short)";
  }
  // No MD5 file is whole: s3rver computes one (a copy with new metadata writes none).
  const md5 = await readFile(`${objectPath}.md5`, "utf8").catch(() => null);
  if (md5 === null) return undefined;
  if (!/^[0-9a-f]{32}$/.test(md5)) return "its MD5 file is empty or malformed";
  // The MD5 is written after the bytes: bytes newer than it were being rewritten when it stopped.
  const [object, sum] = await Promise.all([stat(objectPath), stat(`${objectPath}.md5`)]);
  if (object.mtimeMs <= sum.mtimeMs) return undefined;
  const hash = createHash("md5");
  for await (const chunk of createReadStream(objectPath)) hash.update(chunk as Buffer);
  return hash.digest("hex") === md5 ? undefined : "its bytes do not match its MD5 (cut short while written)";
}

function metadataPath(objectPath: string): string {
  return `${objectPath.slice(0, -"object".length)}metadata.json`;
}

/** Moves the object's files into `target`; undefined when done, else why not. */
async function moveFiles(objectPath: string, target: string): Promise<string | undefined> {
  try {
    await mkdir(target, { recursive: true });
    for (const path of [objectPath, `${objectPath}.md5`, metadataPath(objectPath)]) {
      await rename(path, join(target, relative(dirname(objectPath), path))).catch(
        (error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? undefined : Promise.reject(error)),
      );
    }
    return undefined;
  } catch (error) {
    return String(error);
  }
}
