/**
 * A protocol-faithful fake of Slack's Web API on loopback, for the channel tests: it serves
 * `POST /api/chat.postMessage` (and `chat.update` of a message it posted) with a bearer token
 * and JSON, answers `{ ok, channel, ts }` or
 * `{ ok: false, error }`, records every call, and scripts refusals: a 429 with Retry-After (how
 * Slack rate-limits the Web API) or an error such as `not_in_channel`. It also signs Events API
 * requests the way Slack does, so a test can post events to popagent.
 */
import { createHmac } from 'node:crypto'
import { createServer } from 'node:http'
import { closerOf, listenOnLoopback } from './loopback-server.ts'

export type SlackCall = { method: string; token: string; params: any; at: number }
export type SlackRefusal = { status: 429; retryAfter: number } | { status: 200; error: string }

export type FakeSlack = {
  /** The apiBaseUrl to configure. */
  url: string
  calls: SlackCall[]
  refuse(...refusals: SlackRefusal[]): void
  /** The texts a channel shows now, its messages in the order they were posted. */
  shownIn(channel: string): string[]
  close(): Promise<void>
}

/** Slack's request signature: `v0=` and the hex HMAC-SHA256 of `v0:<timestamp>:<body>`. */
export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`
}

export async function startFakeSlack(options: { token: string }): Promise<FakeSlack> {
  const calls: SlackCall[] = []
  const refusals: SlackRefusal[] = []
  let ts = 1_700_000_000
  /** Each posted message's current text, by `<channel>/<ts>`. */
  const messages = new Map<string, string>()
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(JSON.stringify(body))
    }
    const method = /^\/api\/([\w.]+)$/.exec(req.url ?? '')?.[1]
    if (!method) return send(404, { ok: false, error: 'unknown_method' })
    const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '')
    let params: any = {}
    try {
      params = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}')
    } catch {
      return send(200, { ok: false, error: 'invalid_json' })
    }
    calls.push({ method, token, params, at: Date.now() })
    if (token !== options.token) return send(200, { ok: false, error: 'invalid_auth' })
    const refusal = refusals.shift()
    if (refusal?.status === 429) {
      return send(
        429,
        { ok: false, error: 'ratelimited' },
        { 'retry-after': String(refusal.retryAfter) },
      )
    }
    if (refusal) return send(200, { ok: false, error: refusal.error })
    if (method === 'chat.update') {
      // As Slack answers: the updated message's channel, ts and text, or message_not_found.
      const key = `${params.channel}/${params.ts}`
      if (!messages.has(key)) return send(200, { ok: false, error: 'message_not_found' })
      if (typeof params.text !== 'string') return send(200, { ok: false, error: 'no_text' })
      messages.set(key, params.text)
      return send(200, { ok: true, channel: params.channel, ts: params.ts, text: params.text })
    }
    if (method !== 'chat.postMessage') return send(200, { ok: false, error: 'unknown_method' })
    if (!params.channel || typeof params.text !== 'string') {
      return send(200, { ok: false, error: 'no_text' })
    }
    const id = `${++ts}.000100`
    messages.set(`${params.channel}/${id}`, params.text)
    return send(200, { ok: true, channel: params.channel, ts: id })
  })
  const close = closerOf(server)
  const port = await listenOnLoopback(server)
  return {
    url: `http://127.0.0.1:${port}/api`,
    calls,
    refuse: (...list) => void refusals.push(...list),
    shownIn: (channel) =>
      [...messages.entries()].filter(([key]) => key.startsWith(`${channel}/`)).map(([, t]) => t),
    close,
  }
}
