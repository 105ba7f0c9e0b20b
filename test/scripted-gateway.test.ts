/** The test double itself must speak the protocol faithfully, or every test built on it lies. */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { z } from 'zod'
import { startScriptedGateway, type ScriptedGateway } from './support/scripted-gateway.ts'

// The OpenAI wire shapes the tests read back, parsed so a reply that drifts from them fails here.
const ModelList = z.object({
  data: z.array(z.object({ id: z.string(), context_length: z.number().optional() })),
})
const Completion = z.object({
  choices: z.array(
    z.object({
      finish_reason: z.string(),
      message: z.object({
        content: z.string().nullish(),
        tool_calls: z.array(z.object({ id: z.string() })).optional(),
      }),
    }),
  ),
})
const Embeddings = z.object({ data: z.array(z.object({ embedding: z.array(z.number()) })) })
const parsed = async <T extends z.ZodType>(schema: T, res: Response) =>
  schema.parse(await res.json())

async function sse(res: Response): Promise<any[]> {
  const text = await res.text()
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice(6))
    .map((data) => (data === '[DONE]' ? data : JSON.parse(data)))
}

describe('the scripted gateway', () => {
  let gw: ScriptedGateway
  before(async () => {
    gw = await startScriptedGateway({
      models: [{ id: 'local/a', contextWindow: 65_536 }, { id: 'remote/b' }],
    })
  })
  after(() => gw.close())

  const chat = (body: object) =>
    fetch(`${gw.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  test('lists models with context-window metadata', async () => {
    const body = await parsed(ModelList, await fetch(`${gw.url}/models`))
    assert.deepEqual(
      body.data.map((m) => [m.id, m.context_length]),
      [
        ['local/a', 65_536],
        ['remote/b', undefined],
      ],
    )
  })

  test('streams scripted text deltas, then usage and [DONE], and records the request', async () => {
    gw.enqueue({ text: ['Hel', 'lo'], usage: { promptTokens: 7, completionTokens: 2 } })
    const events = await sse(
      await chat({
        model: 'local/a',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'hi' }],
      }),
    )
    assert.equal(events.at(-1), '[DONE]')
    const text = events
      .slice(0, -1)
      .map((e) => e.choices[0].delta.content ?? '')
      .join('')
    assert.equal(text, 'Hello')
    assert.equal(events.at(-2).choices[0].finish_reason, 'stop')
    assert.deepEqual(events.at(-2).usage, {
      prompt_tokens: 7,
      completion_tokens: 2,
      total_tokens: 9,
    })
    assert.equal(gw.requests.at(-1)!.body.messages[0].content, 'hi')
  })

  test('streams and returns tool calls', async () => {
    gw.enqueue(
      { toolCalls: [{ name: 'agent-researcher', arguments: { prompt: 'look' } }] },
      { toolCalls: [{ id: 'c1', name: 't', arguments: '{}' }] },
    )
    const events = await sse(await chat({ model: 'local/a', stream: true, messages: [] }))
    const call = events.find((e) => e !== '[DONE]' && e.choices[0].delta.tool_calls)
    assert.equal(call.choices[0].delta.tool_calls[0].function.name, 'agent-researcher')
    assert.deepEqual(JSON.parse(call.choices[0].delta.tool_calls[0].function.arguments), {
      prompt: 'look',
    })
    const plain = await parsed(Completion, await chat({ model: 'local/a', messages: [] }))
    assert.equal(plain.choices[0]?.finish_reason, 'tool_calls')
    assert.equal(plain.choices[0]?.message.tool_calls?.[0]?.id, 'c1')
  })

  test('answers scripted HTTP errors and unscripted requests with errors', async () => {
    gw.enqueue({ status: 429, message: 'slow down', headers: { 'retry-after': '1' } })
    const limited = await chat({ model: 'remote/b', messages: [] })
    assert.equal(limited.status, 429)
    assert.equal(limited.headers.get('retry-after'), '1')
    const unscripted = await chat({ model: 'remote/b', messages: [] })
    assert.equal(unscripted.status, 500)
  })

  test('delays and drops connections mid-stream', async () => {
    gw.enqueue({ text: ['a', 'b', 'c'], delayMs: 50, dropAfterChunks: 2 })
    const started = Date.now()
    const res = await chat({ model: 'local/a', stream: true, messages: [] })
    assert.ok(Date.now() - started >= 45)
    await assert.rejects(res.text())
  })

  test('routes replies by request when a responder is set, and embeds deterministically', async () => {
    gw.respondWith((req) => ({ text: `model was ${req.body.model}` }))
    const body = await parsed(Completion, await chat({ model: 'remote/b', messages: [] }))
    assert.equal(body.choices[0]?.message.content, 'model was remote/b')
    gw.respondWith(undefined)
    const embed = async () =>
      parsed(
        Embeddings,
        await fetch(`${gw.url}/embeddings`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'e', input: ['same text'] }),
        }),
      )
    const [a, b] = [await embed(), await embed()]
    assert.deepEqual(a.data[0]?.embedding, b.data[0]?.embedding)
    assert.equal(a.data[0]?.embedding.length, 16)
  })
})
