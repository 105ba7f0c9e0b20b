import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { isProcessAlive } from '../process-alive.ts'

/**
 * Refuses to open an embedded data directory that another live process already holds: two PGlite
 * instances on one directory would corrupt it. A lock left by a dead process is taken over.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true })
  const file = join(dataDir, 'popagent.pid')
  const holder = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10)
  if (Number.isInteger(holder) && holder !== process.pid && isProcessAlive(holder)) {
    throw new Error(
      `the embedded database in ${dataDir} is in use by process ${holder}; stop it first, or set POPAGENT_DATA_DIR to another directory`,
    )
  }
  await writeFile(file, String(process.pid))
  return () => rm(file, { force: true })
}
