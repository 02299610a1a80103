/**
 * Which addresses an outbound request may reach (src/platform/safe-fetch.ts), without the HTTP client itself:
 * checking an address loads no undici (docs/performance.md, Memory).
 */
import dns from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { describeError, SafeFetchError } from './safe-fetch-error.ts';

/** Ranges PARLEY_ALLOW_PRIVATE_URLS opens up; link-local (cloud metadata) and the rest stay closed. */
const PRIVATE_RANGES = new Set<string>(['private', 'loopback', 'uniqueLocal']);

export function parseUrl(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new SafeFetchError('invalid_url', `not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SafeFetchError('invalid_url', `only http and https URLs can be fetched: ${url.protocol}`);
  }
  return url;
}

/** Throws unsafe_url or invalid_url when the address could never be fetched (literal private address, name resolving to one, scheme not http/https). */
export async function checkUrl(url: string, allowPrivate: boolean): Promise<void> {
  await checkedAddresses(parseUrl(url), allowPrivate);
}

function isAllowedAddress(address: string, allowPrivate: boolean): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() turns ::ffff:a.b.c.d into a.b.c.d so mapped addresses get the IPv4 verdict.
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === 'unicast' && isIPv4Compatible(parsed)) return false;
  return range === 'unicast' || (allowPrivate && PRIVATE_RANGES.has(range));
}

const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * ::a.b.c.d (IPv4-compatible, deprecated) is "unicast" to ipaddr.js, yet a system with
 * the automatic tunnel (sit0) sends it to a.b.c.d, whatever that is: no receiver needs
 * one, so it is refused even where private addresses are allowed (local tests).
 */
function isIPv4Compatible(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).match(IPV4_COMPATIBLE);
}

/** Every address the host stands for, all of them checked; throws when any one is refused. */
export async function safeAddresses(hostname: string, allowPrivate: boolean): Promise<string[]> {
  const addresses = await resolve(hostname);
  const refused = addresses.find((address) => !isAllowedAddress(address, allowPrivate));
  if (refused !== undefined) {
    throw new SafeFetchError('unsafe_url', `${hostname} is not a public address (${refused})`);
  }
  return addresses;
}

/**
 * The addresses a connection other than HTTP (an IMAP mailbox) may use for this host,
 * under the same rules as every fetch: public addresses only, loopback and private
 * ones too under PARLEY_ALLOW_PRIVATE_URLS. Connect to the first, not to the name, so
 * DNS cannot answer differently in between. Throws SafeFetchError unsafe_url or network.
 */
export function guardedAddresses(hostname: string, allowPrivate: boolean): Promise<string[]> {
  return safeAddresses(hostname.replace(/^\[(.*)\]$/, '$1'), allowPrivate);
}

/**
 * Whether the address names a loopback or private host: a literal address in those
 * ranges, or a name that resolves only there. PARLEY_ALLOW_PRIVATE_URLS relaxes the
 * rules meant for the public internet (https, no port) for such hosts alone.
 */
export async function namesPrivateHost(url: URL): Promise<boolean> {
  let addresses: string[];
  try {
    addresses = await resolve(url.hostname.replace(/^\[(.*)\]$/, '$1'));
  } catch {
    return false;
  }
  return addresses.length > 0 && addresses.every((address) => ipaddr.isValid(address) && PRIVATE_RANGES.has(ipaddr.process(address).range()));
}

export function checkedAddresses(url: URL, allowPrivate: boolean): Promise<string[]> {
  return safeAddresses(url.hostname.replace(/^\[(.*)\]$/, '$1'), allowPrivate);
}

async function resolve(hostname: string): Promise<string[]> {
  if (isIP(hostname)) return [hostname];
  try {
    // Called through the module object (not a named import) so tests can stand in for DNS.
    const found = await dns.promises.lookup(hostname, { all: true });
    return found.map((entry) => entry.address);
  } catch (error) {
    throw new SafeFetchError('network', `could not resolve ${hostname}: ${describeError(error)}`);
  }
}
