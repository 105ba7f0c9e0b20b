import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { link, mkdir, open, unlink } from 'node:fs/promises'
import { resolve } from 'node:path'
import { ConfigError } from '../compute-host/env.ts'

/**
 * The generated API key, kept in the data directory so that "no key" is never the default: the
 * first `popagent start` (or `popagent edge`) without POPAGENT_API_KEY creates it, later starts
 * and the CLI verbs read it. A key someone else could have chosen or read is refused, with the fix.
 */
export const API_KEY_FILE = 'api-key'

/**
 * One generated key kept in the data directory: its file, the variable that takes its place,
 * what it is called in messages, how a new one is made and what a valid one looks like. The API
 * key and the vault's key (secret-key-file.ts) are both kept this way.
 */
export type KeyFileSpec = {
  file: string
  variable: string
  what: string
  generate: () => string
  /** Why a read key is unusable (finishes "it holds …"), or undefined when it is fine. */
  problem: (key: string) => string | undefined
}

const API_KEY: KeyFileSpec = {
  file: API_KEY_FILE,
  variable: 'POPAGENT_API_KEY',
  what: 'API key',
  // 32 random bytes: 43 base64url characters, safe in a URL fragment and a header.
  generate: () => randomBytes(32).toString('base64url'),
  problem: (key) => (key.length < 16 ? 'no key of 16 or more characters' : undefined),
}

export type ApiKey = {
  key: string
  /** Where it came from: the environment, or the key file (absolute path). */
  source: 'env' | { path: string; created: boolean }
}

/** POPAGENT_API_KEY when set, else the data directory's key file, created when missing. */
export async function resolveApiKey(
  configured: string | undefined,
  dataDir: string,
): Promise<ApiKey> {
  if (configured !== undefined) return { key: configured, source: 'env' }
  return loadOrCreateApiKey(dataDir)
}

export const loadOrCreateApiKey = (dataDir: string): Promise<ApiKey> =>
  loadOrCreateKeyFile(dataDir, API_KEY)

export async function loadOrCreateKeyFile(dataDir: string, spec: KeyFileSpec): Promise<ApiKey> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  await checkDirectory(dataDir, spec)
  const path = resolve(dataDir, spec.file)
  for (let attempt = 1; ; attempt++) {
    const existing = await readKeyFile(dataDir, spec)
    if (existing !== undefined) return { key: existing, source: { path, created: false } }
    const key = spec.generate()
    if (await publish(path, `${key}\n`)) return { key, source: { path, created: true } }
    // Another start published its key between our read and our link: use theirs.
    if (attempt >= 3) throw new ConfigError(`could not create the ${spec.what} file ${path}`)
  }
}

/**
 * The data directory must be the user's own and closed to others' writes before a key is read
 * from it or written into it: whoever can write it can swap the key file; it is left 0700. The
 * same rule as the embedded database's (compute-host/database/data-dir-permissions.ts, which
 * runs later in the start and repairs loose modes inside; the key file is judged before that
 * repair can hide a key that others could read).
 */
async function checkDirectory(dataDir: string, spec: KeyFileSpec): Promise<void> {
  const directory = await open(dataDir, constants.O_RDONLY | constants.O_DIRECTORY)
  try {
    const stat = await directory.stat()
    const uid = process.getuid?.()
    const where = resolve(dataDir)
    const refuse = (why: string) =>
      new ConfigError(`refusing to keep the ${spec.what} in ${where}: ${why}`)
    if (uid !== undefined && stat.uid !== uid) {
      throw refuse(
        `it belongs to uid ${stat.uid}, not to you (uid ${uid}); if it is yours to take, run chown -R ${uid} ${where}, otherwise set POPAGENT_DATA_DIR to a directory you own`,
      )
    }
    if ((stat.mode & 0o022) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(4, '0')
      throw refuse(
        `its mode is ${mode}, so other users could replace the key file; if nobody else could have, run chmod 700 ${where}`,
      )
    }
    // Only readable or enterable by others (a mkdir under umask 022): made 0700, as the
    // embedded database's start does with its data directory, on the path that has none.
    if ((stat.mode & 0o077) !== 0) await directory.chmod(stat.mode & 0o700)
  } finally {
    await directory.close()
  }
}

/**
 * Writes `text` to a new private file and links it into place, so the key file appears whole or
 * not at all (a concurrent reader never sees it half-written). The temporary file is created
 * with O_EXCL and the link fails on anything already at `path`, a symbolic link (even a
 * dangling one) included: a planted file or link is never followed or overwritten.
 */
async function publish(path: string, text: string): Promise<boolean> {
  const temporary = `${path}.${randomBytes(8).toString('hex')}.tmp`
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
  const file = await open(temporary, flags, 0o600)
  try {
    try {
      await file.writeFile(text)
      await file.sync()
    } finally {
      await file.close()
    }
    await link(temporary, path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  } finally {
    await unlink(temporary).catch(() => {})
  }
}

/**
 * The key in the data directory's key file, or undefined when there is none. Opened without
 * following links and without blocking (a planted FIFO would otherwise hang the start), then
 * checked on the open descriptor: a regular file, owned by this user, private to them.
 */
export const readApiKeyFile = (dataDir: string): Promise<string | undefined> =>
  readKeyFile(dataDir, API_KEY)

export async function readKeyFile(dataDir: string, spec: KeyFileSpec): Promise<string | undefined> {
  const path = resolve(dataDir, spec.file)
  const refuse = (why: string) =>
    new ConfigError(
      `refusing the ${spec.what} file ${path}: ${why}. Or set ${spec.variable} instead.`,
    )
  let file
  try {
    file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    if (code === 'ELOOP') {
      throw refuse(
        `it is a symbolic link, which is never followed; remove it (rm ${path}) and start popagent again to generate a new key`,
      )
    }
    throw error
  }
  try {
    const stat = await file.stat()
    if (!stat.isFile()) throw refuse(`it is not a regular file; remove it (rm -r ${path})`)
    const uid = process.getuid?.()
    if (uid !== undefined && stat.uid !== uid) {
      throw refuse(
        `it belongs to uid ${stat.uid}, not to you (uid ${uid}), so someone else may have chosen the key; remove it (rm ${path}) to generate a new one`,
      )
    }
    if ((stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(4, '0')
      throw refuse(
        `its mode is ${mode}, so other users can read or change it; if nobody else could have, run chmod 600 ${path}, otherwise remove it (rm ${path}) to generate a new key`,
      )
    }
    const key = (await file.readFile('utf8')).trim()
    const problem = spec.problem(key)
    if (problem) throw refuse(`it holds ${problem}; remove it (rm ${path}) to generate one`)
    return key
  } finally {
    await file.close()
  }
}
