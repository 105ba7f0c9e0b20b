/**
 * Where the vault's key comes from: the environment; on the embedded database a key generated
 * once into the data directory (mode 0600, reused); never made up for a real PostgreSQL, where
 * `popagent host` and `popagent start` refuse to start without one and say how to make it.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { resolveSecretKey } from '../cli/secret-key-file.ts'
import { runCli } from './support/process.ts'

test('on the embedded database a key is generated into the data directory once, private to its owner', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'popagent-secret-key-'))
  try {
    const first = await resolveSecretKey({ POPAGENT_DATA_DIR: dataDir })
    assert.equal(Buffer.from(first, 'base64').length, 32)
    const file = join(dataDir, 'secret-key')
    assert.equal((await readFile(file, 'utf8')).trim(), first)
    assert.equal(((await stat(file)).mode & 0o777).toString(8), '600')
    assert.equal(await resolveSecretKey({ POPAGENT_DATA_DIR: dataDir }), first)
    // The environment wins, and nothing is written for it.
    const given = Buffer.alloc(32, 1).toString('base64')
    assert.equal(
      await resolveSecretKey({ POPAGENT_DATA_DIR: dataDir, POPAGENT_SECRET_KEY: given }),
      given,
    )
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
})

test('a real-database deployment without POPAGENT_SECRET_KEY is refused with the fix', async () => {
  await assert.rejects(
    resolveSecretKey({
      POPAGENT_DATA_DIR: '/nonexistent',
      DATABASE_URL: 'postgres://x@127.0.0.1/x',
    }),
    /POPAGENT_SECRET_KEY is required with DATABASE_URL: .*openssl rand -base64 32/,
  )
  const env = {
    DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    OBSERVABILITY_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/other',
    POPAGENT_HOST_TOKEN: 'x'.repeat(20),
  }
  for (const verb of ['host', 'start']) {
    const run = runCli([verb], env)
    assert.equal(await run.exited, 1, run.output())
    assert.match(run.output(), /POPAGENT_SECRET_KEY is required with DATABASE_URL/)
  }
})
