/**
 * `kill -9` of a real `popagent host` while its evolution worker waits on a reflection (issue 39:
 * "a worker killed mid-reflection leaves no partial change"). The scripted gateway holds the
 * reflector's answer, so the kill lands with the model call in flight and the signals claimed by
 * the dead host. Then, before any host runs again: no overlay, skill, fact, proposal or revision
 * was written, and the signals are still `claimed` by the dead host. A fresh host, whose
 * reflections are answered at once, must take the signals back once the lease ran out and process
 * them exactly once: one revision citing them, one overlay, one more reflection, their attempts
 * counting the killed one. Measured: from the kill to the signals being processed (bounded by
 * the lease plus a pass interval, plus the new host's start).
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { REFLECTOR_MARKER } from '../../compute-host/evolution/reflection.ts'
import { eq, inArray } from '../../db/drizzle-orm.ts'
import {
  agentRuntimeSettings,
  agentSkills,
  autonomySettings,
  evolutionProposals,
  evolutionRevisions,
  evolutionSignals,
  learnedOverlays,
  memories,
} from '../../db/schema/index.ts'
import { recordSignal } from '../../runtime/evolution/signals.ts'
import { messagesOf } from '../support/chat.ts'
import { startScriptedGateway, type RecordedRequest } from '../support/scripted-gateway.ts'
import { waitFor } from '../support/until.ts'
import { faultMode, recordFigures, sized } from './mode.ts'
import { startHostProcess, type HostProcess } from './support/process-faults/host-process.ts'
import { openFaultDatabases } from './support/process-faults/fault-databases.ts'

// A host start is most of this scenario's time: short mode kills once.
const KILLS = sized(1, 3)
const LEASE_MS = 2_000
const INTERVAL_MS = 300
// Longer than the kill takes to land: the answer never reaches the killed host.
const HELD_MS = 5_000
const ROUTE = 'remote/reflector'
const CATALOG = ['smaller-steps', 'vary-or-stop', 'respect-denials'] as const

const isReflector = (r: RecordedRequest) => JSON.stringify(messagesOf(r)).includes(REFLECTOR_MARKER)

test(
  `kill -9 of a host mid-reflection (${faultMode}: ${KILLS} kills)`,
  { timeout: sized(60_000, 180_000) },
  async () => {
    const began = Date.now()
    const cleanup: Array<() => Promise<unknown>> = []
    try {
      const { application, observability, handle } = await openFaultDatabases(cleanup)
      const { db } = handle
      await db.update(autonomySettings).set({ evolutionEnabled: true })
      await db
        .update(agentRuntimeSettings)
        .set({ modelSource: 'configured', configuredModel: ROUTE })

      const gateway = await startScriptedGateway({ models: [{ id: ROUTE }] })
      cleanup.push(() => gateway.close())
      // What the reflector answers: held (the host is killed meanwhile), or at once.
      let hold = true
      let catalogId: string = CATALOG[0]
      gateway.respondWith((r) => {
        if (!isReflector(r)) return { text: 'done' }
        const cited = [...JSON.stringify(messagesOf(r)).matchAll(/Signal (evs_[0-9A-Z]+)/g)]
        const text = JSON.stringify({
          strategy: 'overlay-apply',
          catalogId,
          factKey: null,
          fact: null,
          evidenceSignalIds: cited.map((m) => m[1]),
          confidence: 0.9,
          rationale: 'scripted',
        })
        return hold ? { text, delayMs: HELD_MS } : { text }
      })
      const reflections = () => gateway.requests.filter(isReflector).length

      const workspaceRoot = await mkdtemp(join(tmpdir(), 'popagent-faults-'))
      cleanup.push(() => rm(workspaceRoot, { recursive: true, force: true }))
      await mkdir(join(workspaceRoot, 'popagent'))
      const hostEnv = {
        databaseUrl: application.url,
        observabilityUrl: observability.url,
        gatewayUrl: gateway.url,
        workspaceRoot,
        leaseMs: 30_000,
        extra: {
          POPAGENT_EVOLUTION_INTERVAL_MS: String(INTERVAL_MS),
          POPAGENT_EVOLUTION_LEASE_MS: String(LEASE_MS),
        },
      }
      const everyHost: HostProcess[] = []
      cleanup.push(() => Promise.all(everyHost.map((h) => h.stop())))
      const hostStartsMs: number[] = []
      const launch = async () => {
        const started = Date.now()
        const host = await startHostProcess(`host-${everyHost.length}`, hostEnv)
        hostStartsMs.push(Date.now() - started)
        everyHost.push(host)
        return host
      }

      const learned = async () => ({
        overlays: (await db.select().from(learnedOverlays)).length,
        revisions: (await db.select().from(evolutionRevisions)).length,
        proposals: (await db.select().from(evolutionProposals)).length,
        skills: (await db.select().from(agentSkills).where(eq(agentSkills.evolutionManaged, true)))
          .length,
        facts: (await db.select().from(memories).where(eq(memories.owner, 'evolution'))).length,
      })
      const setupMs = Date.now() - began
      let host = await launch()
      const recoveryMs: number[] = []
      let partialWrites = 0
      let duplicateRevisions = 0
      for (let k = 0; k < KILLS; k++) {
        // Held from the start: the running host may claim the signal as soon as it exists.
        hold = true
        catalogId = CATALOG[k]!
        const asked = reflections()
        const before = await learned()
        // The same failure in two runs: one signal, two traces (an overlay's evidence minimum).
        let signalId = ''
        for (let i = 0; i < 2; i++) {
          ;({ id: signalId } = await recordSignal(
            db,
            {
              agentId: 'orchistrator',
              kind: 'task-failed',
              failureClass: 'task-error',
              traceId: randomBytes(16).toString('hex'),
              goal: `kill round ${k}`,
              result: { failure: 'it did not work' },
              subject: `kill round ${k}`,
            },
            (t) => t,
          ))
        }
        const signal = { id: signalId }
        // The reflection is in flight: the gateway has its request and holds the answer.
        await waitFor(() => (reflections() > asked ? true : undefined), 20_000, 'the reflection')
        const [claimed] = await db
          .select()
          .from(evolutionSignals)
          .where(eq(evolutionSignals.id, signal.id))
        assert.equal(claimed?.status, 'claimed')
        assert.equal(claimed?.claimedBy, host.runnerId, 'claimed by the host about to die')
        const killedAt = Date.now()
        await host.kill()

        // Nothing of the change exists, and the claim is the dead host's until its lease ends.
        const after = await learned()
        if (JSON.stringify(after) !== JSON.stringify(before)) partialWrites++
        assert.deepEqual(after, before, 'nothing was written by the killed reflection')
        const [orphan] = await db
          .select()
          .from(evolutionSignals)
          .where(eq(evolutionSignals.id, signal.id))
        assert.equal(orphan?.status, 'claimed')

        hold = false
        host = await launch()
        await waitFor(
          async () => {
            const [row] = await db
              .select()
              .from(evolutionSignals)
              .where(eq(evolutionSignals.id, signal.id))
            return row?.status === 'processed' ? true : undefined
          },
          sized(30_000, 60_000),
          'the signal processed by the new host',
        )
        recoveryMs.push(Date.now() - killedAt)

        const [done] = await db
          .select()
          .from(evolutionSignals)
          .where(eq(evolutionSignals.id, signal.id))
        const citing = (await db.select().from(evolutionRevisions)).filter((r) =>
          r.signalIds.includes(signal.id),
        )
        if (citing.length > 1) duplicateRevisions += citing.length - 1
        assert.equal(citing.length, 1, 'processed exactly once: one revision cites the signal')
        assert.equal(done?.attempts, 2, 'the killed attempt counts')
        assert.match(done?.outcome ?? '', new RegExp(`overlay-apply .*: ${citing[0]!.id}$`))
        const overlays = await db
          .select()
          .from(learnedOverlays)
          .where(inArray(learnedOverlays.catalogId, [catalogId]))
        assert.equal(overlays.length, 1)
        assert.equal(overlays[0]!.headRevisionId, citing[0]!.id)
        assert.deepEqual(await learned(), { ...before, overlays: k + 1, revisions: k + 1 })
      }

      const figures = {
        kills: KILLS,
        leaseMs: LEASE_MS,
        intervalMs: INTERVAL_MS,
        reflections: reflections(),
        partialWrites,
        duplicateRevisions,
        // Kill → the signals processed by a fresh host (its start, the lease, a pass).
        recoveryMs,
        hostStartsMs,
        setupMs,
      }
      await recordFigures('evolution-kill', figures)
      assert.equal(partialWrites, 0)
      assert.equal(duplicateRevisions, 0)
      // One held reflection per kill and one answered one per recovery.
      assert.equal(figures.reflections, 2 * KILLS)
      assert.ok(host.alive(), `${host.name} died unasked: ${host.lastWords()}`)
    } finally {
      for (const step of cleanup.reverse()) await step().catch(() => {})
    }
  },
)
