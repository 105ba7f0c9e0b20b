/**
 * The vault's canaries (X4 with the one redaction layer): values stored as secrets in a host
 * process, then a tour that uses them — pasted into a prompt raw and encoded, echoed back by a
 * hook, and answered by the model split across stream chunks, over two turns so the first turn's
 * memory is sent to the model again. Everything that leaves or stays is then scanned for every
 * encoding of every canary with a scanner of its own (support/secret-forms.ts): each response,
 * the stream (text reassembled across chunks), what the model gateway received, the host's
 * output and every table of the database. The scan first proves it finds a planted canary.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import postgres from 'postgres'
import { checkSandbox } from '../compute-host/workspaces/sandbox-check.ts'
import { json } from './support/app.ts'
import { startCanaryHost, type CanaryHost } from './support/canary-host.ts'
import { leaksIn } from './support/secret-forms.ts'
import { readUiStream, streamedText } from './support/ui-stream.ts'

const sandbox = await checkSandbox()
const canary = (label: string) =>
  `vault-${label} "q\\ /+= ü🔑 ${randomBytes(9).toString('base64url')} ${label}-end`
const CANARIES = [canary('a'), canary('b'), canary('c')]
const [A, B, C] = CANARIES as [string, string, string]

/** Every row of every table as JSON, one line each (what a dump of the data would hold). */
async function tableText(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const tables = await sql<{ s: string; t: string }[]>`
      select table_schema as s, table_name as t from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`
    let text = ''
    for (const { s, t } of tables) {
      const rows = await sql.unsafe(`select row_to_json(x)::text as j from "${s}"."${t}" x`)
      for (const row of rows) text += `${s}.${t} ${row.j}\n`
    }
    return text
  } finally {
    await sql.end({ timeout: 5 })
  }
}

describe('vault canaries through hooks and turns', () => {
  let host: CanaryHost
  const seen: string[] = []
  const request = async (path: string, init?: RequestInit) => {
    const res = await host.edge.request(path, init)
    const text = await res.text()
    seen.push(text, JSON.stringify([...res.headers]))
    return { status: res.status, body: text ? JSON.parse(text) : undefined }
  }
  before(async () => {
    host = await startCanaryHost()
  })
  after(() => host?.stop())

  test('the scan finds a canary planted in a table and in a file, so zero hits mean something', async () => {
    const sql = postgres(host.databaseUrl, { max: 1, onnotice: () => {} })
    const dir = await mkdtemp(join(tmpdir(), 'popagent-canary-plant-'))
    try {
      await sql`create table canary_plant (note jsonb, line text)`
      await sql`insert into canary_plant values (${sql.json({ nested: { value: A } })}, ${`x ${B} y`})`
      const planted = leaksIn(await tableText(host.databaseUrl), [A, B])
      assert.ok(
        planted.some((l) => l.startsWith('value 0')) &&
          planted.some((l) => l.startsWith('value 1')),
        planted.join(),
      )
      await writeFile(join(dir, 'plant.log'), Buffer.from(`auth ${C}`).toString('base64'))
      assert.ok(leaksIn(await readFile(join(dir, 'plant.log'), 'utf8'), [`auth ${C}`]).length > 0)
    } finally {
      await sql`drop table if exists canary_plant`
      await sql.end({ timeout: 5 })
      await rm(dir, { recursive: true, force: true })
    }
  })

  test('stored, used in prompts, hooks and answers: no encoding of any canary is found anywhere', async () => {
    for (const [i, value] of CANARIES.entries()) {
      const created = await request(
        '/api/secrets',
        json({ name: `CANARY_${i}`, value }, { method: 'POST' }),
      )
      assert.equal(created.status, 201, JSON.stringify(created.body))
    }
    if (sandbox.available) {
      // A hook that echoes the whole event it was given back as context for the model.
      const echo = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.stringify({decision:'allow',additionalContext:'ECHO '+s.slice(0,6000)})))`
      const hook = await request(
        '/api/hooks',
        json(
          {
            name: 'echo',
            event: 'UserPromptSubmit',
            kind: 'command',
            command: ['node', '-e', echo],
          },
          { method: 'POST' },
        ),
      )
      assert.equal(hook.status, 201, JSON.stringify(hook.body))
    }
    host.respond((kind) => {
      if (kind === 'observer') return { text: '<observations>\n- nothing\n</observations>' }
      // The model echoes a canary, split across three chunks, and another in hex.
      return {
        text: [
          `noted ${A.slice(0, 9)}`,
          A.slice(9, 20),
          `${A.slice(20)} and ${Buffer.from(C).toString('hex')}`,
        ],
      }
    })
    const session = await request('/api/sessions', json({}, { method: 'POST' }))
    const sessionId = session.body.id as string
    const chunks: unknown[] = []
    for (const text of [
      `use ${A} and ${Buffer.from(B).toString('base64')} and ${encodeURIComponent(C)}`,
      `again: ${JSON.stringify(B)}`,
    ]) {
      const res = await host.edge.request(
        '/api/chat',
        json(
          {
            sessionId,
            workspaceId: 'wsp_default',
            model: 'test/model',
            message: {
              id: `u_${randomBytes(6).toString('hex')}`,
              role: 'user',
              parts: [{ type: 'text', text }],
            },
          },
          { method: 'POST' },
        ),
      )
      assert.equal(res.status, 200)
      const turn = await readUiStream(res)
      chunks.push(...turn)
      // The streamed text, reassembled across its chunks: the split canary would show here.
      seen.push(streamedText(turn))
      assert.match(streamedText(turn), /\[REDACTED\]/)
    }
    seen.push(JSON.stringify(chunks))
    await request(`/api/sessions/${sessionId}`)
    await request(`/api/sessions/${sessionId}/hooks`)
    await request('/api/secrets')
    const runs = (await request(`/api/sessions/${sessionId}/hooks`)).body.runs as unknown[]
    if (sandbox.available) assert.equal(runs.length, 2, 'the echo hook ran on both turns')

    const places: Record<string, string> = {
      'API responses and the stream': seen.join('\n'),
      'requests to the model': JSON.stringify(host.requests().map((r) => r.body)),
      'host output': host.cli.output(),
      'database tables': await tableText(host.databaseUrl),
    }
    for (const [where, text] of Object.entries(places)) {
      assert.ok(text.length > 0, `nothing was read from ${where}`)
      assert.deepEqual(leaksIn(text, CANARIES), [], `a canary in ${where}`)
    }
    // The model did get the turns (redacted), so the tour did reach it.
    assert.ok(host.requests().length >= 2)
  })
})
