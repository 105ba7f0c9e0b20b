/**
 * The observability database's own tables (popagent's, next to the `mastra_*_events` tables that
 * Mastra's observability storage creates there itself). Migrations: `npm run
 * db:generate:observability`, into db/observability/migrations.
 */
export * from './retention-runs.ts'
export * from './model-prices.ts'
export * from './retention-settings.ts'
