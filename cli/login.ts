import type { ApiKey } from './api-key-file.ts'

/**
 * The lines `popagent start` prints after "running at": how to sign the UI in. The key rides in
 * the URL fragment (`#key=`), which browsers never send to a server or put in a Referer, and which
 * the UI reads once and removes from the address bar (ui/src/auth.ts). Printed to stdout only,
 * never through the host logger, and only to a terminal: under a service manager or a pipe stdout
 * is a journal or a file, where a link would keep the key, so there only the key file's path is
 * shown, on the first start too.
 */
export function loginLines(options: { url: string; apiKey: ApiKey; terminal: boolean }): string[] {
  const { url, apiKey, terminal } = options
  if (apiKey.source === 'env') return ['sign in with the key in POPAGENT_API_KEY']
  const { path, created } = apiKey.source
  const where = `${created ? 'generated an API key: ' : ''}the API key is in ${path}`
  if (!terminal) return [`${where}; open ${url}/ and enter it`]
  return [where, `sign in: ${loginUrl(url, apiKey.key)}`]
}

export function loginUrl(url: string, key: string): string {
  return `${url.replace(/\/+$/, '')}/#key=${encodeURIComponent(key)}`
}

/**
 * The address a browser on this machine uses: a wildcard bind is reached through 127.0.0.1,
 * which the edge answers for (a request to 0.0.0.0 would carry a Host it refuses).
 */
export function browserUrl(edgeUrl: string): string {
  const url = new URL(edgeUrl)
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = '127.0.0.1'
  return url.origin
}
