/**
 * A secret printed by the command before it (`detect/printed-secrets.ts`): which commands read
 * one, which lines count as their output, and the names that must name a credential. Recall over
 * generated secrets is measured by generic-shapes.test.ts (family `tool`, shape `printed`).
 */
import { describe, expect, it } from "vitest";
import { scanPrintedSecrets } from "#shared/redact/detect/printed-secrets.js";
import { foundBy } from "./helpers.js";

const found = foundBy(scanPrintedSecrets, "printed-secret");

describe("printed secrets", () => {
  it("takes the one-token line after a command that prints a stored secret", () => {
    for (const command of [
      "vault kv get -field=password secret/app",
      "op read op://Private/db/password",
      "op item get db --fields label=password",
      "echo $DB_PASSWORD",
      'echo "${API_TOKEN}"',
      "printenv STRIPE_SECRET_KEY",
      "kubectl get secret db -o jsonpath='{.data.password}' | base64 --decode",
      "security find-generic-password -s registry -w",
      "aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text",
      "gcloud secrets versions access latest --secret=db",
      "az keyvault secret show --vault-name kv --name db --query value -o tsv",
      "gopass show prod/db",
      "cat /run/secrets/db",
      'kubectl get secret app-secrets -o jsonpath="{.data.DB_PASSWORD}"',
      "kubectl get secret db -o go-template='{{.data.password}}'",
      "terraform output -raw db_password",
      "heroku config:get DATABASE_PASSWORD -a app",
      "echo -n deploy:Tr0ub4dor | base64",
      "echo -n $REGISTRY_PASSWORD | base64 -w 0",
      'kubectl -n argocd get secret argocd-initial-admin-secret -o jsonpath="{.data.password}" | base64 -d',
      "kubectl --context prod -n app get secret db -o jsonpath={.data.password}",
      "oc get secret db -o jsonpath={.data.password}",
      "tofu output -raw db_password",
      "k get secret db -o jsonpath='{.data.password}'",
      "heroku config:get SECRET_KEY_BASE -a myapp",
      "doppler secrets get DB_PASSWORD --plain",
      "$cred.GetNetworkCredential().Password",
      "Get-AzKeyVaultSecret -VaultName kv -Name db-password -AsPlainText",
    ]) {
      expect(found(`$ ${command}\nS3cret!x99\n$ `), command).toEqual(["S3cret!x99"]);
    }
  });

  it("takes the output in double quotes (`terraform output x`)", () => {
    expect(found('$ terraform output db_password\n"Wint3r-Sk1es"')).toEqual(["Wint3r-Sk1es"]);
    expect(found('$ terraform output vpc_id\n"vpc-0a1b2c3d"')).toEqual([]);
  });

  it("reads a transcript escaped in a JSON string", () => {
    expect(found("$ printenv GH_TOKEN\\ngho_abc123XYZ\\n$ ls")).toEqual(["gho_abc123XYZ"]);
  });

  it("leaves names that are no credential's, outputs that are not one token, and stand-ins", () => {
    expect(found("$ echo $PATH\n/usr/local/bin:/usr/bin")).toEqual([]);
    expect(found("$ terraform output -raw vpc_id\nvpc-0a1b2c3d")).toEqual([]);
    expect(found("$ echo hello | base64\naGVsbG8K")).toEqual([]);
    expect(
      found(`$ echo -n '{"alg":"HS256","typ":"JWT"}' | base64\neyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9`),
    ).toEqual([]);
    expect(found('$ echo "localhost:8080" | base64\nbG9jYWxob3N0OjgwODA=')).toEqual([]);
    expect(found("$ kubectl get secret db -o jsonpath='{.data.username}' | base64 -d\npostgres")).toEqual([]);
    expect(found("$ kubectl get secret db -o jsonpath='{.metadata.name}'\ndb")).toEqual([]);
    expect(found("$ echo $TOKEN_URL\nhttps://auth.example.com/token")).toEqual([]);
    expect(
      found("$ vault kv get -field=password secret/app\nError reading secret/app: permission denied"),
    ).toEqual([]);
    expect(found('$ echo "$API_KEY"\nundefined')).toEqual([]);
    expect(found('$ cat /run/secrets/db\n{"user": "app"}')).toEqual([]);
    expect(found("$ echo $GITHUB_TOKEN\n\n$ git push")).toEqual([]);
  });

  it("reads only the line right after the command", () => {
    expect(found("$ echo $DB_PASSWORD\n\nS3cret!x99")).toEqual([]);
    expect(found("S3cret!x99\n$ echo $DB_PASSWORD")).toEqual([]);
  });
});
