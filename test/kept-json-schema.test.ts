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
import { Agent } from '@mastra/core/agent'
import type { AnyTool } from '../compute-host/agents/tool-provider.ts'
import { createAdmissionQueue } from '../compute-host/models/admission-queue.ts'
import { createGatewayModels } from '../compute-host/models/gateway-models.ts'
import { createDocsSearchTool } from '../compute-host/tools/docs-search.ts'
import { keptJsonSchema } from '../compute-host/tools/kept-json-schema.ts'
import { createMemorySearchTool } from '../compute-host/tools/memory-search.ts'
import { createRepoBriefTool } from '../compute-host/tools/repo-brief.ts'
import { createRetainFactTool } from '../compute-host/tools/retain-fact.ts'
import { createWebSearchTool } from '../compute-host/tools/web-search.ts'
import { createLspInspect } from '../compute-host/workspaces/lsp-inspect.ts'
import { startScriptedGateway } from './support/scripted-gateway.ts'

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

/**
 * Our tools as the model receives them: the `tools` array of the requests the scripted gateway
 * got from a real agent's streams, with each tool's kept schema and with a fresh copy of the same
 * zod schema (`clone()`, which zod converts afresh), on a first and a later stream.
 */
test('the model receives the same tool definitions from kept schemas, on every stream', async () => {
  const gateway = await startScriptedGateway({ models: [{ id: 'test/model' }] })
  try {
    const models = createGatewayModels({
      url: gateway.url,
      localModels: { queue: createAdmissionQueue(1), isLocal: () => false },
    })
    const deps = {} as never // the tools are never called here; building them needs no deps
    const ours: Record<string, AnyTool> = {
      'web-search': createWebSearchTool({ baseUrl: 'http://127.0.0.1:9' }),
      'repo-brief': createRepoBriefTool(),
      'docs-search': createDocsSearchTool(deps),
      'memory-search': createMemorySearchTool(deps),
      'retain-fact': createRetainFactTool(deps, 'probe'),
      'lsp-inspect': createLspInspect('/nonexistent').tool,
    }
    const fresh = Object.fromEntries(
      Object.entries(ours).map(([name, tool]) => [
        name,
        { ...tool, inputSchema: (tool.inputSchema as z.ZodType).clone() } as AnyTool,
      ]),
    )
    const toolsSent = async (tools: Record<string, AnyTool>) => {
      const agent = new Agent({
        id: 'probe',
        name: 'probe',
        instructions: 'probe',
        model: models.languageModel('test/model'),
        tools,
      })
      gateway.enqueue({ text: 'ok' })
      await (await agent.stream('hello')).consumeStream()
      return gateway.requests.at(-1)!.body.tools as unknown[]
    }
    const expected = await toolsSent(fresh)
    assert.equal(expected.length, Object.keys(ours).length)
    assert.deepEqual(await toolsSent(ours), expected)
    assert.deepEqual(await toolsSent(ours), expected, 'a later stream, from the kept conversion')
  } finally {
    await gateway.close()
  }
})
