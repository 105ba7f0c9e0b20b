import { lstatSync, mkdirSync } from 'node:fs'
import { constants, enableCompileCache } from 'node:module'
import { join } from 'node:path'

/**
 * Keeps V8's compiled code of popagent's modules between starts (Node's module compile cache):
 * loading the module graph was most of a restart (about 1.9 s of 4.2 s on a two-core machine),
 * and reading compiled code back took about 0.3 s off it.
 *
 * The cache lives beside the install, in `node_modules/.cache/popagent-compile`, not in the
 * shared temporary directory that is Node's default: compiled code in it runs as popagent, so
 * it must be exactly as private as the code it comes from. It is created 0700, and used only when
 * it is a real directory owned by this user that nobody else can use, in a `.cache` nobody else
 * can write; otherwise (a read-only install, a directory someone else made) popagent starts
 * without it, only slower. An operator's
 * NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE is left to Node.
 */
export function enableOwnCompileCache(
  installRoot: string,
  env: Record<string, string | undefined>,
): 'enabled' | 'left to the environment' | 'not private' | 'not writable' {
  if (env.NODE_COMPILE_CACHE !== undefined || env.NODE_DISABLE_COMPILE_CACHE !== undefined) {
    return 'left to the environment'
  }
  const parent = join(installRoot, 'node_modules', '.cache')
  const dir = join(parent, 'popagent-compile')
  try {
    // The shared `.cache` (and `node_modules`, when missing) with the usual modes; ours 0700.
    mkdirSync(parent, { recursive: true })
    mkdirSync(dir, { mode: 0o700 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return 'not writable'
  }
  const uid = process.getuid?.()
  try {
    // Ours: a real directory of this user that only this user can use. Its parent: one nobody
    // else can write, or the cache could be renamed away and another put in its place.
    const cache = lstatSync(dir)
    const above = lstatSync(parent)
    const mine = uid === undefined || cache.uid === uid
    const trustedAbove = uid === undefined || above.uid === uid || above.uid === 0
    if (!cache.isDirectory() || !mine || (cache.mode & 0o077) !== 0) return 'not private'
    if (!above.isDirectory() || !trustedAbove || (above.mode & 0o022) !== 0) return 'not private'
  } catch {
    return 'not private'
  }
  return enableCompileCache(dir).status === constants.compileCacheStatus.FAILED
    ? 'not writable'
    : 'enabled'
}
