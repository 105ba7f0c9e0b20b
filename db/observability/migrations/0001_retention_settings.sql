CREATE TABLE "popagent_obs_retention_settings" (
	"id" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"span_days" integer DEFAULT 30 NOT NULL,
	"log_days" integer DEFAULT 14 NOT NULL,
	"metric_days" integer DEFAULT 90 NOT NULL,
	"feedback_days" integer DEFAULT 365 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_obs_retention_settings_one_row" CHECK ("popagent_obs_retention_settings"."id"),
	CONSTRAINT "popagent_obs_retention_settings_days" CHECK ("span_days" between 2 and 3650 and "log_days" between 2 and 3650 and "metric_days" between 2 and 3650 and "feedback_days" between 2 and 3650)
);
