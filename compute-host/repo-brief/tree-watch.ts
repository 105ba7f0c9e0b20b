import { watch, type FSWatcher } from 'node:fs'
import { treeFingerprint } from './fingerprint.ts'
import { createWatchBarrier } from './watch-barrier.ts'

/**
 * Tree fingerprints (fingerprint.ts) that skip the walk while nothing in the tree changed.
 *
 * The walk lstats every entry: about 15-20 ms of the event loop per brief for 2,400 files, paid on
 * every chat turn. While a repository is in use each of its walked directories (and `.git`,
 * `.git/info`) is watched with inotify; a repeat fingerprint is the last walk's when no watch
 * reported anything since that walk began. Each watch is placed before its directory is listed,
 * so a change is either seen by the walk's lstat or reported afterwards; a directory made later
 * is reported by its parent's watch, and the next walk watches it.
 *
 * "Nothing reported" must cover changes made just before the question, whose events may still be
 * queued unread: every watch of this process shares libuv's one inotify queue, which delivers in
 * order, so a file created in a private directory of our own (the barrier) is reported only after
 * everything queued before it. The check waits for that.
 *
 * inotify does not see every change: writes through a shared mapping, changes made by another
 * machine on a network filesystem, and events dropped when the kernel's queue overflows. So a
 * walk's fingerprint is trusted for `trustMs` at most (a tree in use is walked again in the
 * background every `trustMs / 2`, off the question's path), and a tree with more directories than
 * `maxDirectories`, or where a watch cannot be placed (the user's inotify limit), is walked every
 * time, as it was before. All trees together hold at most `maxDirectories` watches (the least
 * recently asked give theirs up first), and a tree not asked about for `idleMs` gives its up.
 * Watches follow nothing they are not given: a directory swapped for a link between listing and
 * watching watches the link's target, which can only cause an extra walk.
 */
export type WatchedFingerprints = {
  fingerprint(root: string, signal?: AbortSignal): Promise<string | undefined>
  /** Closes every watch and removes the barrier directory. */
  close(): void
  /** How many walks ran, and the repositories watched now with their watch counts (tests). */
  stats(): { walks: number; watched: Record<string, number> }
}

type Repository = {
  watches: Map<string, FSWatcher>
  /** Counts the watches' reports; a walk's fingerprint stands while it is unchanged. */
  generation: number
  last?: { fingerprint: string; generation: number; at: number }
  /** Why this tree is walked every time (too many directories, a watch that failed). */
  unwatched?: string
  /** The walk in flight: one per tree, so two walks never prune each other's new watches. */
  walking?: Promise<unknown>
  idle?: NodeJS.Timeout
  /** The next background walk, which keeps a tree in use within its trust period. */
  renewal?: NodeJS.Timeout
}

export function createWatchedFingerprints(
  options: {
    maxRepositories?: number
    /** Directories watched at most, across every tree. */
    maxDirectories?: number
    trustMs?: number
    idleMs?: number
    /** Told once when watching is off for a tree or for the host, with the reason. */
    onUnwatched?: (root: string | undefined, reason: string) => void
  } = {},
): WatchedFingerprints {
  const maxRepositories = options.maxRepositories ?? 4
  // inotify watches count against the user's limit (fs.inotify.max_user_watches, 8,192 on older
  // kernels) that the owner's editor shares: one cap for all the trees together.
  const maxDirectories = options.maxDirectories ?? 3_000
  const trustMs = options.trustMs ?? 60_000
  // A tree not asked about for this long gives its watches back.
  const idleMs = options.idleMs ?? 10 * 60_000
  const repositories = new Map<string, Repository>()
  const barrier = createWatchBarrier()
  let hostUnwatched: string | undefined
  let walks = 0
  let watching = 0
  let closed = false

  const unwatch = (repo: Repository) => {
    for (const w of repo.watches.values()) w.close()
    watching -= repo.watches.size
    repo.watches.clear()
    delete repo.last
  }
  // A tree being walked is never forgotten: its walk would go on placing watches nobody closes.
  const forget = (root: string) => {
    const repo = repositories.get(root)
    if (!repo || repo.walking) return
    unwatch(repo)
    clearTimeout(repo.idle)
    clearTimeout(repo.renewal)
    repositories.delete(root)
  }
  /** Makes room for one more watch by releasing the least recently used other trees. */
  const roomFor = (root: string) => {
    for (const other of repositories.keys()) {
      if (watching < maxDirectories) break
      if (other !== root) forget(other)
    }
    return watching < maxDirectories
  }
  const giveUp = (root: string, repo: Repository, reason: string) => {
    unwatch(repo)
    if (repo.unwatched) return
    repo.unwatched = reason
    options.onUnwatched?.(root, reason)
  }

  function watchDirectory(root: string, repo: Repository, dir: string) {
    if (repo.unwatched || repo.watches.has(dir)) return
    if (!roomFor(root)) return giveUp(root, repo, `more than ${maxDirectories} directories`)
    let watcher: FSWatcher
    try {
      watcher = watch(dir, { persistent: false }, () => repo.generation++)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // Gone or not a directory since it was listed: its parent's watch reported that.
      if (code === 'ENOENT' || code === 'ENOTDIR') return
      return giveUp(root, repo, `a directory could not be watched (${code ?? String(error)})`)
    }
    watcher.on('error', () => {
      repo.generation++
      watcher.close()
      if (repo.watches.get(dir) !== watcher) return
      repo.watches.delete(dir)
      watching--
    })
    repo.watches.set(dir, watcher)
    watching++
  }

  async function walk(root: string, repo: Repository, signal?: AbortSignal) {
    walks++
    const generation = repo.generation
    const at = Date.now()
    const listed = new Set<string>()
    const fingerprint = await treeFingerprint(root, signal, (dir) => {
      listed.add(dir)
      if (!hostUnwatched) watchDirectory(root, repo, dir)
    })
    // Directories gone since the last walk (a renamed one's watch follows it; drop it all the same).
    for (const [dir, watcher] of repo.watches) {
      if (!listed.has(dir)) {
        watcher.close()
        repo.watches.delete(dir)
        watching--
      }
    }
    // Too large to fingerprint (fingerprint.ts): watching it would only be placed and dropped again.
    if (fingerprint === undefined) giveUp(root, repo, 'too many entries to fingerprint')
    else if (repo.unwatched || hostUnwatched) unwatch(repo)
    else repo.last = { fingerprint, generation, at }
    return fingerprint
  }

  async function fingerprint(root: string, signal?: AbortSignal): Promise<string | undefined> {
    if (closed) return treeFingerprint(root, signal)
    // Most recently used last: the first entries are the ones evicted.
    const repo: Repository = repositories.get(root) ?? { watches: new Map(), generation: 0 }
    repositories.delete(root)
    repositories.set(root, repo)
    for (const other of repositories.keys()) {
      if (repositories.size <= maxRepositories) break
      if (other !== root) forget(other)
    }
    clearTimeout(repo.idle)
    const idle = () => {
      if (!repo.walking) return forget(root)
      repo.idle = setTimeout(idle, idleMs)
      repo.idle.unref()
    }
    repo.idle = setTimeout(idle, idleMs)
    repo.idle.unref()
    const walked = async () => {
      while (repo.walking) await repo.walking.catch(() => {})
    }
    await walked()
    const last = repo.last
    if (last && Date.now() - last.at < trustMs) {
      const settled = await barrier.pass()
      if (!settled && !hostUnwatched) {
        hostUnwatched = 'the watch barrier was not reported in time'
        options.onUnwatched?.(undefined, hostUnwatched)
        for (const r of repositories.values()) unwatch(r)
      }
      if (settled && repo.last === last && repo.generation === last.generation) {
        return last.fingerprint
      }
      await walked()
    }
    // Forgotten while this call waited (evicted, idle): start over with the tree's current entry,
    // so no walk places watches in an entry nobody will close.
    if (repositories.get(root) !== repo) return fingerprint(root, signal)
    renewLater(root, repo)
    return startWalk(root, repo, signal)
  }

  function startWalk(root: string, repo: Repository, signal?: AbortSignal) {
    const walking = walk(root, repo, signal)
    repo.walking = walking
    const done = () => {
      if (repo.walking === walking) delete repo.walking
    }
    walking.then(done, done)
    return walking
  }

  // A tree in use is walked again in the background before its walk's trust runs out, so a
  // question after a pause (a person's next message) still skips the walk when nothing changed.
  // A background walk that finds a change nobody reported only makes the next answer right.
  function renewLater(root: string, repo: Repository) {
    if (repo.renewal || trustMs < 1_000) return
    const renew = () => {
      delete repo.renewal
      if (closed || repo.unwatched || repositories.get(root) !== repo) return
      if (!repo.walking) startWalk(root, repo).catch(() => {})
      renewLater(root, repo)
    }
    repo.renewal = setTimeout(renew, trustMs / 2)
    repo.renewal.unref()
  }

  return {
    fingerprint,
    close() {
      closed = true
      for (const repo of repositories.values()) {
        unwatch(repo)
        clearTimeout(repo.idle)
        clearTimeout(repo.renewal)
        repo.unwatched = 'closed'
      }
      repositories.clear()
      barrier.close()
    },
    stats: () => ({
      walks,
      watched: Object.fromEntries([...repositories].map(([root, r]) => [root, r.watches.size])),
    }),
  }
}
