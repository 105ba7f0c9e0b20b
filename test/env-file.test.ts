/**
 * `.env` in the working directory is read by the `popagent` command, the real environment wins
 * over it, and `.env.example` lists every variable the README's configuration table documents.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'

const ROOT = join(import.meta.dirname, '..')
const CLI = join(ROOT, 'cli', 'popagent.ts')

/** A loopback server that counts requests and answers an empty task list. */
async function listener(): Promise<{ server: Server; url: string; hits: () => number }> {
  let hits = 0
  const server = createServer((_req, res) => {
    hits++
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"tasks":[]}')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  return { server, url: `http://127.0.0.1:${port}`, hits: () => hits }
}

function runCli(cwd: string, env: Record<string, string>) {
  return new Promise<void>((resolve) => {
    const { POPAGENT_URL: _drop, ...base } = process.env
    execFile(process.execPath, [CLI, 'tasks', '--json'], { cwd, env: { ...base, ...env } }, () =>
      resolve(),
    )
  })
}

test('the popagent command reads .env from its working directory; the environment wins', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'popagent-env-file-'))
  const fromFile = await listener()
  const fromEnv = await listener()
  try {
    await writeFile(
      join(dir, '.env'),
      `POPAGENT_URL=${fromFile.url}\nPOPAGENT_API_KEY=x${'k'.repeat(20)}\n`,
    )
    await runCli(dir, {})
    assert.ok(fromFile.hits() > 0, 'the .env value was not used')
    const before = fromFile.hits()
    await runCli(dir, { POPAGENT_URL: fromEnv.url })
    assert.ok(fromEnv.hits() > 0, 'the environment did not win over .env')
    assert.equal(fromFile.hits(), before)
  } finally {
    fromFile.server.close()
    fromEnv.server.close()
    await rm(dir, { recursive: true, force: true })
  }
})

test('.env.example names every variable of the README configuration table', async () => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
  const table = readme.slice(
    readme.indexOf('## Configuration'),
    readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
  )
  const documented = [...table.matchAll(/^\| `([A-Z0-9_]+)`/gm)].map((m) => m[1]!)
  assert.ok(documented.length > 10, 'the README table was not found')
  const example = await readFile(join(ROOT, '.env.example'), 'utf8')
  const listed = new Set([...example.matchAll(/^(?:# )?([A-Z0-9_]+)=/gm)].map((m) => m[1]!))
  assert.deepEqual(
    documented.filter((v) => !listed.has(v)),
    [],
  )
})
