/** Starts and watches runner processes (test/support/runner-process.ts). */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const SCRIPT = fileURLToPath(new URL('./runner-process.ts', import.meta.url))

export type Execution = {
  runner: string
  task: string
  attempt: number
  start: number
  end?: number
}

export type RunnerChild = {
  id: string
  child: ChildProcess
  executions: Execution[]
  stderr: () => string
  exited: Promise<number | null>
}

export async function spawnRunner(id: string, env: Record<string, string>): Promise<RunnerChild> {
  const child = spawn(process.execPath, [SCRIPT], {
    env: { PATH: process.env.PATH ?? '', RUNNER_ID: id, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const executions: Execution[] = []
  const open = new Map<string, Execution>()
  let stderr = ''
  let buffered = ''
  let ready!: () => void
  const isReady = new Promise<void>((r) => (ready = r))
  child.stderr!.on('data', (d) => (stderr += d))
  child.stdout!.on('data', (d: Buffer) => {
    buffered += d
    const lines = buffered.split('\n')
    buffered = lines.pop()!
    for (const line of lines) {
      const [kind, task, attempt, at] = line.split(' ')
      if (kind === 'READY') ready()
      if (kind === 'S') {
        const execution = { runner: id, task: task!, attempt: Number(attempt), start: Number(at) }
        executions.push(execution)
        open.set(`${task}/${attempt}`, execution)
      }
      if (kind === 'E') open.get(`${task}/${attempt}`)!.end = Number(at)
    }
  })
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
  await Promise.race([
    isReady,
    exited.then(() => {
      throw new Error(`runner ${id} exited before it was ready:\n${stderr}`)
    }),
  ])
  return { id, child, executions, stderr: () => stderr, exited }
}

/** Pairs of executions of the same task whose run times overlap (must never happen). */
export function overlaps(executions: Execution[]): Array<[Execution, Execution]> {
  const byTask = new Map<string, Execution[]>()
  for (const e of executions) byTask.set(e.task, [...(byTask.get(e.task) ?? []), e])
  const found: Array<[Execution, Execution]> = []
  for (const list of byTask.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const [a, b] = [list[i]!, list[j]!]
        const aEnd = a.end ?? Infinity
        const bEnd = b.end ?? Infinity
        if (a.start < bEnd && b.start < aEnd) found.push([a, b])
      }
    }
  }
  return found
}
