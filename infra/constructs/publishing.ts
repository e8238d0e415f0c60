/**
 * External publishing (context `publishing`, docs/pipeline.md: Publishing): a CloudFront distribution in
 * front of the published bucket through origin access control, so readers get Layer C copies over
 * HTTPS and nothing else: the bucket stays private and only this distribution may read it.
 *
 * - `private`: the behavior trusts one key group, so CloudFront serves only URLs signed with the
 *   private key of `publicKeyPem` (`replay-pipeline url` signs one per tenant prefix); the stack
 *   holds the public key only.
 * - `public`: anyone with a copy's address reads it.
 *
 * In both, edges keep a copy at most `PUBLISHED_MAX_AGE_SECONDS` and the ingest function
 * invalidates a withdrawn copy's path (`grantCreateInvalidation` in ingest.ts).
 */
import { Duration, Validations } from "aws-cdk-lib";
import {
  AllowedMethods,
  CacheCookieBehavior,
  CacheHeaderBehavior,
  CachePolicy,
  CacheQueryStringBehavior,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  KeyGroup,
  PriceClass,
  PublicKey,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from "aws-cdk-lib/aws-cloudfront";
import { S3BucketOrigin } from "aws-cdk-lib/aws-cloudfront-origins";
import { Construct } from "constructs";
import { PUBLISHED_MAX_AGE_SECONDS } from "../../functions/adapters/s3-publisher.js";
import type { Storage } from "./storage.js";

/** What `Publishing` is configured with. */
export type PublishingProps =
  | { storage: Storage; mode: "public" }
  | {
      storage: Storage;
      mode: "private";
      /** PEM of the RSA 2048 public key whose private key signs readers' URLs. */
      publicKeyPem: string;
    };

/** The distribution of the published bucket, and in private mode the key it trusts. */
export class Publishing extends Construct {
  readonly distribution: Distribution;
  /** The public key's id: a signed URL's `Key-Pair-Id` (private mode only). */
  readonly signingKey: PublicKey | null;

  constructor(scope: Construct, id: string, props: PublishingProps) {
    super(scope, id);
    const { storage } = props;
    const maxAge = Duration.seconds(PUBLISHED_MAX_AGE_SECONDS);
    // The path alone is the cache key: a signed URL's query (Policy, Signature, Key-Pair-Id) is
    // checked at the edge and never reaches the bucket or splits the cache.
    const cachePolicy = new CachePolicy(this, "CachePolicy", {
      comment: `replay-pipeline: Layer C copies kept at most ${PUBLISHED_MAX_AGE_SECONDS} s`,
      minTtl: Duration.seconds(0),
      defaultTtl: maxAge,
      maxTtl: maxAge,
      cookieBehavior: CacheCookieBehavior.none(),
      headerBehavior: CacheHeaderBehavior.none(),
      queryStringBehavior: CacheQueryStringBehavior.none(),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    const responseHeadersPolicy = responseHeaders(this, props.mode);
    this.signingKey =
      props.mode === "private"
        ? new PublicKey(this, "SigningKey", {
            encodedKey: props.publicKeyPem,
            comment: "replay-pipeline: signs readers' URLs; its private key is never in the stack",
          })
        : null;
    const trustedKeyGroups =
      this.signingKey === null
        ? undefined
        : [new KeyGroup(this, "SigningKeys", { items: [this.signingKey] })];
    this.distribution = new Distribution(this, "Distribution", {
      comment: `replay-pipeline: Layer C copies of the published bucket (${props.mode})`,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(storage.publishedBucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy,
        responseHeadersPolicy,
        ...(trustedKeyGroups === undefined ? {} : { trustedKeyGroups }),
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: storage.logBucket,
      logFilePrefix: "cloudfront/",
    });
    acknowledgeDistribution(this.distribution, props.mode);
  }
}

/** The headers every copy is served with: its cache lifetime, and no framing, sniffing or referrer. */
function responseHeaders(scope: Construct, mode: PublishingProps["mode"]): ResponseHeadersPolicy {
  return new ResponseHeadersPolicy(scope, "ResponseHeaders", {
    comment: `replay-pipeline: ${mode} Layer C copies`,
    customHeadersBehavior: {
      customHeaders: [
        {
          // A private copy is for its reader only: no shared cache between them and CloudFront.
          header: "Cache-Control",
          value: `${mode}, max-age=${PUBLISHED_MAX_AGE_SECONDS}`,
          override: true,
        },
      ],
    },
    securityHeadersBehavior: {
      contentTypeOptions: { override: true },
      frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
      // A signed URL must not leave in a Referer header.
      referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
      strictTransportSecurity: {
        accessControlMaxAge: Duration.days(365),
        includeSubdomains: true,
        override: true,
      },
    },
  });
}

/** Why the distribution has no geo restriction, WAF or custom certificate. */
function acknowledgeDistribution(distribution: Distribution, mode: PublishingProps["mode"]): void {
  Validations.of(distribution).acknowledge(
    {
      id: "AwsSolutions-CFR1",
      reason:
        mode === "private"
          ? "Readers are chosen by signed URL, per tenant; which countries may read them as well is the operator's call."
          : "Layer C copies are published to be shared; which countries may read them is the operator's call.",
    },
    {
      id: "AwsSolutions-CFR2",
      reason:
        "A read-only distribution of static objects with no origin logic; a WAF web ACL costs more than it guards here and can be attached by the operator.",
    },
    {
      id: "AwsSolutions-CFR4",
      reason:
        "The default *.cloudfront.net certificate, which CloudFront serves with TLSv1 as its floor; a custom domain and certificate (TLSv1.2_2021) are the operator's.",
    },
  );
}
