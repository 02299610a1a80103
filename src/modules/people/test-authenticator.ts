/**
 * A software authenticator for the passkey tests (not loaded by the service): an ES256
 * key pair from node:crypto, authenticator data and a `none` attestation written by hand
 * with a small CBOR encoder, as WebAuthn (level 2) lays them out and as
 * @simplewebauthn/server reads them.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor> | { [key: string]: Cbor };

/** The few CBOR types a credential needs: integers, byte and text strings, maps. */
export function cbor(value: Cbor): Buffer {
  const head = (major: number, length: number): Buffer => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
    if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(length, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const entries: Array<[Cbor, Cbor]> = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest();

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const FLAG_ATTESTED_DATA = 0x40;

/** One credential on a software authenticator: what a browser's passkey would hold. */
export class SoftPasskey {
  readonly credentialId = randomBytes(32);
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private counter = 0;
  userHandle: string | undefined;
  /** false: an authenticator that only tests presence (the UV flag unset), as a bare security key does. */
  verifiesUser = true;

  /** keepsCounter: false is an authenticator that always reports 0 (as many synced passkeys do). */
  private readonly keepsCounter: boolean;

  constructor(keepsCounter = true) {
    this.keepsCounter = keepsCounter;
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private cosePublicKey(): Buffer {
    const jwk = this.publicKey.export({ format: 'jwk' });
    // kty EC2, alg ES256, crv P-256, x, y.
    return cbor(new Map<Cbor, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]));
  }

  private authenticatorData(rpId: string, attested: boolean): Buffer {
    const count = Buffer.alloc(4);
    if (this.keepsCounter) count.writeUInt32BE(++this.counter);
    const flags = FLAG_USER_PRESENT | (this.verifiesUser ? FLAG_USER_VERIFIED : 0) | (attested ? FLAG_ATTESTED_DATA : 0);
    const parts: Buffer[] = [sha256(rpId), Buffer.from([flags]), count];
    if (attested) {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(this.credentialId.length);
      parts.push(Buffer.alloc(16), length, this.credentialId, this.cosePublicKey());
    }
    return Buffer.concat(parts);
  }

  /** navigator.credentials.create()'s answer to registration options, as PublicKeyCredential.toJSON() gives it. */
  register(options: { challenge: string; rp: { id?: string }; user: { id: string } }, origin: string, rpId = options.rp.id!): Record<string, unknown> {
    this.userHandle = options.user.id;
    const clientDataJSON = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false });
    const attestationObject = cbor({ fmt: 'none', attStmt: {}, authData: this.authenticatorData(rpId, true) });
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get()'s answer to sign-in options. */
  assert(options: { challenge: string; rpId?: string }, origin: string, rpId = options.rpId!): Record<string, unknown> {
    const clientDataJSON = JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false });
    const authenticatorData = this.authenticatorData(rpId, false);
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authenticatorData), signature: b64url(signature), userHandle: this.userHandle },
      clientExtensionResults: {},
    };
  }
}
