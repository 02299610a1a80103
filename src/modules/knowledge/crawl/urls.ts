/**
 * Addresses as the crawler writes and compares them, and the rule for what counts
 * as the same site.
 */

/** Query parameters that only track a visit; two addresses differing in them are one page. */
const TRACKING_PARAMS = /^(utm_.*|gclid|gbraid|wbraid|dclid|fbclid|msclkid|yclid|mc_cid|mc_eid|_ga|_gl|_hsenc|_hsmi|igshid|ref_src)$/i;

/** Files a crawl never reads, told from the address so they are not even fetched. */
const NOT_A_PAGE = /\.(pdf|docx?|xlsx?|pptx?|zip|gz|tgz|rar|7z|png|jpe?g|gif|webp|svg|ico|bmp|tiff?|mp[34]|m4a|wav|ogg|webm|mov|avi|css|js|mjs|json|xml|rss|atom|woff2?|ttf|otf|eot|exe|dmg|apk|iso)$/i;

/**
 * How the crawler writes an address: fragment and credentials dropped, host lower case,
 * default port dropped, tracking parameters dropped, the rest sorted. The path is kept
 * as it is: "/docs/" and "/docs" are two addresses (a server may answer only one, and
 * relative links resolve differently against each); only the server makes them one page
 * (a redirect, or <link rel=canonical>). Returns null for anything but an http(s) address.
 */
export function normaliseUrl(raw: string, base?: string | URL): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim(), base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  url.username = '';
  url.password = '';
  // URL already drops a default port for its own scheme and lower-cases the host.
  const kept = [...url.searchParams.entries()].filter(([name]) => !TRACKING_PARAMS.test(name));
  kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  url.search = kept.length > 0 ? new URLSearchParams(kept).toString() : '';
  return url.href;
}

/**
 * The site an address belongs to: its host without a leading "www.", plus the port
 * when it is not the default one. http and https of one host are one site, and so are
 * example.com and www.example.com; other subdomains are other sites.
 */
export function siteOf(url: string | URL): string {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  const host = parsed.hostname.toLowerCase().replace(/^www\./, '');
  return parsed.port ? `${host}:${parsed.port}` : host;
}

export function isOnSite(url: string, site: string): boolean {
  try {
    return siteOf(url) === site;
  } catch {
    return false;
  }
}

/** excludePaths are path prefixes: "/blog" leaves out /blog, /blog/ and /blog/post but not /blogger. */
export function isExcluded(url: string, excludePaths: string[]): boolean {
  const path = new URL(url).pathname;
  return excludePaths.some((prefix) => {
    const clean = `/${prefix.trim().replace(/^\/+/, '').replace(/\/+$/, '')}`;
    if (clean === '/') return true;
    return path === clean || path.startsWith(`${clean}/`);
  });
}

export function looksLikeFile(url: string): boolean {
  return NOT_A_PAGE.test(new URL(url).pathname);
}
