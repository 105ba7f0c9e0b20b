CREATE TABLE "popagent_memory_settings" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"enabled" boolean NOT NULL,
	"observation_message_tokens" integer NOT NULL,
	"reflection_observation_tokens" integer NOT NULL,
	"raw_history_retention" double precision NOT NULL,
	"async_buffering" boolean NOT NULL,
	"observation_buffer_tokens" double precision NOT NULL,
	"reflection_buffer_activation" double precision NOT NULL,
	"observation_block_after" double precision NOT NULL,
	"reflection_block_after" double precision NOT NULL,
	"activate_after_idle" text NOT NULL,
	"activate_on_provider_change" boolean NOT NULL,
	"share_token_budget" boolean NOT NULL,
	"previous_observer_tokens" integer NOT NULL,
	"temporal_markers" boolean NOT NULL,
	"observe_attachments" text NOT NULL,
	"retrieval_scope" text NOT NULL,
	"observer_instruction" text NOT NULL,
	"reflector_instruction" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_memory_settings_singleton" CHECK ("popagent_memory_settings"."singleton")
);
--> statement-breakpoint
CREATE TABLE "popagent_autonomy_settings" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"evolution_enabled" boolean NOT NULL,
	"skill_creation_enabled" boolean NOT NULL,
	"automatic_fact_retention" boolean NOT NULL,
	"self_update_enabled" boolean NOT NULL,
	"deployment_enabled" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_autonomy_settings_singleton" CHECK ("popagent_autonomy_settings"."singleton")
);
--> statement-breakpoint
CREATE TABLE "popagent_browser_settings" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"enabled" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_browser_settings_singleton" CHECK ("popagent_browser_settings"."singleton")
);
