import { LocalSandbox } from '@mastra/core/workspace'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export type SandboxStatus = { available: true } | { available: false; reason: string }

const FIX =
  'install bubblewrap (apt install bubblewrap) and allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)'

/**
 * The start-up self-test of the shell sandbox: a bubblewrap sandbox must start a command, and
 * that command must see no network interface but `lo`. When it cannot, the shell tool is not
 * offered and reports this reason and the fix; a command never runs outside the sandbox.
 */
export async function checkSandbox(): Promise<SandboxStatus> {
  const dir = await mkdtemp(join(tmpdir(), 'popagent-sandbox-check-'))
  try {
    const sandbox = new LocalSandbox({
      workingDirectory: dir,
      isolation: 'bwrap',
      nativeSandbox: { allowNetwork: false },
    })
    const result = await sandbox.executeCommand!('cat', ['/proc/net/dev'], { timeout: 10_000 })
    if (result.exitCode !== 0) {
      return {
        available: false,
        reason: `bubblewrap could not run a command (exit ${result.exitCode}: ${result.stderr.trim().slice(0, 300)}); ${FIX}`,
      }
    }
    const interfaces = result.stdout
      .split('\n')
      .slice(2)
      .map((line) => line.split(':')[0]!.trim())
      .filter(Boolean)
    if (interfaces.join(',') !== 'lo') {
      return {
        available: false,
        reason: `the sandbox's network namespace has interfaces ${interfaces.join(', ')}; refusing to run commands with network access`,
      }
    }
    return { available: true }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return { available: false, reason: `${message.slice(0, 300)}; ${FIX}` }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
