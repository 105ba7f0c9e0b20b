CREATE TABLE "popagent_obs_retention_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"trigger" text NOT NULL,
	"outcome" text DEFAULT 'running' NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"partitions_dropped" integer,
	"error" text,
	CONSTRAINT "popagent_obs_retention_runs_trigger" CHECK ("popagent_obs_retention_runs"."trigger" in ('daily', 'boot')),
	CONSTRAINT "popagent_obs_retention_runs_outcome" CHECK ("popagent_obs_retention_runs"."outcome" in ('running', 'succeeded', 'failed')),
	CONSTRAINT "popagent_obs_retention_runs_finished" CHECK (("popagent_obs_retention_runs"."outcome" = 'running') = ("popagent_obs_retention_runs"."finished_at" is null))
);
--> statement-breakpoint
CREATE TABLE "popagent_model_prices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"input_usd_per_mtok" numeric(14, 6) NOT NULL,
	"output_usd_per_mtok" numeric(14, 6) NOT NULL,
	"cache_read_usd_per_mtok" numeric(14, 6),
	"cache_write_usd_per_mtok" numeric(14, 6),
	"effective_from" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_model_prices_effective" UNIQUE("provider","model","effective_from"),
	CONSTRAINT "popagent_model_prices_nonnegative" CHECK ("popagent_model_prices"."input_usd_per_mtok" >= 0 and "popagent_model_prices"."output_usd_per_mtok" >= 0
        and coalesce("popagent_model_prices"."cache_read_usd_per_mtok", 0) >= 0 and coalesce("popagent_model_prices"."cache_write_usd_per_mtok", 0) >= 0)
);
--> statement-breakpoint
CREATE INDEX "popagent_obs_retention_runs_started_idx" ON "popagent_obs_retention_runs" USING btree ("started_at");