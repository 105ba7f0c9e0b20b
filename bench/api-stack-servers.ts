/**
 * The three servers of the API-stack benchmark, each in its own process so a server never shares
 * a thread with the load generator (or with another server):
 *   node bench/api-stack-servers.ts ours       Hono with our real middleware on @hono/node-server
 *   node bench/api-stack-servers.ts node-http  bare node:http doing the same work by hand
 *   node bench/api-stack-servers.ts fastify    Fastify 5: onRequest auth hook, JSON schemas
 * Each serves `POST /api/bench/echo` with `{ name: string(1..100), count: int }`, answers
 * `{ greeting, doubled }` with an `x-request-id` header and the edge's security headers, and
 * refuses with the same error shape (`{ error: { code, message, data? } }`): 421 for a Host that
 * is not loopback, 403 for a cross-site Origin, 401 without the key, 415 without a JSON content
 * type, 400 on malformed JSON or a bad body, 413 over MAX_BODY_BYTES, JSON 404 elsewhere.
 * Each prints its URL on the first line of stdout and runs until killed.
 */
import { serve } from '@hono/node-server'
import Fastify, { type FastifyError } from 'fastify'
import { Hono } from 'hono'
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto'
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'
import { z } from 'zod'
import type { Db } from '../db/index.ts'
import { parseEdgeConfig } from '../handlers/config.ts'
import type { AppEnv } from '../handlers/env.ts'
import { handleError, handleNotFound } from '../handlers/error-handler.ts'
import { API_KEY_HEADER, apiKeyAuth } from '../handlers/middleware/auth.ts'
import { jsonBodyLimit } from '../handlers/middleware/body-limit.ts'
import { allowedHosts } from '../handlers/middleware/allowed-hosts.ts'
import { requestId } from '../handlers/middleware/request-id.ts'
import { sameOriginWrites } from '../handlers/middleware/same-origin.ts'
import { SECURITY_HEADERS, securityHeaders } from '../handlers/middleware/security-headers.ts'
import { validate } from '../handlers/validate.ts'
import { errorBody } from '../runtime/errors.ts'

export const BENCH_API_KEY = 'bench-api-key-0123456789abcdef'
export const ECHO_PATH = '/api/bench/echo'
const MAX_BODY_BYTES = 1024 * 1024
const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/
const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i

const EchoInput = z.object({ name: z.string().min(1).max(100), count: z.int() })
const answer = (input: { name: string; count: number }) => ({
  greeting: `hello, ${input.name}`,
  doubled: input.count * 2,
})

/**
 * Ours: the edge's middleware order (request id, security headers, Host check, then /api's
 * cross-site check, auth and body limit).
 */
function ours() {
  const config = parseEdgeConfig({
    POPAGENT_API_KEY: BENCH_API_KEY,
    POPAGENT_HOST_TOKEN: 'bench-host-token-0123456789',
    POPAGENT_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
  })
  const echo = new Hono<AppEnv>().post('/echo', validate('json', EchoInput), (c) =>
    c.json(answer(c.req.valid('json'))),
  )
  const api = new Hono<AppEnv>()
    .use(sameOriginWrites, apiKeyAuth, jsonBodyLimit)
    .route('/bench', echo)
  const app = new Hono<AppEnv>()
    .use(async (c, next) => {
      // As entry.node.ts does: the process's config, injected per request.
      c.set('config', config)
      c.set('db', {} as Db)
      c.set('observabilityDb', {} as Db)
      await next()
    })
    .use(requestId, securityHeaders, allowedHosts)
    .route('/api', api)
  app.onError(handleError)
  app.notFound(handleNotFound)
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
    console.log(`http://127.0.0.1:${info.port}`),
  )
  ;(server as Server).keepAliveTimeout = 60_000
}

// The edge's headers, Host allowlist (loopback) and cross-site check, for the by-hand servers.
const RESPONSE_HEADERS: Record<string, string> = {
  ...SECURITY_HEADERS,
  'cache-control': 'no-store',
}
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])
const hostAllowed = (host: string | undefined) =>
  host !== undefined && LOOPBACK.has(host.toLowerCase().replace(/:\d+$/, ''))
const crossSite = (headers: IncomingHttpHeaders) =>
  headers['sec-fetch-site'] === 'cross-site' ||
  (headers.origin !== undefined && headers.origin !== `http://${headers.host}`)
const HOST_REFUSED = errorBody('HOST_NOT_ALLOWED', 'this server does not answer for that name')
const CROSS_SITE = errorBody('CROSS_SITE_REQUEST', 'state-changing requests from another site')

/** Bare node:http: every step the stack does, written out by hand. */
function nodeHttp() {
  const expectedDigest = sha256(BENCH_API_KEY)
  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body)
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    })
    res.end(text)
  }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const given = req.headers['x-request-id']
    res.setHeader(
      'x-request-id',
      typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID(),
    )
    for (const name in RESPONSE_HEADERS) res.setHeader(name, RESPONSE_HEADERS[name]!)
    if (!hostAllowed(req.headers.host)) {
      req.resume()
      return send(res, 421, HOST_REFUSED)
    }
    if (req.method !== 'POST' || req.url !== ECHO_PATH) {
      req.resume()
      return send(res, 404, errorBody('ROUTE_NOT_FOUND', `no route for ${req.method} ${req.url}`))
    }
    if (crossSite(req.headers)) {
      req.resume()
      return send(res, 403, CROSS_SITE)
    }
    const key = req.headers[API_KEY_HEADER]
    if (typeof key !== 'string' || !timingSafeEqual(sha256(key), expectedDigest)) {
      req.resume()
      return send(res, 401, errorBody('UNAUTHORIZED', `missing or wrong ${API_KEY_HEADER} header`))
    }
    if (!JSON_TYPE.test((req.headers['content-type'] ?? '').split(';')[0]!.trim())) {
      req.resume()
      return send(
        res,
        415,
        errorBody('UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json'),
      )
    }
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) {
        return send(res, 413, errorBody('PAYLOAD_TOO_LARGE', 'request body is too large'))
      }
      let body: unknown
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        return send(res, 400, errorBody('BAD_REQUEST', 'Malformed JSON in request body'))
      }
      const fields = checkEcho(body)
      if (fields) return send(res, 400, errorBody('VALIDATION_FAILED', 'invalid json', { fields }))
      send(res, 200, answer(body as { name: string; count: number }))
    })
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1', () =>
    console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
  )
}

/** The echo schema by hand: field errors keyed by path, or undefined when the body is fine. */
function checkEcho(body: unknown): Record<string, string[]> | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { '(root)': ['expected an object'] }
  }
  const { name, count } = body as Record<string, unknown>
  const fields: Record<string, string[]> = {}
  if (typeof name !== 'string') fields.name = ['expected a string']
  else if (name.length < 1 || name.length > 100) fields.name = ['expected 1 to 100 characters']
  if (typeof count !== 'number' || !Number.isSafeInteger(count)) fields.count = ['expected an int']
  return Object.keys(fields).length ? fields : undefined
}

const sha256 = (value: string) => createHash('sha256').update(value).digest()

/** Fastify as its documentation suggests: a hook for auth, JSON schemas for input and output. */
async function fastify() {
  const expectedDigest = sha256(BENCH_API_KEY)
  const app = Fastify({
    bodyLimit: MAX_BODY_BYTES,
    keepAliveTimeout: 60_000,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID()
    },
    // Reject rather than coerce ("5" is not an int) and report every field's errors, as zod and
    // the hand-written check do.
    ajv: { customOptions: { coerceTypes: false, allErrors: true } },
  })
  // A text body is refused (415), not validated as a string.
  app.removeContentTypeParser('text/plain')
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id)
    reply.headers(RESPONSE_HEADERS)
    if (!hostAllowed(req.headers.host)) return reply.code(421).send(HOST_REFUSED)
    if (!req.url.startsWith('/api/')) return
    if (req.method === 'POST' && crossSite(req.headers)) return reply.code(403).send(CROSS_SITE)
    const key = req.headers[API_KEY_HEADER]
    if (typeof key !== 'string' || !timingSafeEqual(sha256(key), expectedDigest)) {
      return reply
        .code(401)
        .send(errorBody('UNAUTHORIZED', `missing or wrong ${API_KEY_HEADER} header`))
    }
  })
  app.setErrorHandler((error: FastifyError, _req, reply) => {
    if (error.validation) {
      const fields: Record<string, string[]> = {}
      for (const issue of error.validation) {
        const path =
          issue.instancePath.slice(1).replaceAll('/', '.') ||
          (issue.params as { missingProperty?: string }).missingProperty ||
          '(root)'
        ;(fields[path] ??= []).push(issue.message ?? 'invalid')
      }
      return reply.code(400).send(errorBody('VALIDATION_FAILED', 'invalid json', { fields }))
    }
    const status = error.statusCode ?? 500
    const code =
      status === 415
        ? 'UNSUPPORTED_MEDIA_TYPE'
        : status === 413
          ? 'PAYLOAD_TOO_LARGE'
          : status < 500
            ? 'BAD_REQUEST'
            : 'INTERNAL'
    return reply.code(status).send(errorBody(code, status < 500 ? error.message : 'internal error'))
  })
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send(errorBody('ROUTE_NOT_FOUND', `no route for ${req.method} ${req.url}`)),
  )
  app.post(
    ECHO_PATH,
    {
      schema: {
        body: {
          type: 'object',
          required: ['name', 'count'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 100 },
            count: { type: 'integer' },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: { greeting: { type: 'string' }, doubled: { type: 'integer' } },
          },
        },
      },
    },
    async (req) => answer(req.body as { name: string; count: number }),
  )
  console.log(await app.listen({ port: 0, host: '127.0.0.1' }))
}

if (import.meta.main) {
  process.on('SIGTERM', () => process.exit(0))
  const role = process.argv[2]
  if (role === 'ours') ours()
  else if (role === 'node-http') nodeHttp()
  else if (role === 'fastify') await fastify()
  else throw new Error('usage: api-stack-servers.ts ours | node-http | fastify')
}
