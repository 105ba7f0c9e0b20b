/**
 * The bad requests for one route, by category: schema-derived bodies and queries
 * (schema-inputs.ts), then what no schema describes — malformed and empty JSON, wrong content
 * types, raw invalid UTF-8, 10,000-deep nesting, bodies over the limit, hostile path
 * parameters and query strings.
 */
import type { RawRequest } from './raw-http.ts'
import type { Route } from './routes.ts'
import { fillPath } from './routes.ts'
import { jsonSchemaOf, schemaMutations, validBase, type Known } from './schema-inputs.ts'

export const CATEGORIES = [
  'schema',
  'query',
  'param',
  'malformed',
  'content-type',
  'bytes',
  'nested',
  'oversized',
] as const
export type Category = (typeof CATEGORIES)[number]

export type Case = { route: string; category: Category; label: string; request: RawRequest }

export type CaseOptions = {
  /** Headers every request carries (the API key or host token). */
  auth: Record<string, string>
  /** Valid values for path parameters (ids of rows that exist). */
  params: Record<string, string>
  maxBodyBytes: number
  /** Valid values the generated bodies start from (schema-inputs.ts `validBase`). */
  known?: Known
}

export const DEPTH = 10_000
const deepArray = () => '['.repeat(DEPTH) + ']'.repeat(DEPTH)
const deepObject = () => '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH)

/** Percent-encodes the UTF-8 bytes of any string (encodeURIComponent throws on lone surrogates). */
export const encodeBytes = (s: string) =>
  [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')

/** Path parameter values that must never reach a handler as-is, exactly as sent on the wire. */
export const BAD_PARAMS: [string, string][] = [
  ['very long', 'x'.repeat(4_000)],
  ['dot dot', '..'],
  ['encoded dot dot', '%2e%2e'],
  ['traversal', '..%2f..%2f..%2fetc%2fpasswd'],
  ['encoded NUL', '%00'],
  ['NUL inside', 'ses_0000%0000000000000000000000000'],
  ['lone percent', '%'],
  ['bad escape', '%zz'],
  ['emoji', '%F0%9F%98%80'],
  ['encoded lone surrogate', '%ED%A0%80'],
  ['overlong slash', '%C0%AF'],
  ['invalid byte', '%FF%FE'],
  ['RTL override', '%E2%80%AE'],
  ['space', '%20'],
  ['CRLF', 'ses_x%0d%0aX-Injected:%201'],
  ['lowercase id body', 'ses_00000000000000000000000000'.toLowerCase().replace('ses_0', 'ses_a')],
  ['wrong prefix', 'tsk_00000000000000000000000000'],
  ['SQL-ish', "'%20or%201=1--"],
  ['unicode letters', encodeBytes('sés_ünï')],
]

/** Query strings every route gets, whether or not it reads a query. */
export const BAD_QUERIES: [string, string][] = [
  ['lone percent', '?%'],
  ['truncated escape', '?a=%E0%A4%A'],
  ['encoded NUL', '?a=%00'],
  ['lone surrogate', '?a=%ED%A0%80'],
  ['overlong', '?a=%C0%AF'],
  ['prototype keys', '?__proto__[x]=1&constructor[prototype][y]=2'],
  ['repeated key', '?a=1&a=2&a=3'],
  ['empty key', '?=1&&=&'],
  ['long value', `?a=${'x'.repeat(6_000)}`],
  ['many keys', `?${Array.from({ length: 500 }, (_, i) => `k${i}=${i}`).join('&')}`],
]

export function casesFor(route: Route, o: CaseOptions): Case[] {
  const name = `${route.method} ${route.path}`
  const path = fillPath(route.path, o.params)
  const out: Case[] = []
  const add = (category: Category, label: string, request: Omit<RawRequest, 'method'>) =>
    out.push({
      route: name,
      category,
      label,
      request: { method: route.method, ...request, headers: { ...o.auth, ...request.headers } },
    })
  const json = (body: string | Buffer, extra: Record<string, string> = {}) => ({
    path,
    headers: { 'content-type': 'application/json', ...extra },
    body,
  })

  const bodySchema = route.inputs.json
  if (bodySchema) {
    for (const m of schemaMutations(bodySchema, o.known))
      add('schema', m.label, json(JSON.stringify(m.value)))
    const base = validBase(bodySchema, jsonSchemaOf(bodySchema), o.known)
    const baseText = JSON.stringify(base)
    for (const [label, text] of MALFORMED) add('malformed', label, json(text))
    add('malformed', 'no body', { path, headers: { 'content-type': 'application/json' } })
    for (const [label, type, body] of contentTypes(baseText)) {
      add('content-type', label, { path, headers: type ? { 'content-type': type } : {}, body })
    }
    for (const [label, bytes] of RAW_BYTES) add('bytes', label, json(withRawString(base, bytes)))
    add('nested', `root array ${DEPTH} deep`, json(deepArray()))
    add('nested', `root object ${DEPTH} deep`, json(deepObject()))
    for (const key of typeof base === 'object' && base ? Object.keys(base) : []) {
      add('nested', `${key} ${DEPTH} deep`, json(replaceMarker(base, [key], deepObject())))
    }
    for (const spot of looseSpots(base)) {
      const at = [...spot, 'deep']
      add('nested', `${at.join('.')} ${DEPTH} deep`, json(replaceMarker(base, at, deepObject())))
    }
  }
  // Any method may carry a body; the limit applies to all of /api, not only JSON routes.
  const over = o.maxBodyBytes + 1
  add('oversized', `limit + 1 bytes`, json(padded(over)))
  add('oversized', `limit + 1 bytes, chunked`, { ...json(padded(over)), chunked: true })
  add('oversized', `10 MB`, json(padded(10 * 1024 * 1024)))

  const querySchema = route.inputs.query
  if (querySchema) {
    const js = jsonSchemaOf(querySchema)
    for (const [key] of Object.entries(js.properties ?? {})) {
      for (const [label, value] of QUERY_VALUES) {
        add('query', `${key}: ${label}`, { path: `${path}?${key}=${value}` })
      }
      add('query', `${key} repeated`, { path: `${path}?${key}=1&${key}=2` })
      add('query', `${key} as array syntax`, { path: `${path}?${key}[]=1&${key}[a]=2` })
    }
    add('query', 'unknown key', { path: `${path}?unexpectedKey=1` })
  }
  for (const [label, query] of BAD_QUERIES)
    add('query', `generic ${label}`, { path: `${path}${query}` })

  for (const param of route.path.match(/:(\w+)/g) ?? []) {
    const key = param.slice(1)
    for (const [label, value] of BAD_PARAMS) {
      const bad = fillPath(route.path, { ...o.params, [key]: value })
      add('param', `${key}: ${label}`, bodySchema ? { ...json('{}'), path: bad } : { path: bad })
    }
  }
  return out
}

const MALFORMED: [string, string][] = [
  ['unterminated object', '{'],
  ['unterminated string', '{"a":"'],
  ['single quotes', "{'a':1}"],
  ['trailing comma', '{"a":1,}'],
  ['comments', '{/* c */"a":1}'],
  ['NaN', '{"a":NaN}'],
  ['undefined', 'undefined'],
  ['BOM before object', '\ufeff{}'],
  ['two documents', '{}{}'],
  ['raw control character in string', '{"a":"\u0001"}'],
  ['bad escape', '{"a":"\\x41"}'],
  ['escaped lone surrogate', '{"a":"\\ud800"}'],
  ['escaped NUL', '{"a":"\\u0000"}'],
  ['huge exponent', '{"a":1e999999}'],
  ['duplicate keys', '{"a":1,"a":2}'],
  ['only whitespace', ' \n\t '],
  ['JSON null', 'null'],
]

const contentTypes = (body: string): [string, string | undefined, string][] => [
  ['text/plain', 'text/plain', body],
  ['form', 'application/x-www-form-urlencoded', 'a=1&b=2'],
  [
    'multipart',
    'multipart/form-data; boundary=xyz',
    `--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--xyz--\r\n`,
  ],
  ['no content type', undefined, body],
  ['json with utf-16 charset', 'application/json; charset=utf-16', body],
  ['json suffix type', 'application/merge-patch+json', body],
  ['upper-case json', 'APPLICATION/JSON', body],
  ['garbage parameters', 'application/json;;;=;', body],
  ['octet stream', 'application/octet-stream', body],
]

/** Byte sequences that are not valid UTF-8, or are only valid as escapes. */
const RAW_BYTES: [string, Buffer][] = [
  ['overlong slash', Buffer.from([0xc0, 0xaf])],
  ['invalid bytes', Buffer.from([0xff, 0xfe])],
  ['truncated sequence', Buffer.from([0xe2, 0x82])],
  ['CESU surrogate', Buffer.from([0xed, 0xa0, 0x80])],
  ['raw NUL byte', Buffer.from([0x00])],
  ['4-byte beyond U+10FFFF', Buffer.from([0xf4, 0x90, 0x80, 0x80])],
]

const QUERY_VALUES: [string, string][] = [
  ['empty', ''],
  ['not a number', 'abc'],
  ['negative', '-1'],
  ['fraction', '1.5'],
  ['huge', '1e308'],
  ['hex', '0x10'],
  ['long', 'x'.repeat(4_000)],
  ['NUL', '%00'],
  ['lone surrogate', '%ED%A0%80'],
  ['emoji', encodeBytes('😀')],
  ['unknown enum', 'not-a-member'],
]

const MARKER = '"__FAULT_MARKER__"'

/** The base as JSON with the value at `path` replaced by raw JSON text. */
function replaceMarker(base: unknown, path: string[], raw: string): string {
  const copy = structuredClone(base) as Record<string, unknown>
  let at = copy
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>
  at[path.at(-1)!] = MARKER.slice(1, -1)
  return JSON.stringify(copy).replace(MARKER, () => raw)
}

/** The base with its first string field holding raw bytes (or one added field, without any). */
function withRawString(base: unknown, bytes: Buffer): Buffer {
  const obj = (typeof base === 'object' && base && !Array.isArray(base) ? base : {}) as Record<
    string,
    unknown
  >
  const key = Object.keys(obj).find((k) => typeof obj[k] === 'string') ?? 'text'
  const [before, after] = replaceMarker(obj, [key], MARKER).split(MARKER)
  return Buffer.concat([Buffer.from(`${before}"a`), bytes, Buffer.from(`b"${after}`)])
}

/** Where the base holds an object, at any depth: open (loose) objects store what they are given. */
function looseSpots(value: unknown, at: string[] = [], depth = 0): string[][] {
  if (depth > 4 || typeof value !== 'object' || value === null) return []
  const spots = at.length && !Array.isArray(value) ? [at] : []
  for (const [k, v] of Object.entries(value)) spots.push(...looseSpots(v, [...at, k], depth + 1))
  return spots
}

/** Valid JSON of exactly `size` bytes. */
function padded(size: number): string {
  return `{"pad":"${'x'.repeat(Math.max(0, size - 10))}"}`
}
