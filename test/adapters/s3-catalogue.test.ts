import "aws-sdk-client-mock-vitest/extend";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { S3CatalogueStore } from "../../functions/adapters/s3-catalogue.js";
import { TransientError } from "../../shared/errors.js";
import { connectionReset, serviceError, textObjects } from "../support/aws-fakes.js";

const client = new S3Client({ region: "us-east-1" });
const s3 = mockClient(client);
const store = new S3CatalogueStore(client, "published");

beforeEach(() => {
  s3.reset();
  textObjects(s3);
});

describe("S3CatalogueStore.getEntry", () => {
  it("reads a body cut off mid-read again, and a missing key is null", async () => {
    await store.putEntry("t/_catalogue/entries/a.json", '{"key":"t/s/a"}');
    s3.on(GetObjectCommand, { Key: "t/_catalogue/entries/a.json" })
      .rejectsOnce(connectionReset())
      .callsFake(() => ({ ETag: '"e"', Body: { transformToString: async () => '{"key":"t/s/a"}' } }));
    expect(await store.getEntry("t/_catalogue/entries/a.json")).toEqual({
      body: '{"key":"t/s/a"}',
      etag: '"e"',
    });
    expect(s3).toHaveReceivedCommandTimes(GetObjectCommand, 2);
    expect(await store.getEntry("t/_catalogue/entries/none.json")).toBeNull();
  });

  it("gives up after three tries with a transient error, and keeps access denied as it is", async () => {
    s3.on(GetObjectCommand, { Key: "k" }).rejects(connectionReset());
    await expect(store.getEntry("k")).rejects.toBeInstanceOf(TransientError);
    expect(s3).toHaveReceivedCommandTimes(GetObjectCommand, 3);
    s3.on(GetObjectCommand, { Key: "d" }).rejects(serviceError("AccessDenied", 403));
    await expect(store.getEntry("d")).rejects.toMatchObject({ name: "AccessDenied" });
  });
});

describe("S3CatalogueStore.getCatalogue", () => {
  it("reads the manifest's text and the index's generation from its metadata", async () => {
    const keys = { manifest: "t/_catalogue/shards/3f.json", index: "t/_catalogue/shards/3f.html" };
    expect(await store.getCatalogue(keys)).toEqual({ manifest: null, indexGeneration: null });
    await store.putCatalogue(keys, { manifest: "{}", index: "<html>", generation: "g1" });
    expect(await store.getCatalogue(keys)).toEqual({ manifest: "{}", indexGeneration: "g1" });
    expect(
      await store.getCatalogue({ manifest: "t/_catalogue/manifest.json", index: "t/_catalogue/index.html" }),
    ).toEqual({
      manifest: null,
      indexGeneration: null,
    });
  });
});
