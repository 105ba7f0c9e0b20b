import { defineConfig } from 'drizzle-kit'

// Generates SQL migrations from db/schema; they are applied at start by the runtime migrator
// (compute-host/database/migrate.ts), never by drizzle-kit itself.
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema/index.ts',
  out: './db/migrations',
  casing: 'snake_case',
})
