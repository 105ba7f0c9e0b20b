import { hostname } from 'node:os'

/**
 * The name a host's live turns carry in the database: its address, hostname and port. A host that
 * restarts listens at the same address, so at start it knows which turns were its own and were
 * interrupted (runs/live-turns.ts); two hosts on one database never share one. Its own module so
 * that main.ts names the host without loading the run path.
 */
export const liveTurnHost = (port: number) => `${hostname()}:${port}`
