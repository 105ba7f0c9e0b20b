-- Each chunk vector carries its chunk's workspace, so the vector leg of a docs search ranks one
-- workspace's vectors without joining every chunk first: 80 ms at 10,500 chunks before (27 ms with
-- fresh planner statistics), a scan of the vectors alone after. Only where 0014 made the table.
DO $$
BEGIN
	IF to_regclass('popagent_doc_vectors') IS NOT NULL THEN
		ALTER TABLE "popagent_doc_vectors" ADD COLUMN "workspace_id" text;
		UPDATE "popagent_doc_vectors" v SET "workspace_id" = c."workspace_id"
			FROM "popagent_doc_chunks" c WHERE c."id" = v."chunk_id";
		ALTER TABLE "popagent_doc_vectors" ALTER COLUMN "workspace_id" SET NOT NULL;
		CREATE INDEX "popagent_doc_vectors_workspace_model_idx"
			ON "popagent_doc_vectors" ("workspace_id", "model");
	END IF;
END $$;
