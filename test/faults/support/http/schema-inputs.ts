/**
 * Bad inputs derived from a route's zod schema (via its JSON Schema, `z.toJSONSchema`): a
 * plausible valid value to start from, then one change at a time — each field missing, null,
 * of every wrong JSON type, out of range, too long, off its enum, hostile unicode, plus unknown
 * fields and wrong roots. Derived, not listed, so a new field is fuzzed the day it is added.
 */
import { z } from 'zod'

export type JsonSchema = {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  items?: JsonSchema
  enum?: unknown[]
  const?: unknown
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  minItems?: number
  maxItems?: number
  default?: unknown
}

export type Mutation = { label: string; value: unknown }

export const jsonSchemaOf = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema

/** Strings that pass the project's id, cron and model checks, tried where a sample fails. */
export const STRING_CANDIDATES = [
  'wsp_default',
  'ses_00000000000000000000000000',
  'tsk_00000000000000000000000000',
  'sch_00000000000000000000000000',
  'skl_00000000000000000000000000',
  'orchistrator',
  'test/model',
  '0 * * * *',
  'fault-input',
  'https://example.invalid/doc',
]

/** Text that has broken parsers, databases and loggers before. */
export const HOSTILE_STRINGS: [string, string][] = [
  ['lone high surrogate', '\ud800'],
  ['lone low surrogate', 'a\udfffb'],
  ['NUL', 'a\u0000b'],
  ['escaped NUL only', '\u0000'],
  ['RTL override', '\u202egnp.exe'],
  ['emoji and ZWJ', '👩‍👩‍👧‍👦🏳️‍🌈'],
  ['combining marks', 'Z̸̡̢̛̗̘̙̜̝̞̟̠̀́̂̃̄'],
  ['BOM and zero-width', '\ufeff\u200b\u200d'],
  ['control characters', '\u0001\u0007\u001b[31m\r\n'],
  ['private use and noncharacters', '\ue000\uffff\ufffe'],
  ['SQL-ish', "'; drop table popagent_sessions; --"],
  ['path-ish', '../../../../etc/passwd'],
  ['very long', 'x'.repeat(70_000)],
]

function typesOf(s: JsonSchema): string[] {
  if (s.type) return Array.isArray(s.type) ? s.type : [s.type]
  const alts = s.anyOf ?? s.oneOf
  if (alts) return alts.flatMap(typesOf)
  if (s.enum) return [...new Set(s.enum.map(jsonType))]
  if (s.const !== undefined) return [jsonType(s.const)]
  return []
}

function jsonType(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (Number.isInteger(v)) return 'integer'
  return typeof v
}

/** A value that fits the JSON Schema as far as it says (refinements it cannot express aside). */
export function sample(s: JsonSchema, depth = 0): unknown {
  if (s.default !== undefined) return s.default
  if (s.const !== undefined) return s.const
  if (s.enum?.length) return s.enum[0]
  const alts = s.anyOf ?? s.oneOf
  if (alts?.length) return sample(alts.find((a) => !typesOf(a).includes('null')) ?? alts[0]!, depth)
  const type = typesOf(s)[0]
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {}
      if (depth > 6) return out
      for (const [k, v] of Object.entries(s.properties ?? {})) out[k] = sample(v, depth + 1)
      return out
    }
    case 'array':
      // One item even where none is required, so the item's own fields get fuzzed too.
      return s.items && (s.maxItems ?? 1) > 0 ? [sample(s.items, depth + 1)] : []
    case 'string':
      return 'a'.repeat(Math.max(1, s.minLength ?? 1))
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1)
    case 'boolean':
      return true
    case 'null':
      return null
    default:
      return 'a'
  }
}

/** What the caller knows about valid values: ids of rows that exist, values by field name. */
export type Known = { candidates?: string[]; hints?: Record<string, unknown> }

/**
 * `sample()` improved against the real zod schema: fields named in `hints` take that value at
 * any depth (a model the gateway lists, a user role), then each field the schema still refuses
 * gets the first candidate it accepts — the caller's first, then its enum members, then
 * STRING_CANDIDATES — or is dropped when optional. A base that still fails is fine: its
 * mutations are bad inputs all the same, they just stop earlier.
 */
export function validBase(schema: z.ZodType, js: JsonSchema, known: Known = {}): unknown {
  const base = applyHints(sample(js), known.hints ?? {})
  if (!isObject(base)) return base
  for (let round = 0; round < 3; round++) {
    const result = schema.safeParse(base)
    if (result.success) break
    for (const issue of result.error.issues) {
      const path = issue.path.map(String)
      if (!path.length) continue
      const node = schemaAt(js, path)
      const tries = [...(known.candidates ?? []), ...(node?.enum ?? []), ...STRING_CANDIDATES]
      const fix = tries.find((c) => !failsAt(schema, withValue(base, path, c), path))
      if (fix !== undefined) Object.assign(base, withValue(base, path, fix))
      else if (path.length === 1 && !js.required?.includes(path[0]!)) delete base[path[0]!]
    }
  }
  return base
}

function applyHints(value: unknown, hints: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((v) => applyHints(v, hints))
  if (!isObject(value)) return value
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k in hints ? hints[k] : applyHints(v, hints)]),
  )
}

function schemaAt(js: JsonSchema, path: string[]): JsonSchema | undefined {
  let node: JsonSchema | undefined = js
  for (const key of path) {
    const alts: JsonSchema[] = node ? [node, ...(node.anyOf ?? []), ...(node.oneOf ?? [])] : []
    node = alts
      .map((a) => a.properties?.[key] ?? (/^\d+$/.test(key) ? a.items : undefined))
      .find(Boolean)
  }
  return node
}

function failsAt(schema: z.ZodType, value: unknown, path: string[]): boolean {
  const result = schema.safeParse(value)
  return (
    !result.success &&
    result.error.issues.some((i) => i.path.map(String).join('.') === path.join('.'))
  )
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const WRONG_TYPES: [string, unknown][] = [
  ['string', 'not-the-type'],
  ['integer', 7],
  ['number', 1.5],
  ['boolean', true],
  ['null', null],
  ['array', [1, 'two', null]],
  ['object', { nested: { deeper: true } }],
]

/** Bad values for one field, judged by its JSON Schema. */
export function fieldMutations(s: JsonSchema): Mutation[] {
  const types = typesOf(s)
  const out: Mutation[] = []
  for (const [type, value] of WRONG_TYPES) {
    const fits = types.includes(type) || (type === 'integer' && types.includes('number'))
    if (!fits) out.push({ label: `wrong type ${type}`, value })
  }
  if (types.includes('string')) {
    out.push({ label: 'empty string', value: '' })
    out.push({ label: 'whitespace only', value: '   \t\n ' })
    if (s.maxLength !== undefined) {
      out.push({ label: 'one over maxLength', value: 'x'.repeat(s.maxLength + 1) })
      out.push({ label: 'maxLength in emoji', value: '😀'.repeat(s.maxLength) })
    }
    for (const [label, value] of HOSTILE_STRINGS) out.push({ label, value })
  }
  if (types.includes('integer') || types.includes('number')) {
    const min = s.minimum ?? s.exclusiveMinimum
    const max = s.maximum ?? s.exclusiveMaximum
    if (min !== undefined) out.push({ label: 'below minimum', value: min - 1 })
    if (max !== undefined) out.push({ label: 'above maximum', value: max + 1 })
    if (types.includes('integer') && !types.includes('number'))
      out.push({ label: 'fraction', value: (min ?? 0) + 0.5 })
    out.push({ label: 'huge', value: 1e308 })
    out.push({ label: 'huge negative', value: -1e308 })
    out.push({ label: 'beyond safe integer', value: 2 ** 53 + 2 })
    out.push({ label: 'negative zero', value: -0 })
    out.push({ label: 'numeric string', value: '12' })
  }
  if (s.enum) {
    out.push({ label: 'enum miss', value: 'not-a-member' })
    const first = s.enum.find((e) => typeof e === 'string') as string | undefined
    if (first) out.push({ label: 'enum in other case', value: first.toUpperCase() })
  }
  if (types.includes('array')) {
    if (s.maxItems !== undefined && s.maxItems < 20_000) {
      const item = s.items ? sample(s.items) : 1
      out.push({ label: 'one over maxItems', value: Array(s.maxItems + 1).fill(item) })
    }
    out.push({ label: 'array of nulls', value: [null, null] })
    out.push({ label: 'array of arrays', value: [[[]]] })
  }
  if (types.includes('object')) {
    out.push({ label: 'object with unknown field', value: { unexpectedField: 1 } })
    out.push({ label: '__proto__ key', value: JSON.parse('{"__proto__":{"polluted":true}}') })
  }
  return out
}

/**
 * Every mutation of a JSON object input: root replacements, then per field (and per field of a
 * nested object, one level down) missing / bad value, then unknown fields.
 */
export function schemaMutations(schema: z.ZodType, known: Known = {}): Mutation[] {
  const js = jsonSchemaOf(schema)
  const base = validBase(schema, js, known)
  const out: Mutation[] = [
    { label: 'root null', value: null },
    { label: 'root array', value: [] },
    { label: 'root array of the object', value: [base] },
    { label: 'root string', value: 'text' },
    { label: 'root number', value: 0 },
    { label: 'root boolean', value: false },
    { label: 'root empty object', value: {} },
    { label: 'valid-looking base', value: base },
  ]
  if (!isObject(base)) return out
  out.push({ label: 'unknown field', value: { ...base, unexpectedField: 'x' } })
  out.push({ label: 'constructor key', value: { ...base, constructor: { prototype: { x: 1 } } } })
  out.push({
    label: '__proto__ key',
    value: { ...JSON.parse('{"__proto__":{"isAdmin":true}}'), ...base },
  })
  const walk = (
    props: Record<string, JsonSchema>,
    required: string[],
    at: string[],
    depth: number,
  ) => {
    for (const [key, field] of Object.entries(props)) {
      const path = [...at, key]
      const name = path.join('.')
      if (required.includes(key)) out.push({ label: `${name} missing`, value: without(base, path) })
      for (const m of fieldMutations(field))
        out.push({ label: `${name}: ${m.label}`, value: withValue(base, path, m.value) })
      const nested = field.properties
      if (nested && depth < 1) walk(nested, field.required ?? [], path, depth + 1)
    }
  }
  walk(js.properties ?? {}, js.required ?? [], [], 0)
  return out
}

function withValue(base: unknown, path: string[], value: unknown): unknown {
  const copy = structuredClone(base) as Record<string, unknown>
  let at = copy
  for (const key of path.slice(0, -1)) {
    if (!isObject(at[key])) at[key] = {}
    at = at[key] as Record<string, unknown>
  }
  at[path.at(-1)!] = value
  return copy
}

function without(base: unknown, path: string[]): unknown {
  const copy = structuredClone(base) as Record<string, unknown>
  let at: unknown = copy
  for (const key of path.slice(0, -1)) at = isObject(at) ? at[key] : undefined
  if (isObject(at)) delete at[path.at(-1)!]
  return copy
}
