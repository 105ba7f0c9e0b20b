/**
 * The failure classifier against the errors the libraries really throw: a PostgreSQL server that
 * is stopped under node-postgres, postgres.js, drizzle and Mastra's storage; the scripted gateway
 * answering 429, 500, 502 and 503 through the AI SDK and a Mastra agent; a socket closed under a
 * request; a refused connection; a name a loopback DNS server says does not exist; an aborted
 * fetch. No failure here is built by hand.
 */
import assert from 'node:assert/strict'
import { get as httpGet } from 'node:http'
import { createServer } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { Agent } from '@mastra/core/agent'
import { Memory } from '@mastra/memory'
import { PostgresStore } from '@mastra/pg'
import { generateText } from 'ai'
import { sql } from '../db/drizzle-orm.ts'
import { drizzle } from 'drizzle-orm/node-postgres'
import pg from 'pg'
import postgres from 'postgres'
import { startNxdomainDns } from './support/nxdomain-dns.ts'
import {
  classifyError,
  errorShape,
  isTransient,
  type ErrorClass,
} from '../compute-host/tasks/error-classes.ts'
import { startScriptedGateway, type ScriptedGateway } from './support/scripted-gateway.ts'
import { freePort, startThrowawayPostgres } from './support/throwaway-postgres.ts'

const MODEL = 'test/model'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function thrown(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work()
  } catch (error) {
    return error
  }
  throw new Error('expected a failure')
}

/** Every captured error, by what produced it, with the class it must get. */
const captured: Array<{ what: string; error: unknown; expected: ErrorClass }> = []

function expectClass(what: string, error: unknown, expected: ErrorClass) {
  captured.push({ what, error, expected })
}

/** Asserted after the capture, so a wrong class never leaves a server or a pool behind. */
function assertCaptured(from: number) {
  for (const { what, error, expected } of captured.slice(from)) {
    const found = classifyError(error)
    assert.equal(
      found.errorClass,
      expected,
      `${what}: ${found.signal} ${JSON.stringify(errorShape(error))}`,
    )
  }
}

describe('failure classification from real library errors', () => {
  test('a PostgreSQL server stopped under node-postgres, postgres.js, drizzle and Mastra', async () => {
    const from = captured.length
    const server = await startThrowawayPostgres()
    let restarting: Promise<void> | undefined
    const client = new pg.Client({ connectionString: server.url })
    client.on('error', () => {})
    const pool = new pg.Pool({ connectionString: server.url, max: 2 })
    pool.on('error', () => {})
    const js = postgres(server.url, { max: 1, onnotice: () => {} })
    const mastraPool = new pg.Pool({ connectionString: server.url, max: 2 })
    mastraPool.on('error', () => {})
    const storage = new PostgresStore({ id: 'classes', pool: mastraPool, schemaName: 'mastra' })
    const memory = new Memory({ storage })
    try {
      await client.connect()
      await js`select 1`
      await storage.init()
      // Queries in flight when the server shuts down.
      const inflightClient = thrown(() => client.query('select pg_sleep(30)'))
      const inflightPool = thrown(() => pool.query('select pg_sleep(30)'))
      const inflightJs = thrown(() => js`select pg_sleep(30)`)
      await sleep(200)
      restarting = server.restart({ downMs: 3_000 })
      expectClass('node-postgres in flight at shutdown', await inflightClient, 'database')
      expectClass('node-postgres pool in flight at shutdown', await inflightPool, 'database')
      expectClass('postgres.js in flight at shutdown', await inflightJs, 'database')
      await sleep(300)
      // New statements while the server is down.
      expectClass(
        'node-postgres client after its server went away',
        await thrown(() => client.query('select 1')),
        'database',
      )
      expectClass(
        'node-postgres pool while the server is down',
        await thrown(() => pool.query('select 1')),
        'infrastructure',
      )
      expectClass(
        'postgres.js while the server is down',
        await thrown(() => js`select 1`),
        'infrastructure',
      )
      expectClass(
        "drizzle's query wrapper over node-postgres",
        await thrown(() => drizzle(pool).execute(sql`select 1`)),
        'infrastructure',
      )
      expectClass(
        "Mastra's storage error over node-postgres",
        await thrown(() => memory.getThreadById({ threadId: 'missing' })),
        'infrastructure',
      )
    } finally {
      await restarting
      await client.end().catch(() => {})
      await pool.end().catch(() => {})
      await mastraPool.end().catch(() => {})
      // postgres.js may never settle a graceful end after its server went away.
      await js.end({ timeout: 0 }).catch(() => {})
      await server.stop()
    }
    assertCaptured(from)
  })

  describe('the gateway through the AI SDK and Mastra', () => {
    let gateway: ScriptedGateway
    let provider: ReturnType<typeof createOpenAICompatible>
    before(async () => {
      gateway = await startScriptedGateway({ models: [{ id: MODEL }] })
      provider = createOpenAICompatible({ name: 'gw', baseURL: gateway.url, apiKey: 'k' })
    })
    after(() => gateway.close())
    const call = (maxRetries = 0) =>
      thrown(() => generateText({ model: provider.chatModel(MODEL), prompt: 'hi', maxRetries }))

    test('answers 429, 500, 502, 503, 400 and 401', async () => {
      const from = captured.length
      const expected: Array<[number, ErrorClass]> = [
        [429, 'rate-limit'],
        [500, 'provider'],
        [502, 'provider'],
        [503, 'provider'],
        [400, 'validation'],
        [401, 'configuration'],
      ]
      for (const [status, errorClass] of expected) {
        gateway.respondWith(() => ({ status }))
        expectClass(`AI SDK APICallError ${status}`, await call(), errorClass)
      }
      gateway.respondWith(() => ({ status: 503 }))
      expectClass('AI SDK RetryError over 503s', await call(1), 'provider')
      gateway.respondWith(() => ({ status: 429 }))
      expectClass('AI SDK RetryError over 429s', await call(1), 'rate-limit')
      assertCaptured(from)
    })

    test("a Mastra agent's stream and generate meet a 503", async () => {
      const from = captured.length
      gateway.respondWith(() => ({ status: 503 }))
      const agent = new Agent({
        id: 'classes',
        name: 'classes',
        instructions: 'answer',
        model: provider.chatModel(MODEL),
      })
      const streamed = await thrown(async () => {
        const output = await agent.stream([{ role: 'user', content: 'hi' }], {
          modelSettings: { maxRetries: 0 },
        })
        await output.text
        if (output.error) throw output.error
      })
      expectClass('Mastra agent stream', streamed, 'provider')
      expectClass(
        'Mastra agent generate',
        await thrown(() =>
          agent.generate([{ role: 'user', content: 'hi' }], { modelSettings: { maxRetries: 0 } }),
        ),
        'provider',
      )
      assertCaptured(from)
    })
  })

  test('a socket closed under a request, a refused connection, an unknown name, an abort', async () => {
    const from = captured.length
    // A server that accepts and closes at once: the request meets a closed socket.
    const closing = createServer((socket) => socket.destroy())
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve))
    const { port } = closing.address() as { port: number }
    const provider = createOpenAICompatible({
      name: 'gw',
      baseURL: `http://127.0.0.1:${port}/v1`,
      apiKey: 'k',
    })
    try {
      expectClass(
        'AI SDK over a closed socket',
        await thrown(() =>
          generateText({ model: provider.chatModel(MODEL), prompt: 'hi', maxRetries: 0 }),
        ),
        'infrastructure',
      )
      expectClass(
        'fetch over a closed socket',
        await thrown(() => fetch(`http://127.0.0.1:${port}/`)),
        'infrastructure',
      )
    } finally {
      await new Promise((resolve) => closing.close(resolve))
    }
    const refused = await freePort()
    expectClass(
      'fetch to a refused port',
      await thrown(() => fetch(`http://127.0.0.1:${refused}/`)),
      'infrastructure',
    )
    // A name no resolver knows, asked of a loopback DNS server: no query leaves the machine.
    const dns = await startNxdomainDns()
    try {
      expectClass(
        'request to an unresolvable name',
        await thrown(
          () =>
            new Promise((resolve, reject) =>
              httpGet('http://popagent-gateway.invalid/', { lookup: dns.lookup }, resolve).on(
                'error',
                reject,
              ),
            ),
        ),
        'infrastructure',
      )
    } finally {
      dns.close()
    }
    const controller = new AbortController()
    const aborted = thrown(() =>
      fetch(`http://127.0.0.1:${refused}/`, { signal: controller.signal }),
    )
    controller.abort()
    expectClass('an aborted fetch', await aborted, 'cancelled')
    assertCaptured(from)
  })

  test('every captured error is classified, and outages are transient', () => {
    assert.ok(captured.length >= 20, `${captured.length} errors captured`)
    const unknown = captured.filter((c) => classifyError(c.error).errorClass === 'unknown')
    assert.deepEqual(
      unknown.map((c) => c.what),
      [],
    )
    for (const c of captured.filter((c) =>
      /PostgreSQL|shutdown|down|50[023]|429|socket|refused/.test(c.what),
    )) {
      assert.ok(isTransient(classifyError(c.error).errorClass), `${c.what} is transient`)
    }
  })
})
