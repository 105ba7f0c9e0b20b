/**
 * The run configuration kept per version of its counter (compute-host/config-cache.ts), written
 * once and run on real PostgreSQL (config-cache.postgres.test.ts) and the embedded database
 * (config-cache.embedded.test.ts): the triggers of migrations 0017 and 0041 are the database's
 * own.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { sql } from '../db/drizzle-orm.ts'
import type { Db } from '../db/index.ts'
import { createConfigCache } from '../compute-host/config-cache.ts'
import * as Agents from '../runtime/agents/index.ts'
import { SUPERVISOR_AGENT_ID } from '../runtime/agents/supervisor.ts'
import * as Skills from '../runtime/agents/skills.ts'
import * as Hooks from '../runtime/hooks/index.ts'
import { CreateMcpServerInput } from '../runtime/contracts/mcp-servers.ts'
import * as McpServers from '../runtime/mcp-servers/index.ts'
import * as Settings from '../runtime/settings/index.ts'
import * as Workspaces from '../runtime/workspaces/index.ts'

export type ConfigCacheContext = { db: Db; close: () => Promise<void> }

export function configCacheSuite(name: string, setup: () => Promise<ConfigCacheContext>) {
  describe(name, () => {
    let ctx: ConfigCacheContext
    before(async () => {
      ctx = await setup()
    })
    after(() => ctx.close())

    test('without an edit, a second run reuses what the first loaded, frozen', async () => {
      const cache = createConfigCache(ctx.db)
      const first = await cache.snapshot()
      const rows = await first.agentRows()
      const settings = await first.agentRuntime()
      const second = await cache.snapshot()
      assert.equal(second.version, first.version)
      assert.equal(await second.agentRows(), rows, 'the same rows, not loaded again')
      assert.equal(await second.agentRuntime(), settings)
      assert.throws(() => {
        ;(rows[0]!.tools as string[]).push('shell')
      }, TypeError)
      assert.throws(() => {
        ;(settings as { loopRepeatLimit: number }).loopRepeatLimit = 1
      }, TypeError)
    })

    test("every configuration table's write is seen by the next snapshot", async () => {
      const cache = createConfigCache(ctx.db)
      const workspace = await Workspaces.create(ctx.db, { name: 'cfg', path: 'cfg' })
      const edits: Array<{
        what: string
        edit: () => Promise<unknown>
        read: (s: Awaited<ReturnType<typeof cache.snapshot>>) => Promise<unknown>
      }> = [
        {
          what: 'an agent',
          edit: () => Agents.patch(ctx.db, SUPERVISOR_AGENT_ID, { instructions: 'edited once' }),
          read: async (s) =>
            (await s.agentRows()).find((r) => r.id === SUPERVISOR_AGENT_ID)!.instructions,
        },
        {
          what: 'a skill',
          edit: () =>
            Skills.create(ctx.db, SUPERVISOR_AGENT_ID, {
              name: 'cache-check',
              description: 'checks the cache',
              instructions: 'Say so.',
              references: {},
              sourceUrl: null,
              enabled: true,
            }),
          read: async (s) => (await s.enabledSkillRows()).some((r) => r.name === 'cache-check'),
        },
        {
          what: 'a hook',
          edit: () =>
            Hooks.create(ctx.db, {
              name: 'cache-hook',
              event: 'TaskStop',
              kind: 'command',
              command: ['true'],
              matcher: '*',
              timeoutMs: 1_000,
              priority: 100,
              enabled: true,
            }),
          read: async (s) => (await s.enabledHooks('TaskStop')).map((h) => h.name),
        },
        {
          what: 'a workspace',
          edit: () => Workspaces.patch(ctx.db, workspace.id, { name: 'cfg renamed' }),
          read: async (s) => (await s.workspace(workspace.id)).name,
        },
        {
          what: 'the runtime settings',
          edit: () => Settings.agentRuntime.patch(ctx.db, { loopRepeatLimit: 7 }),
          read: async (s) => (await s.agentRuntime()).loopRepeatLimit,
        },
        {
          what: "the owner's MCP servers",
          edit: () =>
            McpServers.create(
              ctx.db,
              CreateMcpServerInput.parse({
                id: 'cache-mcp',
                transport: 'http',
                url: 'http://127.0.0.1:9/mcp',
                allowLoopback: true,
                displayName: 'cache check',
              }),
            ),
          read: async (s) => (await s.mcpServerRows()).map((r) => r.id),
        },
        {
          what: 'the memory settings (by hand, as psql would)',
          edit: () =>
            ctx.db.execute(sql`update popagent_memory_settings set enabled = not enabled`),
          read: async (s) => (await s.memory()).enabled,
        },
      ]
      for (const { what, edit, read } of edits) {
        const before = await cache.snapshot()
        const seen = await read(before)
        await edit()
        const after = await cache.snapshot()
        assert.ok(after.version! > before.version!, `${what}: the counter moved`)
        assert.notDeepEqual(await read(after), seen, `${what}: the next snapshot sees the edit`)
        assert.deepEqual(await read(before), seen, `${what}: a run's snapshot stays as it was`)
      }
    })

    test('a rolled-back write moves nothing', async () => {
      const cache = createConfigCache(ctx.db)
      const before = await cache.snapshot()
      const rows = await before.agentRows()
      await assert.rejects(
        ctx.db.transaction(async (tx) => {
          await Agents.patch(tx as unknown as Db, SUPERVISOR_AGENT_ID, { instructions: 'never' })
          throw new Error('roll back')
        }),
        /roll back/,
      )
      const after = await cache.snapshot()
      assert.equal(after.version, before.version)
      assert.equal(await after.agentRows(), rows)
    })

    test('a failed load is not kept', async () => {
      const cache = createConfigCache(ctx.db)
      const snapshot = await cache.snapshot()
      await assert.rejects(snapshot.workspace('wsp_not_yet'), /not found|WORKSPACE/i)
      // Inserted without moving the counter, so the snapshot's version still holds.
      await ctx.db.execute(
        sql`alter table popagent_agent_workspaces disable trigger popagent_agent_workspaces_config_version`,
      )
      try {
        await ctx.db.execute(
          sql`insert into popagent_agent_workspaces (id, name, path) values ('wsp_not_yet', 'late', 'late')`,
        )
      } finally {
        await ctx.db.execute(
          sql`alter table popagent_agent_workspaces enable trigger popagent_agent_workspaces_config_version`,
        )
      }
      assert.equal((await snapshot.workspace('wsp_not_yet')).name, 'late')
    })

    test('without the counter row nothing is kept, and every run reads the rows', async () => {
      const cache = createConfigCache(ctx.db)
      await ctx.db.execute(sql`delete from popagent_config_version`)
      try {
        const first = await cache.snapshot()
        assert.equal(first.version, null)
        const rows = await first.agentRows()
        const second = await cache.snapshot()
        assert.notEqual(await second.agentRows(), rows)
      } finally {
        await ctx.db.execute(
          sql`insert into popagent_config_version (singleton, version) values (true, 1000)`,
        )
      }
    })
  })
}
