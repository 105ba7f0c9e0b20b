import assert from 'node:assert/strict'
import { sql } from 'drizzle-orm'
import { after, before, describe, test } from 'node:test'
import { migrateDatabase } from '../compute-host/database/migrate.ts'
import { createTestApp, json } from './support/app.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'

describe('settings singletons', () => {
  let database: TestDatabase
  let request: (path: string, init?: RequestInit) => Promise<any>
  before(async () => {
    database = await createTestDatabase()
    const app = createTestApp({ db: database.db })
    request = async (path, init) => {
      const res = await app.request(`/api/settings${path}`, init)
      return { status: res.status, body: await res.json() }
    }
  })
  after(() => database.drop())

  test('each singleton reads back its seeded values', async () => {
    const runtime = await request('/agent-runtime')
    assert.equal(runtime.status, 200)
    assert.equal(runtime.body.modelSource, 'local')
    assert.equal(runtime.body.effectiveDefaultModel, runtime.body.localModel)
    assert.ok(!('singleton' in runtime.body))
    assert.equal((await request('/memory')).body.enabled, true)
    assert.equal((await request('/autonomy')).body.selfUpdateEnabled, false)
    assert.deepEqual(Object.keys((await request('/browser')).body).sort(), ['enabled', 'updatedAt'])
  })

  test('a PATCH changes only the named fields and the next read sees it', async () => {
    const before = (await request('/agent-runtime')).body
    const patched = await request(
      '/agent-runtime',
      json(
        {
          modelSource: 'configured',
          configuredModel: 'cx/gpt-5.3-codex-spark',
          supervisorMaxSteps: 30,
        },
        { method: 'PATCH' },
      ),
    )
    assert.equal(patched.status, 200)
    assert.equal(patched.body.effectiveDefaultModel, 'cx/gpt-5.3-codex-spark')
    const after = (await request('/agent-runtime')).body
    assert.equal(after.supervisorMaxSteps, 30)
    assert.equal(after.specialistMaxSteps, before.specialistMaxSteps)
    assert.ok(after.updatedAt >= before.updatedAt)
    const browser = await request('/browser', json({ enabled: true }, { method: 'PATCH' }))
    assert.equal(browser.body.enabled, true)
    assert.equal((await request('/browser')).body.enabled, true)
  })

  test('invalid changes are refused with the field named, and nothing is written', async () => {
    const cases: [string, object, string][] = [
      ['/agent-runtime', { supervisorMaxSteps: 1 }, 'supervisorMaxSteps'],
      ['/agent-runtime', { modelSource: 'cloud' }, 'modelSource'],
      ['/agent-runtime', { taskConcurrency: 2, surprise: 1 }, 'surprise'],
      ['/agent-runtime', {}, '(root)'],
      ['/memory', { rawHistoryRetention: 500 }, 'rawHistoryRetention'],
      ['/memory', { activateAfterIdle: 'soon' }, 'activateAfterIdle'],
      ['/autonomy', { selfUpdateEnabled: 'yes' }, 'selfUpdateEnabled'],
    ]
    const snapshot = (await request('/agent-runtime')).body
    for (const [path, body, field] of cases) {
      const res = await request(path, json(body, { method: 'PATCH' }))
      assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}`)
      assert.ok(res.body.error.data.fields[field], JSON.stringify(res.body))
    }
    assert.deepEqual((await request('/agent-runtime')).body, snapshot)
  })

  test('memory refuses shared budgets while async buffering is on, judged against the stored row', async () => {
    const conflict = await request('/memory', json({ shareTokenBudget: true }, { method: 'PATCH' }))
    assert.equal(conflict.status, 400)
    assert.equal(conflict.body.error.code, 'MEMORY_SETTINGS_CONFLICT')
    const ok = await request(
      '/memory',
      json({ shareTokenBudget: true, asyncBuffering: false }, { method: 'PATCH' }),
    )
    assert.equal(ok.status, 200)
    assert.equal(ok.body.shareTokenBudget, true)
  })

  test('a deleted row is a clear configuration error, never silently restored', async () => {
    await database.db.execute(sql`delete from popagent_autonomy_settings`)
    for (const init of [undefined, json({ evolutionEnabled: true }, { method: 'PATCH' })]) {
      const res = await request('/autonomy', init)
      assert.equal(res.status, 500)
      assert.equal(res.body.error.code, 'SETTINGS_MISSING')
      assert.match(res.body.error.message, /popagent_autonomy_settings.*never recreated/)
    }
    await migrateDatabase(database.handle)
    assert.equal(
      (await request('/autonomy')).body.error.code,
      'SETTINGS_MISSING',
      'a restart does not reseed it',
    )
    assert.equal((await request('/browser')).status, 200, 'the other singletons are unaffected')
  })
})
