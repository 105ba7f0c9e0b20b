/**
 * How operator verbs reach a running popagent: its HTTP API at POPAGENT_URL (default
 * http://127.0.0.1:$PORT), with POPAGENT_API_KEY when the server has one. Failures are thrown as
 * plain operator-facing messages (the server's own message when it sent one).
 */
export function serverApi(env: Record<string, string | undefined>) {
  const base = (env.POPAGENT_URL ?? `http://127.0.0.1:${env.PORT ?? 3000}`).replace(/\/+$/, '')
  const headers: Record<string, string> = env.POPAGENT_API_KEY
    ? { 'x-popagent-key': env.POPAGENT_API_KEY }
    : {}
  async function call(path: string, init: RequestInit = {}): Promise<any> {
    const res = await fetch(`${base}${path}`, {
      ...init,
      headers: { ...headers, ...(init.body && { 'content-type': 'application/json' }) },
    }).catch(() => {
      throw new Error(`cannot reach popagent at ${base}; is it running? (set POPAGENT_URL)`)
    })
    const body = (await res.json().catch(() => undefined)) as any
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
