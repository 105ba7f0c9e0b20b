/**
 * Throwaway Git repositories for the self-update tests: a small project with source, a test, a
 * package.json and CI configuration, committed once. The test's own git runs with no system or
 * global configuration so the machine's settings never change an outcome.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export async function git(cwd: string, ...args: string[]): Promise<string> {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: cwd,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'owner',
    GIT_AUTHOR_EMAIL: 'owner@example.test',
    GIT_COMMITTER_NAME: 'owner',
    GIT_COMMITTER_EMAIL: 'owner@example.test',
  }
  const { stdout } = await run('git', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 })
  return stdout
}

export const FIXTURE_FILES: Record<string, string> = {
  'README.md': '# fixture\n',
  'src/greet.ts': "export function greet(name: string) {\n  return 'hello ' + name\n}\n",
  'test/greet.test.ts':
    "import { greet } from '../src/greet.ts'\nif (greet('a') !== 'hello a') throw new Error('greet')\n",
  'package.json':
    JSON.stringify(
      {
        name: 'fixture',
        private: true,
        scripts: { test: 'node test/greet.test.ts' },
        dependencies: {},
      },
      null,
      2,
    ) + '\n',
  '.github/workflows/ci.yml': 'on: push\njobs: {}\n',
  '.gitignore': 'ignored/\n',
}

export async function writeFiles(root: string, files: Record<string, string | Buffer>) {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), content)
  }
}

/** A new repository with the fixture committed on `main`; its real path. */
export async function fixtureRepo(parent: string, name = 'repo'): Promise<string> {
  const repo = join(parent, name)
  await mkdir(repo, { recursive: true })
  await git(repo, 'init', '--quiet', '--initial-branch=main')
  await writeFiles(repo, FIXTURE_FILES)
  await git(repo, 'add', '--all')
  await git(repo, 'commit', '--quiet', '-m', 'fixture')
  return realpath(repo)
}

export async function tempDir(prefix: string): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), `popagent-${prefix}-`)))
}

/**
 * Everything an owner could notice about a work tree and its git directory's index, HEAD and
 * refs: each file's path, size, mode, mtime and content hash. Equal snapshots mean untouched.
 */
export async function snapshot(repo: string): Promise<string> {
  const lines: string[] = []
  const walk = async (dir: string, rel: string) => {
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name)
      const name = rel ? `${rel}/${entry.name}` : entry.name
      if (name === '.git/objects' || name === '.git/logs') continue
      const info = await stat(path)
      if (entry.isDirectory()) {
        // A ref created under refs/heads is expected to differ; compare refs separately.
        if (name === '.git/refs') continue
        await walk(path, name)
      } else {
        const content = await readFile(path)
        lines.push(
          `${name} ${info.size} ${info.mode} ${info.mtimeMs} ${createHash('sha256').update(content).digest('hex')}`,
        )
      }
    }
  }
  await walk(repo, '')
  return lines.join('\n')
}
