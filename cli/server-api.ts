import { DEFAULT_DATA_DIR } from '../compute-host/env.ts'
import { withoutEmptyValues } from '../runtime/env-values.ts'
import { readApiKeyFile } from './api-key-file.ts'

/**
 * How operator verbs reach a running popagent: its HTTP API at POPAGENT_URL (default
 * http://127.0.0.1:$PORT), with its API key: POPAGENT_API_KEY, else the key file in the data
 * directory (POPAGENT_DATA_DIR) that `popagent start` generated. Failures are thrown as plain
 * operator-facing messages (the server's own message when it sent one).
 */
export function serverApi(raw: Record<string, string | undefined>) {
  const env = withoutEmptyValues(raw)
  const base = (env.POPAGENT_URL ?? `http://127.0.0.1:${env.PORT ?? 3000}`).replace(/\/+$/, '')
  const dataDir = env.POPAGENT_DATA_DIR ?? DEFAULT_DATA_DIR
  let key: Promise<string | undefined> | undefined
  async function call(path: string, init: RequestInit = {}): Promise<any> {
    const apiKey = await (key ??= env.POPAGENT_API_KEY
      ? Promise.resolve(env.POPAGENT_API_KEY)
      : readApiKeyFile(dataDir))
    const res = await fetch(`${base}${path}`, {
      ...init,
      headers: {
        ...(apiKey && { 'x-popagent-key': apiKey }),
        ...(init.body && { 'content-type': 'application/json' }),
      },
    }).catch(() => {
      throw new Error(`cannot reach popagent at ${base}; is it running? (set POPAGENT_URL)`)
    })
    const body = (await res.json().catch(() => undefined)) as any
    if (res.status === 401) {
      const tried = apiKey ? 'refused the API key' : `needs an API key (no ${dataDir}/api-key)`
      throw new Error(
        `popagent at ${base} ${tried}: set POPAGENT_API_KEY, or POPAGENT_DATA_DIR to the server's data directory, whose api-key file holds the key`,
      )
    }
    if (!res.ok) throw new Error(body?.error?.message ?? `popagent answered ${res.status}`)
    return body
  }
  return {
    base,
    get: (path: string) => call(path),
    post: (path: string, body: unknown) =>
      call(path, { method: 'POST', body: JSON.stringify(body) }),
  }
}
