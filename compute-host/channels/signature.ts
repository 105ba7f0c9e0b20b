import { createHmac } from 'node:crypto'
import { secretsEqual } from '../../runtime/constant-time.ts'

/**
 * Signatures of the signed webhook channel, both ways (the Standard Webhooks scheme):
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, the key being the
 * secret's UTF-8 bytes. Several space-separated signatures may be sent (a sender rotating its
 * secret signs with both); a request passes when any matches any of the channel's secrets. Every
 * comparison is constant-time (runtime/constant-time.ts), and all of them are made.
 */
export const TIMESTAMP_WINDOW_S = 300

export function signWebhook(secret: string, id: string, timestamp: number, body: Uint8Array) {
  const mac = createHmac('sha256', secret)
  mac.update(`${id}.${timestamp}.`)
  mac.update(body)
  return `v1,${mac.digest('base64')}`
}

export function verifyWebhook(
  secrets: readonly string[],
  headers: Record<string, string>,
  body: Uint8Array,
  nowMs: number,
): { ok: true } | { ok: false; reason: string } {
  const id = headers['webhook-id']
  const timestamp = headers['webhook-timestamp']
  const given = headers['webhook-signature']
  if (!id || !timestamp || !given) return { ok: false, reason: 'missing webhook-* headers' }
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'malformed timestamp' }
  const seconds = Number(timestamp)
  if (Math.abs(nowMs / 1000 - seconds) > TIMESTAMP_WINDOW_S) {
    return { ok: false, reason: 'timestamp outside the window' }
  }
  const offered = given.split(' ').filter((s) => s.startsWith('v1,'))
  let matched = false
  for (const secret of secrets) {
    const expected = signWebhook(secret, id, seconds, body)
    for (const signature of offered) if (secretsEqual(signature, expected)) matched = true
  }
  return matched ? { ok: true } : { ok: false, reason: 'no signature matches' }
}
