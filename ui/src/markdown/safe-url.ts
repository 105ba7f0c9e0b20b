/**
 * Which link destinations in a model's reply may become clickable. A reply is untrusted text (a
 * page the agent read can steer it), so only web and mail links open; `javascript:`, `data:`,
 * `vbscript:`, `file:` and relative links are shown as inert text instead.
 */

const CLICKABLE = new Set(['http:', 'https:', 'mailto:'])

/**
 * The normalized URL when it is absolute and http(s) or mailto, otherwise undefined. The URL
 * parser does the normalizing the browser itself would do (tabs and newlines inside the scheme
 * dropped, case folded), so `java\tscript:` or `JAVASCRIPT:` cannot slip past the check.
 */
export function clickableHref(raw: string): string | undefined {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    return undefined
  }
  return CLICKABLE.has(url.protocol) ? url.href : undefined
}

/** An image is never loaded from a reply (a tracking pixel would report the reader); only its web address may be opened on a click. */
export function imageLinkHref(raw: string): string | undefined {
  const href = clickableHref(raw)
  return href && !href.startsWith('mailto:') ? href : undefined
}
