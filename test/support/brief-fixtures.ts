/**
 * Fixtures for the repository brief's tests: throwaway git repositories, what real git says of
 * one (to hold the brief's own reader to it), a large file that makes the brief's status read
 * slow enough to be seen (and cancelled) in flight, a count of those reads, and a probe that
 * tells whether a file outside the repository was read.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readlinkSync } from 'node:fs'
import { mkdir, readFile, stat, truncate, utimes, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'

export const git = (repo: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], {
    cwd: repo,
    maxBuffer: 256 * 1024 * 1024,
    stdio: 'pipe',
  })

/**
 * What git itself says of `repo`, in the brief's terms: `ls-files --cached --others
 * --exclude-standard` (sorted, once each), porcelain v1 status per path (trimmed, as the brief
 * keeps it; an untracked entry after a tracked one for the same path wins, as in a Map), and
 * HEAD. Renames are not paired and changes inside submodules are not looked at, as the brief's
 * reader does neither. Git is told not to write the index, so asking changes nothing.
 */
export function gitSays(repo: string) {
  const run = (...args: string[]) =>
    execFileSync('git', ['-c', 'core.quotepath=off', ...args], {
      cwd: repo,
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' },
      maxBuffer: 256 * 1024 * 1024,
      stdio: 'pipe',
    }).toString('utf8')
  const listed = run('ls-files', '-z', '--cached', '--others', '--exclude-standard')
  const changes = new Map<string, string>()
  const status = run(
    'status',
    '--porcelain=v1',
    '-z',
    '--untracked-files=normal',
    '--no-renames',
    '--ignore-submodules=dirty',
  )
  for (const entry of status.split('\0')) {
    if (entry.length >= 4) changes.set(entry.slice(3), entry.slice(0, 2).trim())
  }
  let head: string | null = null
  try {
    head = run('rev-parse', '--verify', '-q', 'HEAD').trim() || null
  } catch {
    // No commit yet.
  }
  return {
    files: [...new Set(listed.split('\0').filter(Boolean))].sort(),
    changes: [...changes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    head,
  }
}

/** A repository holding `files` in one commit. */
export async function makeRepository(repo: string, files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(repo, path)), { recursive: true })
    await writeFile(join(repo, path), text)
  }
  git(repo, 'init', '-q')
  git(repo, 'add', '.')
  git(repo, 'commit', '-qm', 'initial')
  return repo
}

// About what SHA-1 gets through in a second on a slow, busy machine: the file takes a good
// fraction of `seconds` to hash, long enough to be seen in flight, short of the brief's deadline.
const BYTES_PER_SECOND = 256 * 1024 * 1024
const EMPTY_BLOB = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'

const slowFile = (seconds: number) => `slow-status-${seconds}.bin`

/**
 * Makes every status read of `repo` (each brief that is not a cache hit) slow: a sparse file of
 * `seconds` × 256 MiB is added to the index with no stat data, as `git update-index --cacheinfo`
 * leaves an entry, so every read must hash all of it to know whether it changed (git would too).
 * Its name carries `seconds`, which `sleepers` counts by: make it unique per test.
 */
export async function slowGitStatus(repo: string, seconds: number) {
  const name = slowFile(seconds)
  await writeFile(join(repo, name), '')
  await truncate(join(repo, name), Math.round(seconds * BYTES_PER_SECOND))
  git(repo, 'update-index', '--add', '--cacheinfo', `100644,${EMPTY_BLOB},${name}`)
}

/**
 * The status reads hashing `slowGitStatus(…, seconds)`'s file right now: this process's open
 * descriptors on it (the host runs in the test's process). Named for the `sleep` filters that
 * stood in for git before the brief stopped running git.
 */
export function sleepers(seconds: number): number[] {
  const found: number[] = []
  const name = `/${slowFile(seconds)}`
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).endsWith(name)) found.push(Number(fd))
    } catch {
      // Closed while being looked at.
    }
  }
  return found
}

/**
 * The most status reads of `slowGitStatus(…, seconds)`'s file seen in flight at once while
 * `work` ran, sampled every 5 ms: 0 when `work` read no status.
 */
export async function mostStatusReads(seconds: number, work: () => Promise<unknown>) {
  let most = 0
  const sampler = setInterval(() => (most = Math.max(most, sleepers(seconds).length)), 5)
  try {
    await work()
  } finally {
    clearInterval(sampler)
  }
  return most
}

/**
 * Tells whether `file` is read from now on, by its access time: set to the epoch, any read moves
 * it (relatime updates an atime older than the mtime). `armed` is false on a filesystem that
 * does not keep access times, where the probe cannot tell.
 */
export async function readProbe(file: string) {
  const reset = async () => {
    const { mtime } = await stat(file)
    await utimes(file, new Date(0), mtime)
  }
  const wasRead = async () => (await stat(file)).atimeMs > 0
  await reset()
  await readFile(file)
  const armed = await wasRead()
  await reset()
  return { armed, wasRead }
}
