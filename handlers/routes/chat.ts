import { Hono } from 'hono'
import { ChatRequest } from '../../runtime/contracts/chat.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

// The stream headers the host sets and the client needs; everything else stays behind.
const PASSED_HEADERS = ['content-type', 'cache-control', 'x-vercel-ai-ui-message-stream']

/**
 * Starts a chat turn on the compute host and streams its UI-message stream back unchanged. The
 * client's connection signal travels with the request, so closing the page aborts the run at
 * the host and the gateway. Session checks (missing, archived, other workspace) and the model
 * check (UNKNOWN_MODEL, against the catalog the host holds) happen at the host, whose JSON errors
 * pass through with their status.
 */
export const chat = new Hono<AppEnv>().post('/', validate('json', ChatRequest), async (c) => {
  const body = c.req.valid('json')
  const upstream = await c.var.host.chat(body, { signal: c.req.raw.signal })
  const headers = new Headers()
  for (const name of PASSED_HEADERS) {
    const value = upstream.headers.get(name)
    if (value) headers.set(name, value)
  }
  return new Response(upstream.body, { status: upstream.status, headers })
})
