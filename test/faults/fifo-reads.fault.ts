/**
 * Fifos in the repository (issue 14, hole 7). The agent can `mkfifo` with its shell; a file
 * tool that opens one blocks until a writer comes, and four such opens fill libuv's four pool
 * threads, after which every file call of the host waits forever. Here the implementer, in a
 * real turn, reads four fifos at once (one model step asking for four reads), then searches and
 * lists the repository. (A write or edit of a fifo never gets that far: the tools' own
 * read-before-write gate refuses it first; test/file-tools-special-files.test.ts covers the
 * filesystem below it.) Meanwhile the test keeps making unrelated requests: a file read (the
 * pool) and an HTTP request to the running edge. Every fifo call must end with
 * the error naming the kind, the search must find the match in the regular file, and no
 * unrelated request may wait.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { closeSync, constants, openSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { recordFigures, sized } from './mode.ts'
import { runFileToolTurn, startFileToolStack } from './support/file-tool-turn.ts'

const FIFOS = ['pipe-a.ts', 'src/pipe-b.ts', 'src/pipe-c.md', 'notes.txt']
const PROBE_EVERY_MS = 20

test(
  'four fifo reads in a real turn end with a clear error while the host keeps answering',
  { timeout: 180_000 },
  async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-fault-fifo-')))
    const repo = join(dir, 'root', 'proj')
    await mkdir(join(repo, 'src'), { recursive: true })
    await writeFile(join(repo, 'src', 'a.ts'), 'export const needle = 1\n')
    for (const fifo of FIFOS) execFileSync('mkfifo', [join(repo, fifo)])
    const target = await startFileToolStack(join(dir, 'root'))
    // Unrelated requests, made all through the turn: their worst latency is the figure.
    const latency = { file: [] as number[], http: [] as number[] }
    let probing = true
    const probe = async (kind: 'file' | 'http', request: () => Promise<unknown>) => {
      while (probing) {
        const started = performance.now()
        await request()
        latency[kind].push(performance.now() - started)
        await new Promise((r) => setTimeout(r, PROBE_EVERY_MS))
      }
    }
    const probes = Promise.all([
      probe('file', () => readFile(join(repo, 'src', 'a.ts'))),
      probe('http', () => fetch(`${target.url}/api/health`).then((r) => r.text())),
    ])
    try {
      const rounds = sized(1, 5)
      const turns = []
      for (let round = 0; round < rounds; round++) {
        turns.push(
          await runFileToolTurn(
            target,
            [
              FIFOS.map((path) => ({ name: 'workspace-read', arguments: { path } })),
              [
                { name: 'workspace-search', arguments: { pattern: 'needle', path: '.' } },
                { name: 'workspace-list', arguments: { path: '.' } },
              ],
            ],
            sized(30_000, 60_000),
          ),
        )
        if (!turns.at(-1)!.finished) break
      }
      probing = false
      // Whatever is still stuck on a fifo is let go, so the probes and the stack can finish.
      releaseFifos(repo)
      await probes

      const reads = turns.flatMap((t) => t.calls.filter((c) => c.tool === 'workspace-read'))
      const ended = reads.filter((c) => c.status === 'failed' && /is a fifo/.test(c.error ?? ''))
      const search = turns.flatMap((t) => t.calls.filter((c) => c.tool === 'workspace-search'))
      const list = turns.flatMap((t) => t.calls.filter((c) => c.tool === 'workspace-list'))
      const max = (values: number[]) => Math.round(Math.max(0, ...values))
      const figures = {
        turns: `${turns.filter((t) => t.finished).length}/${rounds} finished`,
        fifoReadsEndedWithError: `${ended.length}/${rounds * FIFOS.length}`,
        msToEachReadError: reads.map((c) => c.durationMs ?? null),
        maxLatencyDuringTurnMs: { fileRead: max(latency.file), httpToEdge: max(latency.http) },
        unrelatedRequests: latency.file.length + latency.http.length,
        searchFoundMatch: search.every((c) => /src\/a\.ts:1:/.test(String(c.output))),
        specialFilesListed: list.filter((c) => FIFOS.some((f) => String(c.output).includes(f)))
          .length,
        turnMs: turns.map((t) => t.ms),
        readErrorExample: reads[0]?.error,
      }
      await recordFigures('fifo-reads', figures)

      assert.ok(
        turns.every((t) => t.finished),
        `a turn hung: ${JSON.stringify(figures)}`,
      )
      assert.equal(ended.length, rounds * FIFOS.length, JSON.stringify(reads))
      // The four reads run at once and end in any order: each fifo is named by its own read.
      for (const fifo of FIFOS) {
        const named = `regular files only: "${fifo}" is a fifo (named pipe)`
        assert.ok(
          reads.some((c) => c.error?.includes(named)),
          `${fifo}: ${JSON.stringify(reads)}`,
        )
      }
      assert.ok(figures.searchFoundMatch, JSON.stringify(search))
      assert.equal(figures.specialFilesListed, 0, JSON.stringify(list))
      // Generous ceilings for a shared machine: a blocked pool makes these unbounded, not slow.
      assert.ok(figures.maxLatencyDuringTurnMs.fileRead < 2_000, JSON.stringify(figures))
      assert.ok(figures.maxLatencyDuringTurnMs.httpToEdge < 5_000, JSON.stringify(figures))
    } finally {
      probing = false
      releaseFifos(repo)
      await target.stack.stop()
      await rm(dir, { recursive: true, force: true })
    }
  },
)

/** A non-blocking write-side open completes any open still waiting for a writer. */
function releaseFifos(repo: string) {
  for (let round = 0; round < 8; round++) {
    for (const fifo of FIFOS) {
      try {
        closeSync(openSync(join(repo, fifo), constants.O_WRONLY | constants.O_NONBLOCK))
      } catch {}
    }
  }
}
