/**
 * Fixtures for the repository brief's safety tests: throwaway git repositories, a git filter
 * that makes the brief's `git status` slow enough to be seen (and cancelled) in flight, a count
 * of those filters running on the machine, and a probe that tells whether a file outside the
 * repository was read.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'

export const git = (repo: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], {
    cwd: repo,
  })

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

/**
 * Makes every `git status` of the brief in `repo` sleep `seconds` in a clean filter for a
 * modified file (the filter runs inside the brief's git sandbox, where `sleep` exists). The
 * duration doubles as a marker for `sleepers`: make it unique per test.
 */
export async function slowGitStatus(repo: string, seconds: number) {
  git(repo, 'config', 'filter.slow.clean', `sleep ${seconds}; cat`)
  await writeFile(join(repo, '.gitattributes'), '*.ts filter=slow\n')
}

/** Ids of the `sleep <seconds>` processes running on this machine. */
export function sleepers(seconds: number): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0')
      if (argv[0]?.endsWith('sleep') && argv[1] === String(seconds)) found.push(Number(name))
    } catch {
      // The process ended while being looked at.
    }
  }
  return found
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Waits until `check` holds, polling every 20 ms, or throws after `ms`. */
export async function until(check: () => boolean, ms: number, what: string) {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await sleep(20)
  }
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
