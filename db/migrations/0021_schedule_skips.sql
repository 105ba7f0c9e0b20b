-- Skipped schedule occurrences are recorded beside the fired ones (the same unique index decides
-- each occurrence once), with the reason; each schedule gets its catch-up policy. `when` in the
-- journal is after 0019's hand-set time: drizzle applies only migrations newer than the newest
-- recorded one.
ALTER TABLE "popagent_agent_schedule_fires" ALTER COLUMN "task_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "popagent_agent_schedule_fires" ADD COLUMN "outcome" text DEFAULT 'fired' NOT NULL;--> statement-breakpoint
ALTER TABLE "popagent_agent_schedule_fires" ADD COLUMN "reason" text;--> statement-breakpoint
ALTER TABLE "popagent_agent_schedules" ADD COLUMN "catch_up" text DEFAULT 'latest' NOT NULL;--> statement-breakpoint
CREATE INDEX "popagent_agent_schedule_fires_skipped_idx" ON "popagent_agent_schedule_fires" USING btree ("schedule_id") WHERE "popagent_agent_schedule_fires"."outcome" = 'skipped';--> statement-breakpoint
ALTER TABLE "popagent_agent_schedule_fires" ADD CONSTRAINT "popagent_agent_schedule_fires_outcome" CHECK ("popagent_agent_schedule_fires"."outcome" in ('fired', 'skipped'));--> statement-breakpoint
ALTER TABLE "popagent_agent_schedule_fires" ADD CONSTRAINT "popagent_agent_schedule_fires_shape" CHECK (case "popagent_agent_schedule_fires"."outcome" when 'fired' then "popagent_agent_schedule_fires"."task_id" is not null and "popagent_agent_schedule_fires"."reason" is null else "popagent_agent_schedule_fires"."task_id" is null and "popagent_agent_schedule_fires"."reason" is not null end);--> statement-breakpoint
ALTER TABLE "popagent_agent_schedules" ADD CONSTRAINT "popagent_agent_schedules_catch_up" CHECK ("popagent_agent_schedules"."catch_up" in ('latest', 'each', 'none'));