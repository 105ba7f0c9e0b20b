import { hc } from 'hono/client'
import { DEFAULT_DATA_DIR } from '../compute-host/env.ts'
import type { AppType } from '../handlers/app.ts'
import type { ErrorBody } from '../runtime/errors.ts'
import { withoutEmptyValues } from '../runtime/env-values.ts'
import { isLoopbackAddress } from '../handlers/host-allowlist.ts'
import { readApiKeyFile } from './api-key-file.ts'

/** The body type of a route's success answers (200/201), as `hc<AppType>` declares them. */
export type Success<R> = R extends { status: 200 | 201; json(): Promise<infer T> } ? T : never

type AnyResponse = { ok: boolean; status: number; json(): Promise<unknown> }

/**
 * How operator verbs reach a running popagent: the same typed client as the UI (`hc<AppType>`,
 * ui/src/api.ts), so a route whose input or answer changes breaks the CLI at type-check time
 * rather than at an operator's prompt. It calls POPAGENT_URL (default http://127.0.0.1:$PORT)
 * with the API key: POPAGENT_API_KEY, else the key file in the data directory
 * (POPAGENT_DATA_DIR) that `popagent start` generated. `ok()` turns every failure into a plain
 * operator-facing message (the server's own message when it sent one).
 */
export function serverApi(raw: Record<string, string | undefined>) {
  const env = withoutEmptyValues(raw)
  const base = (env.POPAGENT_URL ?? `http://127.0.0.1:${env.PORT ?? 3000}`).replace(/\/+$/, '')
  const dataDir = env.POPAGENT_DATA_DIR ?? DEFAULT_DATA_DIR
  // Read once, on the first request: a verb that fails its usage check never touches the file.
  // The local key file belongs to the local server: it is never sent to another host.
  const local = isLoopbackAddress(new URL(base).hostname)
  let key: Promise<string | undefined> | undefined
  const apiKey = () =>
    (key ??= env.POPAGENT_API_KEY
      ? Promise.resolve(env.POPAGENT_API_KEY)
      : local
        ? readApiKeyFile(dataDir)
        : Promise.resolve(undefined))

  const client = hc<AppType>(base, {
    headers: async (): Promise<Record<string, string>> => {
      const value = await apiKey()
      return value ? { 'x-popagent-key': value } : {}
    },
    // Only the network failure is rewritten here; a refused key file keeps its own message.
    fetch: (input: RequestInfo | URL, init?: RequestInit) =>
      fetch(input, init).catch(() => {
        throw new Error(`cannot reach popagent at ${base}; is it running? (set POPAGENT_URL)`)
      }),
  })

  /** The JSON body of a successful answer, or an Error that says what to do about the failure. */
  async function ok<R extends AnyResponse>(response: Promise<R>): Promise<Success<R>> {
    const res = await response
    if (res.ok) return (await res.json()) as Success<R>
    if (res.status === 401) {
      const tried = (await apiKey())
        ? 'refused the API key'
        : local
          ? `needs an API key (no ${dataDir}/api-key)`
          : 'needs an API key (the local key file is sent only to a loopback POPAGENT_URL)'
      throw new Error(
        `popagent at ${base} ${tried}: set POPAGENT_API_KEY, or POPAGENT_DATA_DIR to the server's data directory, whose api-key file holds the key`,
      )
    }
    const body = (await res.json().catch(() => undefined)) as Partial<ErrorBody> | undefined
    throw new Error(body?.error?.message ?? `popagent answered ${res.status}`)
  }

  return { base, api: client.api, ok }
}
