-- A counter moved forward by every statement that writes the configuration a run reads, in the
-- writer's own transaction: the host caches that configuration and checks only this row per run
-- (db/schema/config-version.ts says why).
CREATE TABLE "popagent_config_version" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "popagent_config_version_singleton" CHECK ("popagent_config_version"."singleton")
);--> statement-breakpoint
INSERT INTO "popagent_config_version" ("singleton", "version") VALUES (true, 0);--> statement-breakpoint
CREATE FUNCTION "popagent_bump_config_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "popagent_config_version" SET "version" = "version" + 1;
	RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "popagent_agents_config_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "popagent_agents" FOR EACH STATEMENT EXECUTE FUNCTION "popagent_bump_config_version"();--> statement-breakpoint
CREATE TRIGGER "popagent_agent_skills_config_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "popagent_agent_skills" FOR EACH STATEMENT EXECUTE FUNCTION "popagent_bump_config_version"();--> statement-breakpoint
CREATE TRIGGER "popagent_hooks_config_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "popagent_hooks" FOR EACH STATEMENT EXECUTE FUNCTION "popagent_bump_config_version"();--> statement-breakpoint
CREATE TRIGGER "popagent_agent_workspaces_config_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "popagent_agent_workspaces" FOR EACH STATEMENT EXECUTE FUNCTION "popagent_bump_config_version"();--> statement-breakpoint
CREATE TRIGGER "popagent_agent_runtime_settings_config_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "popagent_agent_runtime_settings" FOR EACH STATEMENT EXECUTE FUNCTION "popagent_bump_config_version"();--> statement-breakpoint
CREATE TRIGGER "popagent_memory_settings_config_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "popagent_memory_settings" FOR EACH STATEMENT EXECUTE FUNCTION "popagent_bump_config_version"();--> statement-breakpoint
CREATE TRIGGER "popagent_autonomy_settings_config_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "popagent_autonomy_settings" FOR EACH STATEMENT EXECUTE FUNCTION "popagent_bump_config_version"();--> statement-breakpoint
CREATE TRIGGER "popagent_browser_settings_config_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "popagent_browser_settings" FOR EACH STATEMENT EXECUTE FUNCTION "popagent_bump_config_version"();
