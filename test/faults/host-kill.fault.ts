/**
 * `kill -9` of real compute hosts under task load. Two `popagent host` processes share one queue;
 * at random moments one of them is killed while it holds claims and is started again. Every task
 * must complete (an interruption is transient: the work is queued again at its original due
 * time, ahead of newer work), no task may run twice at once (overlapping model requests for one
 * marker), and the time from a kill to the first interrupted task running again is measured and
 * must stay within two leases (bounded by the lease, not by the backlog).
 */
import assert from 'node:assert/strict'
import { and, eq, inArray, or } from '../../db/drizzle-orm.ts'
import { test } from 'node:test'
import { tasks } from '../../db/schema/index.ts'
import { until } from '../support/until.ts'
import { percentile } from '../../bench/stats.ts'
import { faultMode, recordFigures, sized } from './mode.ts'
import { startFaultStack } from './support/process-faults/fault-stack.ts'
import { concurrentDuplicates } from './support/process-faults/recording-proxy.ts'
import {
  account,
  attemptFailures,
  enqueueMarked,
  everyTaskFinal,
} from './support/process-faults/task-load.ts'

const TASKS = sized(100, 1_000)
const KILLS = sized(3, 20)
const LEASE_MS = 1_500

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const between = (min: number, max: number) => min + Math.floor(Math.random() * (max - min))

type Kill = { host: string; at: number; orphans: string[]; releasedMs: number }

test(
  `kill -9 of compute hosts under load (${faultMode}: ${KILLS} kills, ${TASKS} tasks)`,
  { timeout: sized(150_000, 1_200_000) },
  async () => {
    const stack = await startFaultStack({
      hosts: 2,
      leaseMs: LEASE_MS,
      concurrency: 4,
      pollMs: 250,
      holdMs: { min: 50, max: 200 },
    })
    const { db } = stack.handle
    try {
      const ids: string[] = []
      const feed = async (count: number) => {
        const from = ids.length
        ids.push(...(await enqueueMarked(db, from, count)).map((r) => r.id))
      }
      // Work arrives in portions, one before each kill, so every kill lands in load.
      const portion = Math.ceil(TASKS / (KILLS + 1))
      const kills: Kill[] = []
      for (let k = 0; k < KILLS; k++) {
        await feed(portion)
        await sleep(between(300, 1_500))
        const slot = between(0, stack.hosts.length)
        const victim = stack.hosts[slot]!
        // Kill it while it holds claims (bounded wait: a quiet moment is a legal kill too).
        const claims = () =>
          db
            .select({ title: tasks.title })
            .from(tasks)
            .where(
              and(
                eq(tasks.claimedBy, victim.runnerId),
                or(eq(tasks.state, 'running'), eq(tasks.state, 'cancelling')),
              ),
            )
        await until(async () => (await claims()).length > 0, 10_000, 'claims to kill').catch(
          () => {},
        )
        const at = Date.now()
        await victim.kill()
        const orphans = (await claims()).map((r) => r.title)
        // The dead host's claims are given back once their lease runs out; watched while the
        // host restarts.
        const released = until(async () => (await claims()).length === 0, 30_000, 'release').then(
          () => Date.now() - at,
        )
        await stack.restartHost(slot)
        kills.push({ host: victim.name, at, orphans, releasedMs: await released })
      }
      await feed(TASKS - ids.length)

      await until(() => everyTaskFinal(db, ids), sized(90_000, 600_000), 'every task to end')

      const outcome = await account(db, ids)
      const duplicates = concurrentDuplicates(stack.proxy.calls)
      // Recovery: from a kill to the first model request of a task that kill interrupted.
      const recoveryMs = kills.flatMap((kill) => {
        const starts = stack.proxy.calls
          .filter((c) => c.start > kill.at && kill.orphans.includes(c.marker))
          .map((c) => c.start - kill.at)
        return starts.length ? [Math.min(...starts)] : []
      })
      // Replayed though no kill interrupted it: a live host's lease lapsed and its work was taken
      // from it. Recovery exists for dead hosts; for user work this repeats side effects.
      const interrupted = new Set(kills.flatMap((k) => k.orphans))
      const spurious = (await db.select().from(tasks).where(inArray(tasks.id, ids))).filter(
        (t) => t.attemptCount > 1 && !interrupted.has(t.title),
      )
      const logged = (message: string) =>
        stack.everyHost.reduce((n, host) => n + host.logged(message), 0)
      const released = kills.filter((k) => k.orphans.length > 0).map((k) => k.releasedMs)
      const figures = {
        tasks: ids.length,
        kills: kills.length,
        killsWithClaims: kills.filter((k) => k.orphans.length > 0).length,
        interruptedTasks: kills.reduce((n, k) => n + k.orphans.length, 0),
        completed: outcome.completed,
        remediations: outcome.remediations.length,
        replays: outcome.replays,
        spuriousReplays: spurious.length,
        lost: outcome.lost.length,
        concurrentDuplicates: duplicates.length,
        modelRequests: stack.proxy.calls.length,
        // Kill → the dead host's claims requeued (bounded by the lease) …
        releasedMs: {
          p50: percentile(released, 50),
          max: percentile(released, 100),
        },
        // … → the first of them running again (its first model request; includes queue wait).
        recoveryMs: { p50: percentile(recoveryMs, 50), max: percentile(recoveryMs, 100) },
        leaseMs: LEASE_MS,
        unknownShare: attemptFailures(stack.everyHost).unknownShare,
        // From the hosts' logs: claims recovered from a host that was gone (or silent past its
        // lease), and attempts a live host lost that way (its lease lapsed while it still ran).
        recoveredClaims: logged('task recovered'),
        claimsLostByLiveHosts: logged('task claim lost before its attempt ended; nothing written'),
      }
      await recordFigures('host-kill', figures)

      assert.deepEqual(
        outcome.lost.map((t) => `${t.title} ${t.state} ${t.lastErrorClass}`),
        [],
        'lost tasks',
      )
      assert.deepEqual(duplicates, [], 'a task ran twice at once')
      // A host stalled past its lease on a starved machine may lose a claim legitimately (seen:
      // 2 in a short run on two busy cores). A runner that loses more work than the kills
      // interrupt is broken (seen: 316 with 122 interrupted, from a runner change in progress).
      assert.ok(
        spurious.length <= interrupted.size,
        `${spurious.length} tasks replayed that no kill interrupted (live hosts lost claims): ${spurious
          .slice(0, 5)
          .map((t) => `${t.title} attempts ${t.attemptCount}: ${t.lastError ?? ''}`)
          .join('; ')}`,
      )
      assert.ok(figures.killsWithClaims > 0, 'no kill interrupted any work: the fault was idle')
      assert.ok(recoveryMs.length > 0, 'no interrupted task was seen running again')
      assert.ok(
        Math.max(...recoveryMs) <= 2 * LEASE_MS,
        `the first replay after a kill came after ${Math.max(...recoveryMs)} ms, over 2 leases (${2 * LEASE_MS} ms): ${recoveryMs.join(', ')}`,
      )
      // Each interrupted task was replayed: its attempt count moved on from the killed attempt.
      assert.ok(outcome.replays >= 1)
      for (const host of stack.hosts) assert.ok(host.alive(), `${host.name} died unasked`)
    } finally {
      await stack.stop()
    }
  },
)
