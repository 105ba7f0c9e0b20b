/**
 * The smaller holes of issue 14, each driven end to end against a real stack:
 *
 * - the repository brief must not read through a directory that became a link out of the
 *   repository (git still lists the paths under it): no outside symbol in any brief, and the
 *   outside files' access times unmoved;
 * - briefs are capped per host: a flood of concurrent briefs never has more than three gits in
 *   flight (counted as processes on this machine), the overflow is a 503, and a client that goes
 *   away stops its brief's git;
 * - chat file parts naming URLs (https, loopback v4 and v6, image parts, attachments) are 400s
 *   and nothing ever connects to the named listeners, even over further turns;
 * - session revisions past int4, and a statement that overflows one, are 400s, never 500s;
 * - a host process whose model calls fail with errors quoting secrets prints no secret and no
 *   line that bypassed its JSON logger.
 */
import assert from 'node:assert/strict'
import { sql } from '../../db/drizzle-orm.ts'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { createSession, createWorkspace } from '../support/api-fixtures.ts'
import { json } from '../support/app.ts'
import { makeRepository, readProbe, sleepers, slowGitStatus } from '../support/brief-fixtures.ts'
import { until } from '../support/until.ts'
import { observeSoon, startCanaryHost } from '../support/canary-host.ts'
import { readUiStream } from '../support/ui-stream.ts'
import { startTestStack, type TestStack } from '../support/stack.ts'
import { errorJson, okJson, typedClient } from '../support/typed-client.ts'
import { faultMode, recordFigures, sized } from './mode.ts'
import { startLoopbackListeners } from './support/process-faults/loopback-listeners.ts'

const CAP = 3
const FLOOD = sized(8, 24)
const LINKED_FILES = sized(2, 12)
const FURTHER_TURNS = sized(2, 5)
const LLM_ROUNDS = sized(1, 3)

describe(`small holes (${faultMode})`, () => {
  let stack: TestStack
  let url: string
  let dir: string
  const figures: Record<string, unknown> = {}

  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-small-holes-')))
    await mkdir(join(dir, 'root'))
    stack = await startTestStack({ hostEnv: { POPAGENT_WORKSPACE_ROOT: join(dir, 'root') } })
    stack.gateway.respondWith(() => ({ text: 'ok' }))
    url = await stack.listen()
  })
  after(async () => {
    await stack?.stop()
    await rm(dir, { recursive: true, force: true })
    await recordFigures('small-holes', figures)
  })

  const workspace = (name: string) => createWorkspace(url, name)
  const brief = (id: string, q: string, signal?: AbortSignal) =>
    typedClient(url).api.workspaces[':id']['repo-brief'].$get(
      { param: { id }, query: { q } },
      { ...(signal && { init: { signal } }) },
    )

  test('briefs never read through a directory that became a link out of the repository', async () => {
    // Three shapes of the same trick: a directory replaced by a link, a link one level up, and
    // a link to an absolute path elsewhere. Each listed file has a twin outside.
    const outside = join(dir, 'outside')
    const files: Record<string, string> = {}
    for (let i = 0; i < LINKED_FILES; i++) {
      files[`src/vault/leak-key-${i}.ts`] = `export const insideOne${i} = 1\n`
      files[`src/deep/nest/leak-key-deep-${i}.ts`] = `export const insideTwo${i} = 1\n`
      files[`lib/abs/leak-key-abs-${i}.ts`] = `export const insideThree${i} = 1\n`
    }
    const repo = await makeRepository(join(dir, 'root', 'linked'), files)
    const twins: string[] = []
    for (const [path] of Object.entries(files)) {
      const twin = join(outside, path.replace(/^src\/vault\//, 'vault/'))
      await mkdir(join(twin, '..'), { recursive: true })
      await writeFile(twin, `export const OUTSIDE_CANARY_${twins.length} = 1\n`)
      twins.push(twin)
    }
    await rm(join(repo, 'src', 'vault'), { recursive: true })
    await symlink(join(outside, 'vault'), join(repo, 'src', 'vault'))
    await rm(join(repo, 'src', 'deep'), { recursive: true })
    await symlink(join(outside, 'src', 'deep'), join(repo, 'src', 'deep'))
    await rm(join(repo, 'lib'), { recursive: true })
    await symlink(join(outside, 'lib'), join(repo, 'lib'))
    const probes = await Promise.all(twins.map(readProbe))

    const id = await workspace('linked')
    const texts: string[] = []
    for (const q of ['leak key', 'leak key deep', 'leak key abs']) {
      texts.push((await okJson(await brief(id, q), 200)).text)
    }
    const outsideSymbols = texts.join('\n').split('OUTSIDE_CANARY').length - 1
    const armed = probes.every((p) => p.armed)
    const outsideReads = armed
      ? (await Promise.all(probes.map((p) => p.wasRead()))).filter(Boolean).length
      : 'not measurable (no access times)'
    figures.linkedBrief = {
      listedThroughLinks: twins.length,
      briefs: texts.length,
      outsideSymbols,
      outsideFilesRead: outsideReads,
    }
    assert.equal(outsideSymbols, 0, texts.join('\n'))
    if (armed) assert.equal(outsideReads, 0)
  })

  test('a flood of briefs keeps three gits in flight, and a client that leaves stops its git', async () => {
    const flood = await makeRepository(join(dir, 'root', 'flood'), {
      'src/flood-thing.ts': 'export const floodThing = 1\n',
    })
    await slowGitStatus(flood, 0.43)
    await writeFile(join(flood, 'src', 'flood-thing.ts'), 'export const floodThing = 2\n')
    const floodId = await workspace('flood')
    let peakGit = 0
    const sampler = setInterval(() => (peakGit = Math.max(peakGit, sleepers(0.43).length)), 5)
    const statuses: Record<string, number> = {}
    try {
      await Promise.all(
        Array.from({ length: FLOOD }, async (_, i) => {
          const res = await brief(floodId, `flood thing ${i}`)
          let key = '200'
          if (res.status === 200) await okJson(res)
          else key = `${res.status} ${(await errorJson(res)).error.code}`
          statuses[key] = (statuses[key] ?? 0) + 1
        }),
      )
    } finally {
      clearInterval(sampler)
    }

    const slow = await makeRepository(join(dir, 'root', 'leaving'), {
      'src/leaving-thing.ts': 'export const leavingThing = 1\n',
    })
    await slowGitStatus(slow, 7.19)
    await writeFile(join(slow, 'src', 'leaving-thing.ts'), 'export const leavingThing = 2\n')
    const slowId = await workspace('leaving')
    const client = new AbortController()
    const request = brief(slowId, 'leaving thing', client.signal).catch((e: Error) => e)
    await until(() => sleepers(7.19).length > 0, 10_000, 'the brief’s git to start')
    const abortedAt = Date.now()
    client.abort()
    await request
    let gitStoppedMs: number | string
    try {
      await until(() => sleepers(7.19).length === 0, 5_000, 'the git to stop')
      gitStoppedMs = Date.now() - abortedAt
    } catch {
      gitStoppedMs = 'still running after 5 s'
    }
    figures.briefFlood = { concurrent: FLOOD, cap: CAP, peakGitInFlight: peakGit, statuses }
    figures.cancelledBrief = { gitStoppedMs }

    assert.ok(peakGit <= CAP, `${peakGit} gits in flight`)
    assert.equal(
      (statuses['200'] ?? 0) + (statuses['503 REPO_BRIEF_BUSY'] ?? 0),
      FLOOD,
      JSON.stringify(statuses),
    )
    // Three run and twelve wait; only what is past that bound may be refused.
    assert.ok((statuses['503 REPO_BRIEF_BUSY'] ?? 0) <= Math.max(0, FLOOD - 15))
    assert.equal(typeof gitStoppedMs, 'number', String(gitStoppedMs))
    assert.ok((gitStoppedMs as number) < 2_000, `${gitStoppedMs} ms`)
  })

  test('file parts naming URLs are refused and nothing connects, over further turns', async () => {
    const listeners = await startLoopbackListeners()
    try {
      const hosts = [`127.0.0.1:${listeners.tcp4}`]
      if (listeners.tcp6) hosts.push(`[::1]:${listeners.tcp6}`)
      const named = hosts.flatMap((h) => [`http://${h}/f`, `https://${h}/f`])
      const sessionId = await createSession(url)
      const message = (extra: object, parts: unknown[] = []) => ({
        id: `u_${Math.random().toString(36).slice(2)}`,
        role: 'user',
        parts: [{ type: 'text', text: 'see attached' }, ...parts],
        ...extra,
      })
      const attempts = named.flatMap((u) => [
        message({}, [{ type: 'file', mediaType: 'image/png', url: u }]),
        message({}, [{ type: 'file', mediaType: 'text/plain', url: u, filename: 'a.txt' }]),
        message({}, [{ type: 'image', image: u }]),
        message({ experimental_attachments: [{ url: u, contentType: 'image/png' }] }),
      ])
      const statuses: Record<number, number> = {}
      const send = (m: unknown) =>
        fetch(
          `${url}/api/chat`,
          json(
            { sessionId, workspaceId: 'wsp_default', model: 'test/model', message: m },
            { method: 'POST' },
          ),
        )
      for (const attempt of attempts) {
        const res = await send(attempt)
        statuses[res.status] = (statuses[res.status] ?? 0) + 1
        if (res.ok) await readUiStream(res)
        else await res.text()
      }
      for (let i = 0; i < FURTHER_TURNS; i++) {
        const res = await send(message({}))
        assert.equal(res.status, 200)
        await readUiStream(res)
      }
      await new Promise((r) => setTimeout(r, 300))
      figures.fileParts = {
        attempts: attempts.length,
        statuses,
        furtherTurns: FURTHER_TURNS,
        connections: listeners.total(),
        received: listeners.received,
      }
      assert.deepEqual(statuses, { 400: attempts.length })
      assert.equal(listeners.total(), 0, JSON.stringify(listeners.received))
    } finally {
      await listeners.close()
    }
  })

  test('revisions past int4 are 400s, at the contract and at the statement', async () => {
    const id = await createSession(url)
    const statuses: Record<number, number> = {}
    const save = async (revision: number) => {
      const res = await fetch(
        `${url}/api/sessions/${id}`,
        json({ revision, messages: [] }, { method: 'PUT' }),
      )
      statuses[res.status] = (statuses[res.status] ?? 0) + 1
      await res.text()
    }
    const values = [2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 63, -(2 ** 31) - 1]
    for (const revision of values) await save(revision)
    // A session at the largest revision: its save's `revision + 1` overflows in PostgreSQL.
    await stack.database.db.execute(
      sql`update popagent_sessions set revision = 2147483647 where id = ${id}`,
    )
    await save(2_147_483_647)
    figures.revisionOverflow = { requests: values.length + 1, statuses }
    assert.deepEqual(statuses, { 400: values.length + 1 })
  })

  test('model errors quoting secrets leave a host process only redacted, as JSON lines', async () => {
    const host = await startCanaryHost()
    try {
      await observeSoon(host)
      let observerCalls = 0
      let run: 'echo' | 'drop' = 'echo'
      host.respond((kind) => {
        if (kind === 'observer')
          return observerCalls++ % 2 === 0
            ? { status: 500, message: `observer refused ${host.key} ${host.token}` }
            : { text: '<observations>\n- noted\n</observations>' }
        if (run === 'echo') return { status: 401, message: `bad key ${host.key} (${host.token})` }
        return { text: ['a', 'b'], dropAfterChunks: 1 }
      })
      for (let round = 0; round < LLM_ROUNDS; round++) {
        const sessionId = await host.newSession()
        run = 'echo'
        assert.equal(await host.turn(sessionId, 'many words '.repeat(1_500)), 200)
        run = 'drop'
        assert.equal(await host.turn(sessionId, 'a stream that breaks'), 200)
      }
      const errors = () => host.mastraLines().filter((l) => l.level === 'error')
      await until(() => errors().length >= 3 * LLM_ROUNDS, 10_000, 'Mastra’s lines').catch(() => {})
      figures.llmErrors = {
        rounds: LLM_ROUNDS,
        secretHits: host.secretHits(),
        linesPastTheLogger: host.foreignLines().length,
        mastraErrorLines: errors().length,
      }
      assert.equal(host.secretHits(), 0)
      assert.deepEqual(host.foreignLines().slice(0, 20), [])
      assert.ok(errors().length >= 3 * LLM_ROUNDS, `${errors().length} Mastra error lines`)
    } finally {
      await host.stop()
    }
  })
})
