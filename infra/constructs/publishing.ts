/**
 * External publishing (optional, context `cloudFront`): a CloudFront distribution in front of the
 * published bucket through origin access control, so readers get Layer C copies over HTTPS and
 * nothing else: the bucket stays private and only this distribution may read it.
 */
import { Validations } from "aws-cdk-lib";
import {
  AllowedMethods,
  Distribution,
  HttpVersion,
  PriceClass,
  ViewerProtocolPolicy,
} from "aws-cdk-lib/aws-cloudfront";
import { S3BucketOrigin } from "aws-cdk-lib/aws-cloudfront-origins";
import { Construct } from "constructs";
import type { Storage } from "./storage.js";

/** The distribution of the published bucket. */
export class Publishing extends Construct {
  readonly distribution: Distribution;

  constructor(scope: Construct, id: string, storage: Storage) {
    super(scope, id);
    this.distribution = new Distribution(this, "Distribution", {
      comment: "replay-pipeline: Layer C copies of the published bucket",
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(storage.publishedBucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: storage.logBucket,
      logFilePrefix: "cloudfront/",
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: "AwsSolutions-CFR1",
        reason:
          "Layer C copies are meant to be shared; which countries may read them is the operator's call.",
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
}
