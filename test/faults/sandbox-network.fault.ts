/**
 * The shell tool's sandbox has no network. Counting listeners run on loopback in this process
 * (TCP and UDP on 127.0.0.1 and ::1, a unix socket under a temporary directory); probes run in
 * the bubblewrap sandbox the implementer's shell tool gets (createAgentWorkspace → BoundedSandbox,
 * called as Mastra's execute-command tool calls it). Nothing may arrive, the sandbox may list
 * no interface but `lo`, and the unix socket's path may not even be visible. The same probes run
 * first outside the sandbox, which must reach the listeners: the probes are proven able to fail
 * this test. Skipped, with the reason, where bubblewrap cannot run.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { createAgentWorkspace } from '../../compute-host/workspaces/agent-workspace.ts'
import { checkSandbox } from '../../compute-host/workspaces/sandbox-check.ts'
import { recordFigures } from './mode.ts'
import { probeThroughAgentTurn } from './support/process-faults/agent-shell-turn.ts'
import { startLoopbackListeners } from './support/process-faults/loopback-listeners.ts'
import { interfacesOf, networkProbes, type Probe } from './support/process-faults/network-probes.ts'

const sandboxStatus = await checkSandbox()
const run = promisify(execFile)

test(
  'the shell sandbox reaches nothing on loopback and sees only lo',
  { skip: !sandboxStatus.available && sandboxStatus.reason, timeout: 120_000 },
  async () => {
    const listeners = await startLoopbackListeners()
    const root = await realpath(await mkdtemp(join(tmpdir(), 'popagent-fault-sandbox-')))
    try {
      const probes = networkProbes(listeners)

      // Control: outside the sandbox the probes do reach the listeners.
      const control: Record<string, string> = {}
      for (const probe of probes) control[probe.name] = await outside(probe)
      const controlReceived = { ...listeners.received }
      assert.ok(
        listeners.received.tcp4,
        `the control reached no TCP listener: ${JSON.stringify(control)}`,
      )
      assert.ok(listeners.received.udp4, `the control sent no datagram: ${JSON.stringify(control)}`)
      assert.ok(
        listeners.received.unix,
        `the control reached no unix socket: ${JSON.stringify(control)}`,
      )
      listeners.reset()

      // The implementer's shell tool: a writable role holding `shell` gets the sandbox.
      const workspace = createAgentWorkspace({
        agentId: 'implementer',
        root,
        access: 'read-write',
        tools: ['shell'],
        sandboxAvailable: true,
        shellTimeoutMs: 20_000,
      })
      const sandbox = workspace?.sandbox
      assert.ok(sandbox?.executeCommand, 'the implementer was given no shell sandbox')
      const inside: Record<string, string> = {}
      for (const probe of probes) {
        const result = await sandbox.executeCommand(probe.script, [], { timeout: 15_000 })
        inside[probe.name] = `${result.stdout}${result.stderr}`.trim()
      }
      // Late datagrams or connections still count.
      await new Promise((r) => setTimeout(r, 500))

      const interfaces = interfacesOf(inside['interfaces-proc'] ?? '')
      const figures = {
        probes: probes.length,
        probesRun: Object.values(inside).filter((o) => o !== 'MISSING').length,
        connections: listeners.total(),
        received: listeners.received,
        interfaces,
        inside,
        control,
        controlReceived,
      }
      await recordFigures('sandbox-network', figures)

      assert.equal(
        listeners.total(),
        0,
        `the sandbox reached a listener: ${JSON.stringify(inside)}`,
      )
      for (const [name, output] of Object.entries(inside)) {
        assert.ok(!output.includes('REACHED'), `${name} reached its target: ${output}`)
      }
      assert.deepEqual(interfaces, ['lo'])
      if (inside['interfaces-ip'] !== 'MISSING') {
        assert.deepEqual(interfacesOf(inside['interfaces-ip'] ?? ''), ['lo'])
      }
      assert.equal(inside['unix-path-visible'], 'ABSENT', 'the unix socket is visible inside')
    } finally {
      await listeners.close()
      await rm(root, { recursive: true, force: true })
    }
  },
)

test(
  'the same probes through a real turn: the implementer shell tool reaches nothing',
  { skip: !sandboxStatus.available && sandboxStatus.reason, timeout: 120_000 },
  async () => {
    const listeners = await startLoopbackListeners()
    const root = await realpath(await mkdtemp(join(tmpdir(), 'popagent-fault-turn-')))
    try {
      const probes = networkProbes(listeners)
      const inside = await probeThroughAgentTurn(root, probes)
      await new Promise((r) => setTimeout(r, 500))
      const interfaces = interfacesOf(inside['interfaces-proc'] ?? '')
      await recordFigures('sandbox-network-turn', {
        probes: probes.length,
        probesAnswered: Object.keys(inside).length,
        connections: listeners.total(),
        received: listeners.received,
        interfaces,
        inside,
      })
      assert.deepEqual(Object.keys(inside).sort(), probes.map((p) => p.name).sort())
      assert.equal(
        listeners.total(),
        0,
        `the turn's shell reached a listener: ${JSON.stringify(inside)}`,
      )
      for (const [name, output] of Object.entries(inside)) {
        assert.ok(!output.includes('REACHED'), `${name} reached its target: ${output}`)
      }
      assert.deepEqual(interfaces, ['lo'])
      assert.equal(inside['unix-path-visible'], 'ABSENT', 'the unix socket is visible inside')
    } finally {
      await listeners.close()
      await rm(root, { recursive: true, force: true })
    }
  },
)

/** Runs a probe in a plain shell of this machine (the control). */
async function outside(probe: Probe): Promise<string> {
  const { stdout, stderr } = await run('sh', ['-c', probe.script], { timeout: 15_000 }).catch(
    (error: { stdout?: string; stderr?: string }) => ({
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  )
  return `${stdout}${stderr}`.trim()
}
