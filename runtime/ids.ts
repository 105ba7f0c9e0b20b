import { z } from 'zod'

/**
 * Prefixed, time-sortable identifiers (`ses_01JD…`), readable in logs and checked by prefix so a
 * task id can never be used where a session id belongs.
 *
 * The body is 10 Crockford base32 characters of milliseconds plus 16 random ones (80 bits), the
 * same layout as a ULID, generated with WebCrypto so it runs on Workers too.
 */
export const ID_PREFIXES = {
  session: 'ses',
  workspace: 'wsp',
  skill: 'skl',
  turn: 'trn',
  message: 'msg',
  task: 'tsk',
  schedule: 'sch',
  document: 'doc',
  memory: 'mem',
  recall: 'rci',
  secret: 'sec',
  secretBinding: 'sbd',
  hook: 'hok',
  hookRun: 'hkr',
  channel: 'chn',
  channelBinding: 'cbn',
  channelEvent: 'cev',
  channelDelivery: 'dlv',
  browserSession: 'brs',
  browserRecording: 'brr',
  evolutionSignal: 'evs',
  evolutionRevision: 'evr',
  learnedOverlay: 'ovl',
  evolutionProposal: 'evp',
  approval: 'apr',
} as const

export type IdKind = keyof typeof ID_PREFIXES

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const BODY = /^[0-9A-HJKMNP-TV-Z]{26}$/
// Seeded rows use readable bodies ("wsp_default"): lowercase words, digits and hyphens.
const SEED_BODY = /^[a-z][a-z0-9-]{0,62}$/

// Random bytes for identifiers, drawn from WebCrypto a pool at a time: each call into it costs
// about 60 µs of CPU whatever its size, and a chat turn makes several ids. Identifiers are not
// secrets (every route checks the owner's token), so sharing one draw between them is safe.
const POOL_BYTES = 4096
let pool = new Uint8Array(0)
let used = 0

function randomBytesPooled(count: number): Uint8Array {
  if (used + count > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES))
    used = 0
  }
  used += count
  return pool.subarray(used - count, used)
}

export function createId(kind: IdKind, now = Date.now()): string {
  let time = ''
  for (let i = 0, t = now; i < 10; i++, t = Math.floor(t / 32)) time = ALPHABET[t % 32] + time
  let rest = ''
  for (const byte of randomBytesPooled(16)) rest += ALPHABET[byte % 32]
  return `${ID_PREFIXES[kind]}_${time}${rest}`
}

/** `count` random bytes as hex: a trace id is 16 of them, a span id 8 (W3C trace context). */
export function randomHex(count: number): string {
  let hex = ''
  for (const byte of randomBytesPooled(count)) hex += byte.toString(16).padStart(2, '0')
  return hex
}

export function isId(kind: IdKind, value: string): boolean {
  const prefix = `${ID_PREFIXES[kind]}_`
  if (!value.startsWith(prefix)) return false
  const body = value.slice(prefix.length)
  return BODY.test(body) || SEED_BODY.test(body)
}

/** A zod schema accepting only ids of one kind. */
export function idSchema(kind: IdKind) {
  return z
    .string()
    .max(80)
    .refine((v) => isId(kind, v), { message: `expected a ${kind} id (${ID_PREFIXES[kind]}_…)` })
}

export const SessionId = idSchema('session')
export const WorkspaceId = idSchema('workspace')
export const SkillId = idSchema('skill')
export const TaskId = idSchema('task')
export const ScheduleId = idSchema('schedule')
export const DocId = idSchema('document')
export const MemoryId = idSchema('memory')
export const SecretId = idSchema('secret')
export const HookId = idSchema('hook')
export const ApprovalId = idSchema('approval')
