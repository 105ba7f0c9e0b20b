/**
 * The agent factory starts the per-run tool decisions beside its row reads. When a read fails
 * first (a database restarting under a task attempt), the decision that fails after it must still
 * have a handler: an unhandled rejection ends the host process (the PostgreSQL-restart fault
 * scenario lost a host that way).
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createAgentFactory } from '../compute-host/agents/factory.ts'
import type { ToolProvider } from '../compute-host/agents/tool-provider.ts'
import { createConfigCache } from '../compute-host/config-cache.ts'
import { startTestStack, type TestStack } from './support/stack.ts'

let stack: TestStack
before(async () => (stack = await startTestStack({ models: [{ id: 'remote/big' }] })))
after(() => stack.stop())

test('a run whose row read fails first leaves no unhandled rejection behind', async () => {
  const db = stack.host.resources.databases.application.db
  const real = createConfigCache(db)
  const config = {
    snapshot: async () => ({
      ...(await real.snapshot()),
      agentRows: () => Promise.reject(new Error('the database system is shutting down')),
    }),
  }
  const later = (message: string) =>
    new Promise<never>((_, fail) => setTimeout(() => fail(new Error(message)), 30))
  const tools: ToolProvider = {
    bind: () => ({ ok: false, reason: 'not in this test' }),
    forRun: () => later('the browser setting could not be read'),
  }
  const unhandled: unknown[] = []
  const record = (reason: unknown) => unhandled.push(reason)
  process.on('unhandledRejection', record)
  try {
    const factory = createAgentFactory({
      db,
      config,
      models: stack.host.resources.models,
      tools,
      mcpTools: { forRun: () => later('the MCP servers could not be listed') },
    })
    await assert.rejects(factory.build(), /shutting down/)
    // Past the moment the late decisions fail, and a turn of the event loop after it.
    await new Promise((resolve) => setTimeout(resolve, 100))
    assert.deepEqual(unhandled, [])
  } finally {
    process.off('unhandledRejection', record)
  }
})
