/**
 * Runs one command in the shell's sandbox class from a Node process of another user (argv:
 * repository root, command, limits as JSON), printing the result as JSON. The process-count
 * limit is exempt for uid 0 in the kernel, so a test running as root proves it through this.
 */
import { BoundedSandbox } from '../../compute-host/workspaces/bounded-sandbox.ts'

const [root, command, limits] = process.argv.slice(2)
const sandbox = new BoundedSandbox({
  root: root!,
  env: { LANG: 'C.UTF-8' },
  limitMs: 30_000,
  limits: JSON.parse(limits!),
})
const result = await sandbox.executeCommand!('sh', ['-c', command!])
process.stdout.write(JSON.stringify({ exitCode: result.exitCode, stdout: result.stdout }))
