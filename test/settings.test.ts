import assert from 'node:assert/strict'
import { sql } from '../db/drizzle-orm.ts'
import { after, before, describe, test } from 'node:test'
import { migrateDatabase } from '../compute-host/database/migrate.ts'
import { createTestApp, json } from './support/app.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'
import { errorJson, okJson, typedClient, type Client } from './support/typed-client.ts'

describe('settings singletons', () => {
  let database: TestDatabase
  let api: Client['api']['settings']
  // For bodies the contract refuses, which the typed client would not let through.
  let raw: (path: string, body: object) => Promise<Response>
  before(async () => {
    database = await createTestDatabase()
    const app = createTestApp({ db: database.db })
    api = typedClient(app).api.settings
    raw = async (path, body) => app.request(`/api/settings${path}`, json(body, { method: 'PATCH' }))
  })
  const runtime = async () => okJson(await api['agent-runtime'].$get(), 200)
  after(() => database.drop())

  test('each singleton reads back its seeded values', async () => {
    const seeded = await runtime()
    assert.equal(seeded.modelSource, 'local')
    assert.equal(seeded.effectiveDefaultModel, seeded.localModel)
    assert.ok(!('singleton' in seeded))
    assert.equal((await okJson(await api.memory.$get())).enabled, true)
    assert.equal((await okJson(await api.autonomy.$get())).selfUpdateEnabled, false)
    const browser = await okJson(await api.browser.$get())
    assert.deepEqual(Object.keys(browser).sort(), [
      'allowCredentialReaders',
      'allowScriptEvaluation',
      'enabled',
      'updatedAt',
      'uploadFolder',
    ])
    // The owner's opt-ins start off.
    assert.equal(browser.allowScriptEvaluation, false)
    assert.equal(browser.uploadFolder, '')
  })

  test('a PATCH changes only the named fields and the next read sees it', async () => {
    const before = await runtime()
    const patched = await api['agent-runtime'].$patch({
      json: {
        modelSource: 'configured',
        configuredModel: 'cx/gpt-5.3-codex-spark',
        supervisorMaxSteps: 30,
      },
    })
    assert.equal((await okJson(patched, 200)).effectiveDefaultModel, 'cx/gpt-5.3-codex-spark')
    const after = await runtime()
    assert.equal(after.supervisorMaxSteps, 30)
    assert.equal(after.specialistMaxSteps, before.specialistMaxSteps)
    assert.ok(after.updatedAt >= before.updatedAt)
    const browser = await okJson(await api.browser.$patch({ json: { enabled: true } }))
    assert.equal(browser.enabled, true)
    assert.equal((await okJson(await api.browser.$get())).enabled, true)
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
    const snapshot = await runtime()
    for (const [path, body, field] of cases) {
      const res = await raw(path, body)
      assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}`)
      const refused = await errorJson(res, 400)
      assert.ok(refused.error.data?.fields?.[field], JSON.stringify(refused))
    }
    assert.deepEqual(await runtime(), snapshot)
  })

  test('memory refuses shared budgets while async buffering is on, judged against the stored row', async () => {
    const conflict = await api.memory.$patch({ json: { shareTokenBudget: true } })
    assert.equal((await errorJson(conflict, 400)).error.code, 'MEMORY_SETTINGS_CONFLICT')
    const ok = await api.memory.$patch({ json: { shareTokenBudget: true, asyncBuffering: false } })
    assert.equal((await okJson(ok, 200)).shareTokenBudget, true)
  })

  test('a deleted row is a clear configuration error, never silently restored', async () => {
    await database.db.execute(sql`delete from popagent_autonomy_settings`)
    for (const send of [
      () => api.autonomy.$get(),
      () => api.autonomy.$patch({ json: { evolutionEnabled: true } }),
    ]) {
      const body = await errorJson(await send(), 500)
      assert.equal(body.error.code, 'SETTINGS_MISSING')
      assert.match(body.error.message, /popagent_autonomy_settings.*never recreated/)
    }
    await migrateDatabase(database.handle)
    assert.equal(
      (await errorJson(await api.autonomy.$get())).error.code,
      'SETTINGS_MISSING',
      'a restart does not reseed it',
    )
    assert.equal((await api.browser.$get()).status, 200, 'the other singletons are unaffected')
  })
})
