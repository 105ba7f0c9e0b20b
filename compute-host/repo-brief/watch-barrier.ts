import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  unlinkSync,
  watch,
  writeFileSync,
  type FSWatcher,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isProcessAlive } from '../process-alive.ts'

const BARRIER_TIMEOUT_MS = 250
const PREFIX = 'popagent-brief-watch-'

/**
 * Resolves once every inotify event queued before the call has been delivered: a file is created
 * in a private directory this process watches, and its report comes after theirs. False when the
 * report did not come in time (then nothing is skipped).
 */
export function createWatchBarrier() {
  let dir: string | undefined
  let watcher: FSWatcher | undefined
  let next = 0
  const waiting = new Map<string, () => void>()

  const open = () => {
    if (watcher) return watcher
    removeStale()
    dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`))
    watcher = watch(dir, { persistent: false }, (_event, name) => {
      const name_ = name?.toString()
      if (name_) waiting.get(name_)?.()
    })
    watcher.on('error', () => close())
    return watcher
  }
  const close = () => {
    watcher?.close()
    watcher = undefined
    for (const done of waiting.values()) done()
    if (dir) rmSync(dir, { recursive: true, force: true })
    dir = undefined
  }

  return {
    async pass(): Promise<boolean> {
      try {
        open()
      } catch {
        return false
      }
      const name = `b${next++}`
      const reported = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), BARRIER_TIMEOUT_MS)
        waiting.set(name, () => {
          clearTimeout(timer)
          resolve(watcher !== undefined)
        })
      })
      const path = join(dir!, name)
      try {
        writeFileSync(path, '', { flag: 'wx' })
      } catch {
        waiting.delete(name)
        return false
      }
      const passed = await reported
      waiting.delete(name)
      try {
        unlinkSync(path)
      } catch {
        // The directory went with close(): nothing to remove.
      }
      return passed
    },
    close,
  }
}

/**
 * Removes the barrier directories of processes that are gone (a host killed outright cannot remove
 * its own): only directories, only this user's, only under a name that carries a pid no process
 * has now.
 */
function removeStale() {
  let names: string[]
  try {
    names = readdirSync(tmpdir()).filter((name) => name.startsWith(PREFIX))
  } catch {
    return
  }
  for (const name of names) {
    const pid = Number(name.slice(PREFIX.length).split('-')[0])
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || isProcessAlive(pid))
      continue
    try {
      const path = join(tmpdir(), name)
      const info = lstatSync(path)
      if (info.isDirectory() && info.uid === process.getuid?.()) {
        rmSync(path, { recursive: true, force: true })
      }
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}
