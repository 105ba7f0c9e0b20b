/**
 * The stack the process faults run on: an application and an observability database on a given
 * PostgreSQL server, the scripted gateway behind the recording proxy, a workspace root, and
 * compute hosts as separate `popagent host` processes that a test may kill and start again.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseHandle } from '../../../../compute-host/database/handle.ts'
import { startScriptedGateway } from '../../../support/scripted-gateway.ts'
import { startHostProcess, type HostProcess } from './host-process.ts'
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.ts'
import { configureTasks, holdAnswers, MODEL } from './task-load.ts'
import { openFaultDatabases } from './fault-databases.ts'

export type FaultStackOptions = {
  /** The PostgreSQL server to create the databases on (the suite's own when unset). */
  server?: string
  hosts: number
  leaseMs: number
  concurrency: number
  pollMs: number
  holdMs: { min: number; max: number }
}

export type FaultStack = {
  handle: DatabaseHandle
  proxy: RecordingProxy
  /** The hosts now serving, by slot; a slot is refilled by `restartHost`. */
  hosts: HostProcess[]
  /** Every host process ever started, for the final checks and the clean-up. */
  everyHost: HostProcess[]
  restartHost(slot: number): Promise<HostProcess>
  stop(): Promise<void>
}

export async function startFaultStack(options: FaultStackOptions): Promise<FaultStack> {
  const cleanup: Array<() => Promise<unknown>> = []
  const stop = async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {})
  }
  try {
    const { application, observability, handle } = await openFaultDatabases(cleanup, options.server)
    await configureTasks(handle.db, options)

    const gateway = await startScriptedGateway({ models: [{ id: MODEL, contextWindow: 32_768 }] })
    cleanup.push(() => gateway.close())
    holdAnswers(gateway, options.holdMs)
    const proxy = await startRecordingProxy(gateway.url)
    cleanup.push(() => proxy.close())

    const workspaceRoot = await mkdtemp(join(tmpdir(), 'popagent-faults-'))
    cleanup.push(() => rm(workspaceRoot, { recursive: true, force: true }))
    // The default workspace's directory (data migration 0002).
    await mkdir(join(workspaceRoot, 'popagent'))

    const everyHost: HostProcess[] = []
    // Registered before any host starts, so a host that started is always stopped.
    cleanup.push(() => Promise.all(everyHost.map((h) => h.stop())))
    const hostEnv = {
      databaseUrl: application.url,
      observabilityUrl: observability.url,
      gatewayUrl: proxy.url,
      workspaceRoot,
      leaseMs: options.leaseMs,
    }
    const launch = async (slot: number) => {
      const host = await startHostProcess(`host-${slot}`, hostEnv)
      everyHost.push(host)
      return host
    }
    // One after the other: two hosts initialising Mastra's memory tables on a fresh database at
    // once race on CREATE INDEX (idx_om_lookup_key, 23505) and the loser exits (reported to the
    // lead). Restarts later meet tables that exist and do not race.
    const hosts: HostProcess[] = []
    for (let slot = 0; slot < options.hosts; slot++) hosts.push(await launch(slot))
    return {
      handle,
      proxy,
      hosts,
      everyHost,
      async restartHost(slot) {
        hosts[slot] = await launch(slot)
        return hosts[slot]
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}
