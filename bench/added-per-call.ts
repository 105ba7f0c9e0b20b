/**
 * What popagent adds to one call against the same call made directly, for the benches that wrap
 * a client (mcp-call, browser-call): rounds alternate which side goes first, each round takes
 * each side's p50 over `calls` calls, and the figure is the median over rounds of the difference.
 */
import { median, percentile } from './stats.ts'

type Call = () => Promise<unknown>

/** The p50 in ms of `calls` sequential calls. */
export async function p50OfCalls(calls: number, call: Call): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < calls; i++) {
    const start = performance.now()
    await call()
    times.push(performance.now() - start)
  }
  return percentile(times, 50)
}

export async function addedPerCall(options: {
  rounds: number
  calls: number
  warmUpCalls: number
  sides: { direct: Call; popagent: Call }
}): Promise<{ addedMs: number; directP50: number; popagentP50: number }> {
  const { sides } = options
  await p50OfCalls(options.warmUpCalls, sides.direct)
  await p50OfCalls(options.warmUpCalls, sides.popagent)
  const added: number[] = []
  const p50s = { direct: [] as number[], popagent: [] as number[] }
  for (let round = 0; round < options.rounds; round++) {
    const order =
      round % 2 === 0 ? (['direct', 'popagent'] as const) : (['popagent', 'direct'] as const)
    const measured = { direct: 0, popagent: 0 }
    for (const side of order) measured[side] = await p50OfCalls(options.calls, sides[side])
    p50s.direct.push(measured.direct)
    p50s.popagent.push(measured.popagent)
    added.push(measured.popagent - measured.direct)
  }
  return {
    addedMs: median(added),
    directP50: median(p50s.direct),
    popagentP50: median(p50s.popagent),
  }
}
