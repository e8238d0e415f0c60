/** What the integration suites ask of a bucket beside the product's own reads. */
import { HeadObjectCommand, type S3Client } from "@aws-sdk/client-s3";

/** Whether `key` is in `bucket` (HeadObject; NotFound is false, any other error is thrown). */
export async function objectExists(s3: S3Client, bucket: string | undefined, key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return true;
  } catch (error) {
    if ((error as Error).name === "NotFound") return false;
    throw error;
  }
}
