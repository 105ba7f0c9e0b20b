import { z } from 'zod'

export type JsonSchema = Record<string, unknown>

export const refTo = (name: string) => `#/components/schemas/${name}`

/**
 * The named schemas as JSON Schema, converted by zod's own `z.toJSONSchema` (JSON Schema 2020-12,
 * the dialect of OpenAPI 3.1): a named schema inside another becomes a `$ref`, so each shape is
 * written once. `io: 'input'` describes what a client sends: a field with a default is optional,
 * a coerced number is a number. Refinements (an id's prefix, storable text) have no JSON Schema
 * form and are left to the server's 400; `unrepresentable: 'any'` keeps such a schema as `{}`
 * rather than failing the whole document.
 */
export function toJsonSchemas(named: Map<z.ZodType, string>): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>()
  for (const [schema, id] of named) registry.add(schema, { id })
  const { schemas } = z.toJSONSchema(registry, {
    io: 'input',
    unrepresentable: 'any',
    uri: refTo,
  }) as { schemas: Record<string, JsonSchema> }
  // `$id` and `$schema` belong to a standalone document; inside OpenAPI's components they would
  // re-base every `$ref` below them.
  return Object.fromEntries(
    Object.entries(schemas).map(([name, { $id: _id, $schema: _schema, ...schema }]) => [
      name,
      schema,
    ]),
  )
}

/**
 * The schemas reachable from `roots` by `$ref`, sorted by name, so the document lists what its
 * routes use and not every contract the runtime shares.
 */
export function reachable(schemas: Record<string, JsonSchema>, roots: Iterable<string>) {
  const kept: Record<string, JsonSchema> = {}
  const pending = [...roots]
  while (pending.length) {
    const ref = pending.pop()!
    const name = ref.startsWith(refTo('')) ? ref.slice(refTo('').length) : undefined
    if (!name || kept[name] || !schemas[name]) continue
    kept[name] = schemas[name]
    pending.push(...refsIn(schemas[name]))
  }
  return Object.fromEntries(Object.entries(kept).sort(([a], [b]) => a.localeCompare(b)))
}

/** Every `$ref` string anywhere in a JSON value. */
export function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn)
  if (typeof value !== 'object' || value === null) return []
  return Object.entries(value).flatMap(([key, v]) =>
    key === '$ref' && typeof v === 'string' ? [v] : refsIn(v),
  )
}
