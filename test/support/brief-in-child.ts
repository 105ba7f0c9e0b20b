/**
 * Builds one repository brief and prints it with whether this process may start another: run by
 * the brief's tests in a child process, under Node's permission model with child processes
 * forbidden, to show the brief needs none (no bubblewrap, no git).
 */
import { execFileSync } from 'node:child_process'
import { buildRepoBrief, formatRepoBrief } from '../../compute-host/repo-brief/brief.ts'

const [root, query] = process.argv.slice(2)
const brief = await buildRepoBrief(root!, query!)
let spawning = 'allowed'
try {
  execFileSync(process.execPath, ['-e', ''])
} catch (error) {
  spawning = String((error as NodeJS.ErrnoException).code)
}
process.stdout.write(JSON.stringify({ text: formatRepoBrief(brief), spawning }))
