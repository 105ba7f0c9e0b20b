/**
 * The embedded database's files on disk (issue 14, hole 5). PGlite unpacks its cluster with
 * mode 0666, system catalogs included, so on a shared machine any local user could rewrite the
 * database. `popagent start` runs as a person would run it, on a data directory it creates, takes
 * writes through the API, stops, and starts again (each start rewrites some files); after each
 * step the whole data directory is walked: nothing in it may be readable or writable by group or
 * other. Then a data directory that others could write (made group- or other-writable before
 * popagent ever saw it) must be refused at start with the fix named, untouched; as root, one owned
 * by another user too.
 */
import assert from 'node:assert/strict'
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { readApiKeyFile } from '../../cli/api-key-file.ts'
import { runCli, startCli, type RunningCli } from '../support/process.ts'
import { recordFigures, sized } from './mode.ts'

const BASE_ENV = { PORT: '0', NINEROUTER_URL: 'http://127.0.0.1:1/v1' }

type Walk = { entries: number; openToOthers: string[]; modes: Record<string, number> }

/** Every directory and file below `dataDir` (itself included), by mode, links not followed. */
async function walk(dataDir: string): Promise<Walk> {
  const result: Walk = { entries: 0, openToOthers: [], modes: {} }
  const see = async (path: string) => {
    const stats = await lstat(path)
    if (stats.isSymbolicLink()) return
    const mode = stats.mode & 0o777
    const key = `${stats.isDirectory() ? 'dir' : 'file'} ${mode.toString(8).padStart(4, '0')}`
    result.modes[key] = (result.modes[key] ?? 0) + 1
    result.entries++
    if (mode & 0o077) result.openToOthers.push(path)
  }
  await see(dataDir)
  for (const entry of await readdir(dataDir, { recursive: true, withFileTypes: true })) {
    await see(join(entry.parentPath, entry.name))
  }
  return result
}

async function waitHealthy(url: string, key: string) {
  for (;;) {
    const res = await fetch(`${url}/api/health`, { headers: { 'x-popagent-key': key } }).catch(
      () => undefined,
    )
    if (res?.status === 200) return
    await new Promise((r) => setTimeout(r, 50))
  }
}

test(
  'popagent start keeps every file of the embedded database private, through writes and restarts',
  { timeout: 240_000 },
  async () => {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'popagent-fault-modes-')))
    // Not made here: popagent creates it, as on a first start.
    const dataDir = join(base, 'data')
    const env = { ...BASE_ENV, POPAGENT_DATA_DIR: dataDir }
    const started: RunningCli[] = []
    try {
      const walks: Record<string, Walk> = {}
      const writes = sized(20, 200)
      const first = await startCli(['start'], env)
      started.push(first)
      const key = (await readApiKeyFile(dataDir))!
      assert.ok(key, 'no API key file was made')
      await waitHealthy(first.url, key)
      const headers = { 'content-type': 'application/json', 'x-popagent-key': key }
      for (let i = 0; i < writes; i++) {
        const created = await fetch(`${first.url}/api/sessions`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ title: `session ${i} ${'x'.repeat(150)}` }),
        })
        assert.equal(created.status, 201, await created.text())
      }
      walks.running = await walk(dataDir)
      assert.equal(await first.stop(), 0, first.output())
      walks.stopped = await walk(dataDir)

      const again = await startCli(['start'], env)
      started.push(again)
      await waitHealthy(again.url, key)
      walks.restarted = await walk(dataDir)
      assert.equal(await again.stop(), 0, again.output())
      walks.restartStopped = await walk(dataDir)

      // The worst of the four walks (running, stopped, restarted, stopped again).
      const openToOthers = Math.max(...Object.values(walks).map((w) => w.openToOthers.length))
      await recordFigures('file-modes', {
        worldOrGroupAccessibleFiles: openToOthers,
        walks: Object.keys(walks).length,
        entriesWalked: walks.stopped!.entries,
        modesSeen: walks.restartStopped!.modes,
        dataDirMode: ((await lstat(dataDir)).mode & 0o777).toString(8),
        apiKeyFileMode: ((await lstat(join(dataDir, 'api-key'))).mode & 0o777).toString(8),
        sessionsWritten: writes,
        examples: Object.values(walks)
          .flatMap((w) => w.openToOthers)
          .slice(0, 3)
          .map((p) => p.slice(dataDir.length)),
      })
      for (const [when, result] of Object.entries(walks)) {
        assert.deepEqual(result.openToOthers.slice(0, 5), [], `open to others when ${when}`)
      }
      assert.equal((await lstat(dataDir)).mode & 0o777, 0o700)
    } finally {
      for (const cli of started) if (cli.child.exitCode === null) await cli.stop()
      await rm(base, { recursive: true, force: true })
    }
  },
)

test(
  'popagent start refuses a data directory others could write or own, naming the fix',
  { timeout: 120_000 },
  async () => {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'popagent-fault-refuse-')))
    const cases: { name: string; mode: number; owner?: number; fix: RegExp }[] = [
      { name: 'group-writable', mode: 0o770, fix: /chmod 700 / },
      { name: 'other-writable', mode: 0o757, fix: /chmod 700 / },
      { name: 'world-writable', mode: 0o777, fix: /chmod 700 / },
    ]
    if (process.getuid?.() === 0) {
      cases.push({ name: 'owned-by-nobody', mode: 0o700, owner: 65534, fix: /chown -R / })
    }
    const results: Record<string, { exit: unknown; named: boolean; untouched: boolean }> = {}
    try {
      for (const c of cases) {
        const dataDir = join(base, c.name)
        await mkdir(join(dataDir, 'app'), { recursive: true })
        await chmod(dataDir, c.mode)
        if (c.owner !== undefined) await chown(dataDir, c.owner, c.owner)
        const run = runCli(['start'], {
          ...BASE_ENV,
          POPAGENT_DATA_DIR: dataDir,
          POPAGENT_API_KEY: 'fault-api-key-0123456789abcdef',
        })
        // A start that is not refused keeps running: it is stopped after a while and counted.
        const exit = await Promise.race([
          run.exited,
          new Promise<'still running'>((r) => setTimeout(() => r('still running'), 30_000)),
        ])
        if (exit === 'still running') {
          run.child.kill('SIGKILL')
          await run.exited
        }
        results[c.name] = {
          exit,
          named: c.fix.test(run.output()) && run.output().includes(dataDir),
          untouched:
            JSON.stringify(await readdir(dataDir)) === '["app"]' &&
            ((await lstat(dataDir)).mode & 0o777) === c.mode,
        }
      }
      const refused = Object.values(results).filter((r) => r.exit === 1 && r.named).length
      await recordFigures('file-modes-refusal', {
        refused: `${refused}/${cases.length}`,
        results,
      })
      for (const [name, r] of Object.entries(results)) {
        assert.equal(r.exit, 1, `${name} was not refused`)
        assert.ok(r.named, `${name}: the fix is not named`)
        assert.ok(r.untouched, `${name}: the directory was changed`)
      }
    } finally {
      await rm(base, { recursive: true, force: true })
    }
  },
)
