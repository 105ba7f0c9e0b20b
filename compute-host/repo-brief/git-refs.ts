import type { RepositoryFiles } from './repository-files.ts'

const MAX_REF_BYTES = 4096
const MAX_PACKED_REFS_BYTES = 64 * 1024 * 1024
const MAX_HOPS = 5

/**
 * The commit `HEAD` names in the git directory `gitDir` (repository-relative): a detached id, or
 * a branch found as a loose ref or in `packed-refs`. Null for a branch with no commit yet (a new
 * repository). Throws where HEAD cannot be read as files (the reftable format, a name that would
 * leave the git directory).
 */
export function resolveHead(files: RepositoryFiles, gitDir: string): string | null {
  let content = files.read(`${gitDir}/HEAD`, MAX_REF_BYTES).toString('utf8').trim()
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    if (/^[0-9a-f]{40}$|^[0-9a-f]{64}$/.test(content)) return content
    const name = /^ref:\s*(refs\/\S+)$/.exec(content)?.[1]
    if (!name || name.split('/').some((p) => p === '' || p === '.' || p === '..')) {
      throw new Error(`unreadable HEAD: ${content.slice(0, 80)}`)
    }
    const loose = files.lstat(`${gitDir}/${name}`)
    if (loose?.isFile()) {
      content = files.read(`${gitDir}/${name}`, MAX_REF_BYTES).toString('utf8').trim()
      continue
    }
    return packedRef(files, gitDir, name)
  }
  throw new Error('HEAD refers too deep')
}

function packedRef(files: RepositoryFiles, gitDir: string, name: string): string | null {
  if (!files.lstat(`${gitDir}/packed-refs`)?.isFile()) return null
  const text = files.read(`${gitDir}/packed-refs`, MAX_PACKED_REFS_BYTES).toString('utf8')
  for (const line of text.split('\n')) {
    const [oid, ref] = line.trim().split(' ')
    if (ref === name && oid && /^[0-9a-f]{40}$|^[0-9a-f]{64}$/.test(oid)) return oid
  }
  return null
}

/**
 * The commit checked out in the submodule at `path`, when its git directory lies inside the
 * repository (`path/.git`, or the `.git/modules/…` a `gitdir:` file names); otherwise undefined.
 */
export function submoduleHead(files: RepositoryFiles, path: string): string | undefined {
  const dotGit = files.lstat(`${path}/.git`)
  let gitDir: string | undefined
  if (dotGit?.isDirectory()) gitDir = `${path}/.git`
  else if (dotGit?.isFile()) {
    const text = files.read(`${path}/.git`, MAX_REF_BYTES).toString('utf8')
    const named = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1]
    if (!named) return undefined
    const absolute = named.startsWith('/')
    if (absolute && !named.startsWith(`${files.root}/`)) return undefined
    const parts = (absolute ? named.slice(files.root.length + 1) : `${path}/${named}`).split('/')
    const resolved: string[] = []
    for (const part of parts) {
      if (part === '..') {
        if (resolved.pop() === undefined) return undefined // out of the repository
      } else if (part !== '.' && part !== '') resolved.push(part)
    }
    gitDir = resolved.join('/')
  }
  if (!gitDir) return undefined
  try {
    return resolveHead(files, gitDir) ?? undefined
  } catch {
    return undefined
  }
}
