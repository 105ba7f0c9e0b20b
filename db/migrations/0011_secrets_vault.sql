-- The secrets vault (X4): values stored only as AES-256-GCM ciphertext bound to their row (the
-- key never reaches the database), and the bindings that say where each value may go.
CREATE TABLE "popagent_secret_bindings" (
	"id" text PRIMARY KEY NOT NULL,
	"secret_id" text NOT NULL,
	"kind" text NOT NULL,
	"target" text NOT NULL,
	"env_name" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_secret_bindings_kind" CHECK ("popagent_secret_bindings"."kind" in ('origin', 'hook_env')),
	CONSTRAINT "popagent_secret_bindings_env_name" CHECK (("popagent_secret_bindings"."kind" = 'hook_env') = ("popagent_secret_bindings"."env_name" is not null))
);
--> statement-breakpoint
CREATE TABLE "popagent_secrets" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"version" integer NOT NULL,
	"key_id" text NOT NULL,
	"nonce" text NOT NULL,
	"ciphertext" text NOT NULL,
	"fingerprint" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_secrets_version_positive" CHECK ("popagent_secrets"."version" >= 1)
);
--> statement-breakpoint
ALTER TABLE "popagent_secret_bindings" ADD CONSTRAINT "popagent_secret_bindings_secret_id_popagent_secrets_id_fk" FOREIGN KEY ("secret_id") REFERENCES "public"."popagent_secrets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_secret_bindings_target_idx" ON "popagent_secret_bindings" USING btree ("secret_id","kind","target");--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_secrets_name_idx" ON "popagent_secrets" USING btree ("name");--> statement-breakpoint
CREATE INDEX "popagent_secrets_key_idx" ON "popagent_secrets" USING btree ("key_id");