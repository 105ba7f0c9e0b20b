/**
 * "No key" is never the default: without POPAGENT_API_KEY, popagent generates a key into the
 * data directory (private, created without following anything planted there), reuses it, and
 * refuses a key file someone else could have chosen or read, saying how to fix it. End to end,
 * `POPAGENT_API_KEY=` starts with the generated key and, its stdout not a terminal, names the key
 * file and prints no link and no key anywhere; the CLI verbs find the key in the data directory.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import {
  chmod,
  chown,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { loadOrCreateApiKey, readApiKeyFile, resolveApiKey } from '../cli/api-key-file.ts'
import { loginLines } from '../cli/login.ts'
import { runCli, startCli } from './support/process.ts'
import { until, waitFor } from './support/until.ts'

const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8).padStart(4, '0')

describe('the API key file', () => {
  let root: string
  let n = 0
  const fresh = async () => {
    const dir = join(root, `data-${n++}`)
    await mkdir(dir, { mode: 0o700 })
    return dir
  }
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'popagent-key-'))
  })
  after(() => rm(root, { recursive: true, force: true }))

  test('is created private with 32 random bytes on first use and reused after', async () => {
    const dataDir = join(root, 'new', 'data')
    const first = await loadOrCreateApiKey(dataDir)
    assert.match(first.key, /^[A-Za-z0-9_-]{43}$/)
    assert.deepEqual(first.source, { path: join(dataDir, 'api-key'), created: true })
    assert.equal(await mode(join(dataDir, 'api-key')), '0600')
    assert.equal(await mode(dataDir), '0700')
    assert.equal((await readFile(join(dataDir, 'api-key'), 'utf8')).trim(), first.key)
    const again = await loadOrCreateApiKey(dataDir)
    assert.equal(again.key, first.key)
    assert.deepEqual(again.source, { path: join(dataDir, 'api-key'), created: false })
    assert.deepEqual(await readdir(dataDir), ['api-key'], 'no temporary file is left behind')
    assert.notEqual((await loadOrCreateApiKey(await fresh())).key, first.key)
  })

  test('starts racing on one data directory agree on one key', async () => {
    const dataDir = await fresh()
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateApiKey(dataDir)))
    assert.equal(new Set(keys.map((k) => k.key)).size, 1)
    assert.equal(keys.filter((k) => k.source !== 'env' && k.source.created).length, 1)
  })

  test('POPAGENT_API_KEY wins, and then no file is made', async () => {
    const dataDir = await fresh()
    const key = await resolveApiKey('configured-key-0123456789', dataDir)
    assert.deepEqual(key, { key: 'configured-key-0123456789', source: 'env' })
    assert.equal(await readApiKeyFile(dataDir), undefined)
  })

  test('a symbolic link is refused, never followed or replaced, whether or not it dangles', async () => {
    const dataDir = await fresh()
    const target = join(root, 'somewhere-else')
    await writeFile(target, 'attacker-chosen-key-0123456789\n', { mode: 0o600 })
    await symlink(target, join(dataDir, 'api-key'))
    for (const load of [() => readApiKeyFile(dataDir), () => loadOrCreateApiKey(dataDir)]) {
      await assert.rejects(load, /is a symbolic link.*rm .*api-key/)
    }
    const dangling = await fresh()
    const nowhere = join(root, 'not-yet-there')
    await symlink(nowhere, join(dangling, 'api-key'))
    await assert.rejects(loadOrCreateApiKey(dangling), /symbolic link/)
    assert.equal(existsSync(nowhere), false, 'nothing was written through the link')
    assert.equal(await readFile(target, 'utf8'), 'attacker-chosen-key-0123456789\n')
  })

  test('a key file others can read or write is refused, with chmod 600 as the fix', async () => {
    for (const bits of [0o640, 0o604, 0o620, 0o602]) {
      const dataDir = await fresh()
      await loadOrCreateApiKey(dataDir)
      await chmod(join(dataDir, 'api-key'), bits)
      await assert.rejects(
        loadOrCreateApiKey(dataDir),
        new RegExp(`mode is 0${bits.toString(8)}.*chmod 600 .*api-key.*POPAGENT_API_KEY`),
      )
    }
  })

  test('a data directory others can write is refused before any key is written into it', async () => {
    for (const bits of [0o770, 0o707, 0o777]) {
      const dataDir = await fresh()
      await chmod(dataDir, bits)
      await assert.rejects(
        loadOrCreateApiKey(dataDir),
        new RegExp(`refusing to keep the API key in .*mode is 0${bits.toString(8)}.*chmod 700`),
      )
      assert.deepEqual(await readdir(dataDir), [])
    }
  })

  test(
    'a key file owned by another user is refused',
    { skip: process.getuid?.() !== 0 && 'needs root to chown' },
    async () => {
      const dataDir = await fresh()
      await loadOrCreateApiKey(dataDir)
      await chown(join(dataDir, 'api-key'), 65534, 65534)
      await assert.rejects(readApiKeyFile(dataDir), /belongs to uid 65534, not to you \(uid 0\)/)
    },
  )

  test('a directory, a FIFO or a file without a key is refused without hanging', async () => {
    const directory = await fresh()
    await mkdir(join(directory, 'api-key'))
    await assert.rejects(readApiKeyFile(directory), /not a regular file/)
    const fifo = await fresh()
    assert.equal(spawnSync('mkfifo', ['-m', '600', join(fifo, 'api-key')]).status, 0)
    await assert.rejects(readApiKeyFile(fifo), /not a regular file/)
    const short = await fresh()
    await writeFile(join(short, 'api-key'), 'short\n', { mode: 0o600 })
    await assert.rejects(readApiKeyFile(short), /no key of 16 or more characters/)
  })
})

test('a terminal is shown the sign-in link; anything else only where the key file is', () => {
  const url = 'http://127.0.0.1:3000'
  const key = 'k'.repeat(43)
  const apiKey = (created: boolean) => ({ key, source: { path: '/data/api-key', created } })
  for (const created of [true, false]) {
    const lines = loginLines({ url, apiKey: apiKey(created), terminal: true })
    assert.equal(lines.at(-1), `sign in: ${url}/#key=${key}`)
    const piped = loginLines({ url, apiKey: apiKey(created), terminal: false }).join('\n')
    assert.ok(piped.includes('the API key is in /data/api-key; open http://127.0.0.1:3000/'))
    assert.ok(!piped.includes(key) && !piped.includes('#key='), piped)
  }
})

describe('popagent start without POPAGENT_API_KEY', () => {
  let dataDir: string
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'popagent-keyed-start-'))
  })
  after(() => rm(dataDir, { recursive: true, force: true }))

  test('POPAGENT_API_KEY= starts with a generated key, names its file but prints no link off a terminal, and the CLI finds the key', async () => {
    const env = {
      POPAGENT_DATA_DIR: dataDir,
      PORT: '0',
      POPAGENT_API_KEY: '',
      NINEROUTER_URL: 'http://127.0.0.1:1/v1',
    }
    const first = await startCli(['start'], env)
    let key: string
    try {
      // stdout is a pipe here, as under a service manager: a journal must not keep the key.
      await waitFor(() => /the API key is in /.test(first.output()) || undefined)
      key = (await readFile(join(dataDir, 'api-key'), 'utf8')).trim()
      assert.ok(
        first
          .output()
          .includes(
            `generated an API key: the API key is in ${dataDir}/api-key; open ${first.url}/ and enter it`,
          ),
        first.output(),
      )
      assert.doesNotMatch(first.output(), /#key=|sign in:/)
      assert.ok(!first.output().includes(key), 'the key is in no line of the output')
      assert.equal(await mode(join(dataDir, 'api-key')), '0600')

      assert.equal((await fetch(`${first.url}/api/health`)).status, 401)
      const health = await fetch(`${first.url}/api/health`, { headers: { 'x-popagent-key': key } })
      assert.equal(health.status, 200)

      // The CLI verbs read the key from the data directory…
      const listed = runCli(['tasks'], { POPAGENT_URL: first.url, POPAGENT_DATA_DIR: dataDir })
      assert.equal(await listed.exited, 0, listed.output())
      // …and say where to find it when they cannot.
      const elsewhere = await mkdtemp(join(tmpdir(), 'popagent-no-key-'))
      const refused = runCli(['tasks'], { POPAGENT_URL: first.url, POPAGENT_DATA_DIR: elsewhere })
      assert.equal(await refused.exited, 1)
      assert.match(
        refused.output(),
        /needs an API key .*set POPAGENT_API_KEY, or POPAGENT_DATA_DIR/,
      )
      await rm(elsewhere, { recursive: true, force: true })
    } finally {
      assert.equal(await first.stop(), 0)
    }

    // A restart reuses the key and, off a terminal, names the file the same way.
    const second = await startCli(['start'], env)
    try {
      await until(() => /the API key is in/.test(second.output()))
      assert.doesNotMatch(second.output(), /#key=/)
      assert.match(second.output(), new RegExp(`the API key is in ${dataDir}/api-key; open`))
      const health = await fetch(`${second.url}/api/health`, { headers: { 'x-popagent-key': key } })
      assert.equal(health.status, 200)
    } finally {
      assert.equal(await second.stop(), 0)
    }
  })
})
