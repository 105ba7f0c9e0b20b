/**
 * A receiver for the signed webhook channel's outbound messages, on loopback: it checks each
 * request's Standard Webhooks signature (`webhook-signature: v1,<base64 HMAC-SHA256 of
 * id.timestamp.body>`) with the secret it was given, independently of popagent's code, records
 * what arrived, and answers with the statuses a test scripts (a 429 with Retry-After, a 503).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'
import { closerOf, listenOnLoopback } from './loopback-server.ts'

export type Received = {
  id: string
  timestamp: number
  verified: boolean
  body: { type: string; conversation: string; thread: string; text: string }
  at: number
}

export type WebhookReceiver = {
  url: string
  received: Received[]
  /** The next requests are answered with these statuses (and headers), in order. */
  answer(...replies: { status: number; headers?: Record<string, string> }[]): void
  /** Every answer from now on waits this long after the request is recorded (a slow service). */
  hold(ms: number): void
  close(): Promise<void>
}

export function signStandardWebhook(secret: string, id: string, timestamp: number, body: string) {
  return `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}

export async function startWebhookReceiver(
  secret: string,
  options: {
    /** Called as each accepted request is recorded (the channel bench times arrivals by it). */
    onReceived?: (received: Received) => void
  } = {},
): Promise<WebhookReceiver> {
  const received: Received[] = []
  const replies: { status: number; headers?: Record<string, string> }[] = []
  let holdMs = 0
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const id = String(req.headers['webhook-id'] ?? '')
    const timestamp = Number(req.headers['webhook-timestamp'] ?? 0)
    const expected = Buffer.from(signStandardWebhook(secret, id, timestamp, body))
    const given = Buffer.from(String(req.headers['webhook-signature'] ?? ''))
    const verified = given.length === expected.length && timingSafeEqual(given, expected)
    const reply = replies.shift()
    if (!reply || reply.status < 300) {
      const record = { id, timestamp, verified, body: JSON.parse(body), at: Date.now() }
      received.push(record)
      options.onReceived?.(record)
    }
    if (holdMs > 0) await new Promise((r) => setTimeout(r, holdMs))
    res.writeHead(reply?.status ?? (verified ? 200 : 401), reply?.headers ?? {})
    res.end()
  })
  const close = closerOf(server)
  const port = await listenOnLoopback(server)
  return {
    url: `http://127.0.0.1:${port}/hooks/popagent`,
    received,
    answer: (...list) => void replies.push(...list),
    hold: (ms) => void (holdMs = ms),
    close,
  }
}
