/**
 * The browser's WebAuthn for passkeys: the service's options (JSON, @simplewebauthn/server)
 * into navigator.credentials and the credential back as JSON (PublicKeyCredential.toJSON).
 * Used by My account (the sign-in page has its own few lines).
 */
type JsonCredential = Record<string, unknown>;

export function webAuthnSupported(): boolean {
  const pkc = (globalThis as any).PublicKeyCredential;
  return typeof pkc === 'function' && typeof pkc.parseCreationOptionsFromJSON === 'function' && !!navigator.credentials;
}

/** A new passkey; undefined when the person cancelled. */
export async function createPasskey(options: unknown): Promise<JsonCredential | undefined> {
  const publicKey = (PublicKeyCredential as any).parseCreationOptionsFromJSON(options);
  return ceremony(() => navigator.credentials.create({ publicKey }));
}

async function ceremony(run: () => Promise<Credential | null>): Promise<JsonCredential | undefined> {
  try {
    const credential = (await run()) as (Credential & { toJSON(): JsonCredential }) | null;
    return credential ? credential.toJSON() : undefined;
  } catch (error) {
    // The person closed the browser's prompt (or it timed out): nothing to report.
    if (error instanceof DOMException && (error.name === 'NotAllowedError' || error.name === 'AbortError')) return undefined;
    throw error;
  }
}
