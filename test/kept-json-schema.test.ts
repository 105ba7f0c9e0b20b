/**
 * Tool input schemas whose JSON Schema is converted once (compute-host/tools/kept-json-schema.ts),
 * through Mastra's own tool conversion, the path every agent's stream takes.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { RequestContext } from '@mastra/core/request-context'
import { createTool, validateToolInput } from '@mastra/core/tools'
import { makeCoreTool } from '@mastra/core/utils'
import { z } from 'zod'
import { keptJsonSchema } from '../compute-host/tools/kept-json-schema.ts'

const shape = () =>
  z.object({
    query: z.string().min(1).describe('what to look for'),
    limit: z.number().int().positive().optional(),
  })

/** A schema whose conversions are counted, as zod makes them. */
function counted() {
  const schema = shape()
  const standard = schema['~standard'] as unknown as {
    jsonSchema: { input: (o: unknown) => unknown; output: (o: unknown) => unknown }
  }
  let conversions = 0
  const { input, output } = standard.jsonSchema
  schema['~standard'] = {
    ...schema['~standard'],
    jsonSchema: {
      input: (o: unknown) => (conversions++, input(o)),
      output: (o: unknown) => (conversions++, output(o)),
    },
  } as never
  return { schema, conversions: () => conversions }
}

const convert = (inputSchema: z.ZodType) =>
  makeCoreTool(
    createTool({ id: 'probe', description: 'probe', inputSchema, execute: async () => 'ok' }),
    { name: 'probe', requestContext: new RequestContext() },
  )

test("Mastra's tool conversion converts a kept schema once, to the same JSON Schema", () => {
  const { schema, conversions } = counted()
  const kept = keptJsonSchema(schema)
  const first = convert(kept)
  const second = convert(kept)
  convert(kept)
  assert.equal(conversions(), 1)
  const plain = convert(shape())
  const json = (tool: ReturnType<typeof convert>) =>
    (tool.parameters as { jsonSchema: unknown }).jsonSchema
  assert.deepEqual(json(first), json(plain))
  assert.deepEqual(json(second), json(plain))

  // Without it, every conversion is zod's again.
  const again = counted()
  convert(again.schema)
  convert(again.schema)
  assert.equal(again.conversions(), 2)
})

test('what is kept cannot be changed by a caller, and Mastra gets its own copy', () => {
  const kept = keptJsonSchema(shape())
  const standard = kept['~standard'] as unknown as {
    jsonSchema: { input: (o: unknown) => Record<string, unknown> }
  }
  const options = { target: 'draft-07' }
  const made = standard.jsonSchema.input(options)
  assert.equal(standard.jsonSchema.input(options), made)
  assert.throws(() => {
    made.type = 'string'
  }, TypeError)
  const tool = convert(kept)
  const params = tool.parameters as unknown as { jsonSchema: Record<string, unknown> }
  params.jsonSchema.description = 'changed by a caller'
  const next = convert(kept).parameters as unknown as { jsonSchema: Record<string, unknown> }
  assert.equal(next.jsonSchema.description, undefined)
})

test("validation stays zod's own, with Mastra's handling of a model's nulls", () => {
  const kept = keptJsonSchema(shape())
  const ok = validateToolInput(kept, { query: 'tests', limit: null }, 'probe')
  assert.deepEqual(ok, validateToolInput(shape(), { query: 'tests', limit: null }, 'probe'))
  assert.deepEqual((ok as { data: unknown }).data, { query: 'tests' })
  const refused = validateToolInput(kept, { query: '' }, 'probe')
  assert.ok('error' in refused && refused.error, 'an empty query is refused')
})
