import type { z } from 'zod'
import { deepFreeze } from '../../runtime/deep-freeze.ts'

type JsonSchemaOptions = { target?: string; libraryOptions?: Record<string, unknown> }
type JsonSchemaMethod = (options: JsonSchemaOptions) => Record<string, unknown>

/**
 * A tool's input schema whose JSON Schema is converted once, not on every run. Mastra turns every
 * tool's zod schema into JSON Schema each time an agent streams (CoreToolBuilder), which was the
 * largest piece of zod's time in a turn. Zod lets a schema's `~standard` be replaced, so the
 * conversion is wrapped here and everything else (validation, zod's own internals, which Mastra
 * reads to normalise a model's nulls) stays the schema's own.
 *
 * A conversion is kept per target and library options (compared key by key: Mastra builds a new
 * options object per call around the same values); other options convert afresh. What is kept is
 * frozen: Mastra copies it before use, and a caller that changed it would change every later
 * run's tool definition.
 */
export function keptJsonSchema<T extends z.ZodType>(schema: T): T {
  const standard = schema['~standard'] as z.ZodType['~standard'] & {
    jsonSchema: { input: JsonSchemaMethod; output: JsonSchemaMethod }
  }
  schema['~standard'] = {
    ...standard,
    jsonSchema: {
      input: keep(standard.jsonSchema.input),
      output: keep(standard.jsonSchema.output),
    },
  } as never
  return schema
}

function keep(convert: JsonSchemaMethod): JsonSchemaMethod {
  const kept: Array<{ options: JsonSchemaOptions; result: Record<string, unknown> }> = []
  return (options) => {
    const found = kept.find((k) => sameOptions(k.options, options))
    if (found) return found.result
    const result = deepFreeze(convert(options))
    // A handful at most: one per target and caller.
    if (kept.length < 8) kept.push({ options: { ...options }, result })
    return result
  }
}

function sameOptions(a: JsonSchemaOptions, b: JsonSchemaOptions): boolean {
  if (a.target !== b.target) return false
  const [x, y] = [a.libraryOptions ?? {}, b.libraryOptions ?? {}]
  const keys = Object.keys(x)
  return keys.length === Object.keys(y).length && keys.every((key) => x[key] === y[key])
}
