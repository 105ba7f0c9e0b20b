import { timestamp } from '../drizzle-pg-core.ts'

/** Creation and update times, kept in UTC with time zone. */
export const timestamps = {
  createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
}
