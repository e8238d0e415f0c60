/**
 * The tools' password arguments (`detect/tool-passwords.ts`): what ends a command, positional
 * forms read once right after the tool, values that stand for a password, and flags of the same
 * letter in other tools. Recall over generated passwords is measured by generic-shapes.test.ts
 * (family `tool`); these are the edges.
 */
import { describe, expect, it } from "vitest";
import { scanToolPasswords } from "#shared/redact/detect/tool-passwords.js";
import { foundBy } from "./helpers.js";

const found = foundBy(scanToolPasswords, "tool-password");

describe("tool passwords", () => {
  it("reads every password flag of one command, quoted or not", () => {
    expect(found("snmpwalk -v3 -u mon -a SHA -A 'auth pass' -x AES -X Priv4te! host")).toEqual([
      "auth pass",
      "Priv4te!",
    ]);
  });

  it("ends a command at an unquoted pipe, semicolon or line break, not at one inside quotes", () => {
    expect(found("sshpass -p 'a|b;c' ssh h")).toEqual(["a|b;c"]);
    expect(found("sshpass -f pw.txt ssh h; zip -r a.zip -P x")).toEqual([]);
    expect(found("sshpass -f pw.txt ssh h\nredis-cli ping -a")).toEqual([]);
  });

  it("reads ssh-keygen's new and old passphrases", () => {
    expect(found("ssh-keygen -p -P oldPass99 -N 'new pass 99' -f k")).toEqual(["oldPass99", "new pass 99"]);
  });

  it("reads a positional form once, right after the tool", () => {
    expect(found("net user svc S3cret! /add")).toEqual(["S3cret!"]);
    expect(found("net user svc /domain extra")).toEqual([]);
    expect(found("NET USE Z: \\\\srv\\share Pa55 /USER:corp\\bob")).toEqual(["Pa55"]);
    expect(found("wpa_passphrase HomeNet hunter22")).toEqual(["hunter22"]);
  });

  it("leaves values that stand for a password: variables, prompts, files", () => {
    expect(found("sshpass -p $SSHPASS ssh h")).toEqual([]);
    expect(found("ssh-keygen -t ed25519 -N '' -f k")).toEqual([]);
    expect(found('ssh-keygen -N "$PASSPHRASE" -f k')).toEqual([]);
    expect(found("redis-cli -a %REDIS_PW% ping")).toEqual([]);
    expect(found("net use \\\\srv\\share * /user:bob")).toEqual([]);
    expect(found("keytool -list -storepass:env STORE_PASS")).toEqual([]);
    expect(found("openssl enc -k file:pw.txt")).toEqual([]);
  });

  it("reads a flag only in its own tool's command", () => {
    expect(found("curl -w '%{http_code}' https://x && grep -P '\\d+' f")).toEqual([]);
    expect(found("ldapsearch -x -s base -b dc=x")).toEqual([]);
    expect(found("psql -U postgres -c 'select 1'")).toEqual([]);
  });

  it("needs the literal a form requires besides its tool's name", () => {
    expect(found("smbclient //h/s -U bob -c ls")).toEqual([]);
    expect(found("smbclient //h/s -U bob%Pw12 -c ls")).toEqual(["Pw12"]);
    expect(found("secretsdump.py corp/admin:Pw12 dc01")).toEqual([]);
    expect(found("secretsdump.py corp/admin:Pw12@dc01")).toEqual(["Pw12"]);
  });
});

describe("more tools and statements", () => {
  it("reads positional passwords: rabbitmqctl's users, MinIO's aliases", () => {
    expect(found("rabbitmqctl add_user app S3cret!x")).toEqual(["S3cret!x"]);
    expect(found("rabbitmqctl change_password app 'new pass'")).toEqual(["new pass"]);
    expect(found("mc alias set local http://minio:9000 minioadmin S3cret!x")).toEqual(["S3cret!x"]);
    expect(found("rabbitmqctl list_users; mc ls local/bucket")).toEqual([]);
  });
  it("reads HTTPie's -a and a credential piped to base64", () => {
    expect(found("http -a jdoe:S3cret!x GET https://api.example.com")).toEqual(["S3cret!x"]);
    expect(found("echo -n 'jdoe:S3cret!x' | base64")).toEqual(["S3cret!x"]);
    expect(found("cat creds.txt | base64 && http GET https://x/y")).toEqual([]);
  });
  it("reads SQL's IDENTIFIED BY in a user's statement, not in prose", () => {
    expect(found("CREATE USER app IDENTIFIED BY 'S3cret!x';")).toEqual(["S3cret!x"]);
    expect(found("create user scott identified by tiger;")).toEqual(["tiger"]);
    expect(found("ALTER USER 'root'@'%' IDENTIFIED WITH caching_sha2_password BY 'S3cret!x'")).toEqual([
      "S3cret!x",
    ]);
    expect(found("CREATE USER ext IDENTIFIED EXTERNALLY;")).toEqual([]);
    expect(found("the user is identified by their email address")).toEqual([]);
  });
});

describe("secrets handed to CI and secret stores", () => {
  it("reads a here-string fed to a tool that takes a secret on its input", () => {
    expect(found('circleci context store-secret org ctx DB_PASSWORD <<< "S3cret!x"')).toEqual(["S3cret!x"]);
    expect(found("docker secret create db_pass - <<< S3cret!x")).toEqual(["S3cret!x"]);
    expect(found("sudo -S systemctl restart app <<< 'S3cret!x'")).toEqual(["S3cret!x"]);
    expect(found('grep foo <<< "hello world"')).toEqual([]);
  });
  it("reads gh secret set's body and a masked value of a GitHub Actions log", () => {
    expect(found('gh secret set DB_PASSWORD -b"S3cret!x"')).toEqual(["S3cret!x"]);
    expect(found("gh secret set X --body S3cret!x")).toEqual(["S3cret!x"]);
    expect(found('gh secret set DB_PASSWORD --body "$DB_PASSWORD"')).toEqual([]);
    expect(found("::add-mask::S3cret!x")).toEqual(["S3cret!x"]);
    expect(found('echo "::add-mask::$TOKEN"')).toEqual([]);
  });

  it("reads the password a hashing tool is given, its first argument that is no option", () => {
    expect(found("openssl passwd -6 -salt s4lt Tr0ub4dor3x")).toEqual(["Tr0ub4dor3x"]);
    expect(found("openssl passwd -apr1 'pass word 1'")).toEqual(["pass word 1"]);
    expect(found("mkpasswd -m sha-512 -R 5000 Tr0ub4dor3x")).toEqual(["Tr0ub4dor3x"]);
    expect(found("mkpasswd --method=bcrypt Tr0ub4dor3x")).toEqual(["Tr0ub4dor3x"]);
    expect(found("rclone obscure Tr0ub4dor3x")).toEqual(["Tr0ub4dor3x"]);
    expect(found("caddy hash-password --plaintext Tr0ub4dor3x")).toEqual(["Tr0ub4dor3x"]);
    expect(found("doveadm pw -s SHA512-CRYPT -p Tr0ub4dor3x")).toEqual(["Tr0ub4dor3x"]);
  });

  it("reads none where the hashing tool reads its standard input, a file or a variable", () => {
    expect(found("openssl passwd -6 -stdin < pw.txt")).toEqual([]);
    expect(found("openssl passwd -6 -in pw.txt")).toEqual([]);
    expect(found("mkpasswd -m sha-512 -s")).toEqual([]);
    expect(found('rclone obscure "$RCLONE_PASS"')).toEqual([]);
    expect(found("caddy hash-password")).toEqual([]);
    expect(found("openssl passwd")).toEqual([]);
  });

  it("reads a secret piped or fed to a secret store that reads it from its input", () => {
    expect(found("echo 'S3cret!x' | gh secret set DB_PASSWORD")).toEqual(["S3cret!x"]);
    expect(found('printf "%s" "S3cret!x" | glab variable set DB_PASSWORD --masked')).toEqual(["S3cret!x"]);
    expect(found("pass insert -e db/prod <<< 'S3cret!x'")).toEqual(["S3cret!x"]);
    expect(found("echo S3cret!x | doppler secrets set DB_PASSWORD")).toEqual(["S3cret!x"]);
    expect(found("gpg --batch --passphrase-fd 0 --pinentry-mode loopback -c f <<< 'S3cret!x'")).toEqual([
      "S3cret!x",
    ]);
    // Where the secret comes from a file or a variable, or the tool reads no secret.
    expect(found("cat key.txt | gh secret set API_KEY")).toEqual([]);
    expect(found("echo $TOKEN | gh secret set API_KEY")).toEqual([]);
    expect(found('echo "$DB_PASSWORD" | pass insert -e db/prod')).toEqual([]);
    expect(found("gpg --passphrase-fd 0 --batch -d f.gpg < pass.txt")).toEqual([]);
    expect(found("echo S3cret!x | gh variable set REGION")).toEqual([]);
  });

  it("reads the answer an expect script or pexpect sends to a password prompt", () => {
    expect(found('spawn ssh bob@host\nexpect "*assword:*"\nsend -- "S3cret!x\\r"\ninteract')).toEqual([
      "S3cret!x",
    ]);
    expect(found("child.expect('Password: ')\nchild.sendline('S3cret!x')")).toEqual(["S3cret!x"]);
    expect(found('expect "passphrase for key" { send "S3cret!x\\n" }')).toEqual(["S3cret!x"]);
    // A variable sent (Tcl's, Python's), or the answer to another prompt.
    expect(found('expect "password:"\nsend "$env(PASS)\\r"')).toEqual([]);
    expect(found('expect "Password:"\nsend -- "$password\\r"')).toEqual([]);
    expect(found("child.expect('Password:')\nchild.sendline(password)")).toEqual([]);
    expect(found('expect "Login:"\nsend "bob\\r"')).toEqual([]);
  });

  it("reads lftp's password after its user and a comma, on its command line or in its script", () => {
    expect(found("lftp -u webdeploy,'S3cret!x' -e \"mirror -R\" ftp.example.de")).toEqual(["S3cret!x"]);
    expect(found('lftp -e "open -u bob,S3cret!x ftp.example.de; mirror"')).toEqual(["S3cret!x"]);
    expect(found("lftp -u bob,$FTP_PASS ftp.example.de")).toEqual([]);
  });

  it("reads the string ansible-vault encrypts, options and their arguments skipped", () => {
    expect(found("ansible-vault encrypt_string 'S3cret!x' --name db_password")).toEqual(["S3cret!x"]);
    expect(found("ansible-vault encrypt_string --vault-id dev@prompt 'S3cret!x' -n pw")).toEqual([
      "S3cret!x",
    ]);
    expect(found("ansible-vault encrypt_string --stdin-name db_password")).toEqual([]);
    expect(found('ansible-vault encrypt_string "$DB_PASSWORD" --name x')).toEqual([]);
  });

  it("reads a here-string in Bash's $'…' quotes up to its first \\n, escapes kept", () => {
    expect(found("smbpasswd -s -a jdoe <<< $'Tr0ub4dor3x\\nTr0ub4dor3x'")).toEqual(["Tr0ub4dor3x"]);
    expect(found("passwd --stdin jdoe <<< $'it\\'s-a-pass\\n'")).toEqual(["it\\'s-a-pass"]);
    expect(found("smbpasswd -s -a jdoe <<< 'Tr0ub4dor3x'")).toEqual(["Tr0ub4dor3x"]);
    // Not a tool that reads a password from its input.
    expect(found("cat <<< $'hello\\nworld'")).toEqual([]);
  });
});
