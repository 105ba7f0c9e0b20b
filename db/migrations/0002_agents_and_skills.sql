CREATE TABLE "popagent_agents" (
	"id" text PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL,
	"delegation_description" text NOT NULL,
	"instructions" text NOT NULL,
	"source_urls" jsonb NOT NULL,
	"workspace_access" text NOT NULL,
	"browser_access" text NOT NULL,
	"delegation_eligible" boolean NOT NULL,
	"tools" jsonb NOT NULL,
	"model_override" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_agents_workspace_access_check" CHECK ("popagent_agents"."workspace_access" in ('none', 'read-only', 'read-write')),
	CONSTRAINT "popagent_agents_browser_access_check" CHECK ("popagent_agents"."browser_access" in ('none', 'read-only', 'interactive'))
);
--> statement-breakpoint
CREATE TABLE "popagent_agent_skills" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"instructions" text NOT NULL,
	"references" jsonb NOT NULL,
	"source_url" text,
	"enabled" boolean NOT NULL,
	"evolution_managed" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_agent_skills_agent_name_key" UNIQUE("agent_id","name"),
	CONSTRAINT "popagent_agent_skills_name_check" CHECK ("popagent_agent_skills"."name" ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length("popagent_agent_skills"."name") <= 64)
);
--> statement-breakpoint
ALTER TABLE "popagent_agent_skills" ADD CONSTRAINT "popagent_agent_skills_agent_id_popagent_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."popagent_agents"("id") ON DELETE cascade ON UPDATE no action;