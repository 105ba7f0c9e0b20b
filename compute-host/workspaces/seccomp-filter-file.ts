import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { seccompProgram } from './seccomp-filter.ts'

let written: string | undefined

/**
 * The seccomp program as a file that every sandbox start opens as its fd 3 (sandbox-args.ts):
 * bubblewrap reads the program from a descriptor, and Mastra spawns with three pipes only, so
 * the descriptor is opened by a shell between the spawn and bubblewrap. Written once per process
 * into a new directory only this user can enter (mkdtemp, 0700; the file 0600), so no other
 * user can swap in a weaker program, and removed when the process exits. Written again when
 * something (a /tmp cleaner) removed it, so a long-running host keeps its shell.
 *
 * Synchronous because Mastra builds a command's argv synchronously; it costs one stat per
 * command after the first.
 */
export function seccompFilterFile(): string {
  if (written && existsSync(written)) return written
  const program = seccompProgram()
  const dir = mkdtempSync(join(tmpdir(), 'popagent-seccomp-'))
  const path = join(dir, 'filter.bpf')
  writeFileSync(path, program, { mode: 0o600, flag: 'wx' })
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  written = path
  return path
}
