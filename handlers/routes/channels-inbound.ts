import { Hono, type MiddlewareHandler } from 'hono'
import * as Channels from '../../runtime/channels/index.ts'
import { InboundParams, MAX_INBOUND_BYTES } from '../../runtime/contracts/channels.ts'
import { errorBody } from '../../runtime/errors.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

/** The headers a channel verifies or reads; nothing else goes to the host. */
const PASSED = /^(webhook-|x-telegram-bot-api-|x-slack-|content-type$)/

/**
 * `POST /api/channels/:id/inbound`: where a channel's service posts events. This is the one /api
 * route the owner's API key does not guard, because the sender is not the owner: it is
 * authenticated by the channel's own proof instead (the signed webhook's HMAC, Telegram's secret
 * token, Slack's signing secret), which the compute host checks on the body's exact bytes with
 * the secrets its vault holds, before anything parses them. Mounted on the app ahead of /api's
 * key check (handlers/app.ts); every other channel route is the owner's (channels.ts).
 *
 * The body is bounded (1 MiB, 413) as it is read; an unknown or disabled channel and a failed
 * proof are the same 401, so a prober learns nothing. Accepted: `202 { eventId, duplicate }`
 * (a redelivery is `duplicate: true` and runs nothing) for the signed webhook and Telegram (which
 * needs only a 2xx); an empty 200 for Slack, whose interactivity wants exactly that; or Slack's
 * URL challenge answered.
 */
export const channelInbound = (
  sameOriginWrites: MiddlewareHandler<AppEnv>,
  hostClient: MiddlewareHandler<AppEnv>,
) =>
  new Hono<AppEnv>().post(
    '/:id/inbound',
    // A channel's service posts from a server, with no Origin; a browser's cross-site post is
    // refused (403) as on every other write, before any channel is looked up.
    sameOriginWrites,
    // The host client, which /api's middleware would otherwise have set.
    hostClient,
    validate('param', InboundParams),
    async (c) => {
      const { id } = c.req.valid('param')
      const tooLarge = () =>
        c.json(
          errorBody('PAYLOAD_TOO_LARGE', `an event body is at most ${MAX_INBOUND_BYTES} bytes`),
          413,
        )
      const declared = Number(c.req.header('content-length') ?? 0)
      if (declared > MAX_INBOUND_BYTES) return tooLarge()
      const body = await readBounded(c.req.raw.body, MAX_INBOUND_BYTES)
      if (!body) return tooLarge()
      const unauthorized = () =>
        c.json(errorBody('UNAUTHORIZED', 'the event is not signed by this channel'), 401)
      const kind = await Channels.acceptsEvents(c.var.db, id)
      if (!kind) return unauthorized()
      const headers: Record<string, string> = {}
      c.req.raw.headers.forEach((value, name) => {
        if (PASSED.test(name)) headers[name] = value
      })
      const answer = await c.var.host.channelInbound({ id, headers, body: toBase64(body) })
      if (!answer.verified) return unauthorized()
      if (answer.challenge !== undefined) return c.json({ challenge: answer.challenge }, 200)
      // Slack asks for a 200 acknowledging an interaction payload (a button press), and a body
      // there may be read as a response (a view's response_action): an empty 200 for each Slack
      // event. Its Events API takes any 2xx, so messages are answered the same way.
      if (kind === 'slack') return c.body(null, 200)
      return c.json({ eventId: answer.eventId, duplicate: answer.duplicate }, 202)
    },
  )

/** The body's bytes, or undefined once it passes `max` (counted as it streams). */
async function readBounded(
  stream: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<Uint8Array | undefined> {
  if (!stream) return new Uint8Array()
  const parts: Uint8Array[] = []
  let size = 0
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > max) {
      await reader.cancel()
      return undefined
    }
    parts.push(value)
  }
  const body = new Uint8Array(size)
  let at = 0
  for (const part of parts) {
    body.set(part, at)
    at += part.byteLength
  }
  return body
}

/** Base64 without Node's Buffer (the edge also runs on Workers). */
function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  }
  return btoa(binary)
}
