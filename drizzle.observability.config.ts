import { defineConfig } from 'drizzle-kit'

// The observability database's migrations, kept apart from the application's (drizzle.config.ts):
// it is a different database with its own migration history. Applied at start by
// compute-host/database/migrate.ts, never by drizzle-kit itself.
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/observability/schema/index.ts',
  out: './db/observability/migrations',
  casing: 'snake_case',
})
