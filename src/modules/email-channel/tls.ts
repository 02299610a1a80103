/**
 * The certificate the inbound SMTP server offers with STARTTLS (docs/email.md, "STARTTLS"):
 * the PEM files PARLEY_MAIL_TLS_CERT and PARLEY_MAIL_TLS_KEY when both are set; else a
 * self-signed one (ECDSA P-256, a year, the public host name) made in memory at start
 * with @peculiar/x509 (maintained, WebCrypto-based; installed with @simplewebauthn/server). Sending servers encrypt with a
 * self-signed certificate (opportunistic TLS between mail servers checks no names);
 * a domain that publishes MTA-STS needs a certificate from an authority, in the files.
 */
import { webcrypto } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export interface MailTls {
  cert: string;
  key: string;
  /** files: from the configuration; self-signed: made at start. */
  source: 'files' | 'self-signed';
}

export async function mailTls(config: { mailTlsCert: string | undefined; mailTlsKey: string | undefined }, hostname: string): Promise<MailTls | undefined> {
  if (config.mailTlsCert || config.mailTlsKey) {
    if (!config.mailTlsCert || !config.mailTlsKey) throw new Error('PARLEY_MAIL_TLS_CERT and PARLEY_MAIL_TLS_KEY go together: set both or neither');
    return { cert: await readFile(config.mailTlsCert, 'utf8'), key: await readFile(config.mailTlsKey, 'utf8'), source: 'files' };
  }
  return selfSigned(hostname);
}

/** A self-signed certificate for this host name; undefined (STARTTLS then needs the files) when the generator cannot load. */
export async function selfSigned(hostname: string): Promise<MailTls | undefined> {
  let x509: typeof import('@peculiar/x509');
  try {
    // The generator's dependency injection (tsyringe) needs the Reflect metadata polyfill loaded first.
    await import('reflect-metadata');
    x509 = await import('@peculiar/x509');
  } catch (error) {
    console.warn(`[email] no certificate could be made (${(error as Error).message}); STARTTLS is offered only with PARLEY_MAIL_TLS_CERT and PARLEY_MAIL_TLS_KEY`);
    return undefined;
  }
  const crypto = webcrypto as unknown as Crypto;
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: `CN=${hostname}`,
      keys,
      signingAlgorithm: algorithm,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 365 * 24 * 3600 * 1000),
      extensions: [
        new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: hostname }]),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      ],
    },
    crypto,
  );
  const pkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
  return { cert: certificate.toString('pem'), key, source: 'self-signed' };
}
