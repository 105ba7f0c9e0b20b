/**
 * The measured process of the heap-retention benchmark, run with `--expose-gc`: it holds the
 * servers whose heap is measured, while the client (bench/heap-retained.ts) runs elsewhere.
 *   node --expose-gc bench/heap-retained-child.ts stack <json>     compute host + edge, one process
 *   node --expose-gc bench/heap-retained-child.ts edge <host-url>  the edge alone (stream proxy)
 * It speaks chat-turn-servers.ts's protocol (`@url`, `cpu`), plus `heap`: collect garbage until
 * the heap stops shrinking, then answer `@heap <object bytes> <heapUsed bytes>`; and `snapshot`: write a
 * heap snapshot to the temporary directory and answer its path (to find what holds a leak).
 */
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8'
import type { Db } from '../db/index.ts'
import { parseEdgeConfig } from '../handlers/config.ts'
import { startNodeEdge } from '../handlers/entry.node.ts'
import { answerCommands, startHost, type HostArgs } from './chat-turn-servers.ts'
import { BENCH_TOKEN } from './stream-proxy-servers.ts'

const gc = (globalThis as { gc?: () => void }).gc

// Compiled code and the metadata beside it (bytecode, deoptimisation data, relocation info) live
// in these spaces. It grows while the optimiser is still compiling hot functions, by a bounded
// amount, and is not data the server keeps per request.
const CODE_SPACES = new Set([
  'code_space',
  'code_large_object_space',
  'trusted_space',
  'trusted_large_object_space',
])

/** [objects, total]: heap used outside the code spaces, and heapUsed. */
function heapUsed(): [number, number] {
  let code = 0
  for (const space of getHeapSpaceStatistics()) {
    if (CODE_SPACES.has(space.space_name)) code += space.space_used_size
  }
  const total = process.memoryUsage().heapUsed
  return [total - code, total]
}

/** Heap use after full collections, once two readings in a row agree within 16 KB. */
async function settledHeap(): Promise<[number, number]> {
  // Let timers and sockets of the last operations finish before collecting.
  await sleep(300)
  let last: [number, number] = [Number.POSITIVE_INFINITY, 0]
  for (let i = 0; i < 20; i++) {
    gc!()
    await sleep(30)
    gc!()
    const used = heapUsed()
    if (Math.abs(used[0] - last[0]) < 16 * 1024) return used
    last = used
  }
  return last
}

const commands = {
  heap: async () => (await settledHeap()).join(' '),
  snapshot: async () => writeHeapSnapshot(join(tmpdir(), `popagent-${Date.now()}.heapsnapshot`)),
}

if (import.meta.main) {
  if (!gc) throw new Error('run with --expose-gc')
  process.on('SIGTERM', () => process.exit(0))
  const [role, arg] = process.argv.slice(2)
  if (role === 'stack') {
    // Host and edge as `popagent start` runs them: one process, the edge calling the host in it.
    const stack = await startHost({ ...(JSON.parse(arg!) as HostArgs), withEdge: true })
    answerCommands(commands)
    console.log(`@url ${stack.url}`)
  } else if (role === 'edge') {
    const edge = await startNodeEdge({
      config: parseEdgeConfig({
        POPAGENT_HOST_URL: JSON.parse(arg!) as string,
        POPAGENT_HOST_TOKEN: BENCH_TOKEN,
      }),
      // The chat route never touches the database: it validates and forwards.
      db: {} as Db,
      observabilityDb: {} as Db,
      port: 0,
    })
    answerCommands(commands)
    console.log(`@url ${edge.url}`)
  } else throw new Error('usage: heap-retained-child.ts stack <json> | edge <host-url>')
}
