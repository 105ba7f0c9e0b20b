import { constants, type Stats } from 'node:fs'
import { lstat, open, readdir, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { ConfigError } from '../env.ts'
import { lstatOrCreatePrivate } from '../private-directory.ts'

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants

/**
 * The embedded database's files are private to the user running popagent (issue 14, hole 5).
 * PGlite writes its cluster through Node's fs from inside its WASM filesystem, and measured on
 * @electric-sql/pglite 0.5.14 the cluster it unpacks on first start is 0666 (system catalogs
 * included) and `pg_internal.init` is rewritten 0644 on every start, set by explicit chmod
 * calls, so a umask changes nothing for them. Files PostgreSQL itself creates later (new
 * relations, WAL) are 0600; directories follow the umask. A process umask is not used: it would
 * also apply to every repository file the agents write and to their shell sandbox.
 *
 * So the rule, applied on every open of the embedded databases:
 *
 * - Refused, with the fix: a data directory owned by another user (`chown`), one that group or
 *   other can write (`chmod 700`), and a data directory that is a symbolic link owned by another
 *   user. Whoever could write it may already have replaced what is inside (a catalog, a whole
 *   subdirectory), and a repair of the modes would hide that; PostgreSQL refuses such a data
 *   directory for the same reason. Only the owner can judge, so the owner runs the fix.
 * - Repaired without asking: group/other bits on the data directory when it is only readable
 *   by them, and on everything inside it (directories 0700, files 0600 at most). Those loose
 *   modes are what PGlite itself wrote; inside a directory nobody else could write, nobody could
 *   have replaced an entry. An entry inside owned by another user is refused (`chown -R`).
 * - Links inside are never followed nor changed (lchmod semantics): each entry is opened with
 *   O_NOFOLLOW (and O_NONBLOCK, so a fifo cannot hold the start) and changed through its
 *   descriptor, after checking it is still the entry that was looked at.
 *
 * A missing data directory is created 0700. The repair runs before the databases open and again
 * after (the first start unpacks the cluster, each start rewrites `pg_internal.init`).
 */
export async function secureDataDir(dataDir: string): Promise<void> {
  const own = await lstatOrCreatePrivate(dataDir)
  const uid = currentUid()
  if (own.isSymbolicLink() && uid !== undefined && own.uid !== uid) {
    throw refusal(
      dataDir,
      `it is a symbolic link owned by uid ${own.uid}, not by you (uid ${uid}), who could point it anywhere; ` +
        `remove the link (rm ${dataDir}) or set POPAGENT_DATA_DIR to a directory you own`,
    )
  }
  // A link of ours is followed once: the directory it names is what gets checked and opened.
  const real = own.isSymbolicLink() ? await realpath(dataDir) : dataDir
  const directory = await open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOTDIR' || error.code === 'ELOOP') {
        throw refusal(dataDir, `it is not a directory; set POPAGENT_DATA_DIR to a directory`)
      }
      throw error
    },
  )
  try {
    const found = await directory.stat()
    if (uid !== undefined && found.uid !== uid) {
      throw refusal(
        dataDir,
        `it belongs to uid ${found.uid}, not to you (uid ${uid}); if it is yours to use, ` +
          `run chown -R ${uid} ${real}, otherwise set POPAGENT_DATA_DIR to a directory you own`,
      )
    }
    if ((found.mode & 0o022) !== 0) {
      throw refusal(
        dataDir,
        `its mode is ${modeOf(found)}, so other users can write into it and may have changed ` +
          `the database files; if nobody else could have, run chmod 700 ${real} ` +
          `(otherwise move it aside and start on a new data directory)`,
      )
    }
    if ((found.mode & 0o077) !== 0) await directory.chmod(found.mode & 0o700)
  } finally {
    await directory.close()
  }
  await repairDataDirModes(real)
}

/**
 * Takes group and other bits off every directory and file below `dir` (not `dir` itself), never
 * following a link. Answers how many entries were changed.
 */
export async function repairDataDirModes(dir: string): Promise<number> {
  const uid = currentUid()
  let repaired = 0
  const walk = async (path: string): Promise<void> => {
    const names = await readdir(path)
    await Promise.all(
      names.map(async (name) => {
        const entry = join(path, name)
        const seen = await lstat(entry).catch(() => undefined)
        // Links are skipped, never followed; fifos, sockets and devices are not PGlite's.
        if (!seen || !(seen.isFile() || seen.isDirectory())) return
        if (uid !== undefined && seen.uid !== uid) {
          throw refusal(
            dir,
            `${entry} belongs to uid ${seen.uid}, not to you (uid ${uid}); run chown -R ${uid} ${dir}`,
          )
        }
        if ((seen.mode & 0o077) !== 0 && (await tighten(entry, seen))) repaired++
        if (seen.isDirectory()) await walk(entry)
      }),
    )
  }
  await walk(dir)
  return repaired
}

/** chmod through a descriptor of the very entry that lstat saw; false when it changed since. */
async function tighten(path: string, seen: Stats): Promise<boolean> {
  const flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | (seen.isDirectory() ? O_DIRECTORY : 0)
  const handle = await open(path, flags).catch(() => undefined)
  if (!handle) return false
  try {
    const now = await handle.stat()
    if (now.ino !== seen.ino || now.dev !== seen.dev) return false
    await handle.chmod(now.mode & 0o700)
    return true
  } finally {
    await handle.close()
  }
}

function refusal(dataDir: string, why: string) {
  return new ConfigError(`refusing the embedded database directory ${dataDir}: ${why}`)
}

const currentUid = () => process.getuid?.()
const modeOf = (stats: Stats) => (stats.mode & 0o777).toString(8).padStart(4, '0')
