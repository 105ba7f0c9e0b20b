/** drizzle-orm/pg-core, imported by name once (why: db/drizzle-orm.ts). */
export * from 'drizzle-orm/pg-core'
