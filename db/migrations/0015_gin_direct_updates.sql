-- Full-text GIN indexes write every entry into the index itself (db/schema/full-text.ts says why);
-- what already waits in a pending list is moved into the index now.
ALTER INDEX "popagent_doc_chunks_tsv_idx" SET (fastupdate = false);--> statement-breakpoint
ALTER INDEX "popagent_recall_items_tsv_idx" SET (fastupdate = false);--> statement-breakpoint
SELECT gin_clean_pending_list('popagent_doc_chunks_tsv_idx'::regclass);--> statement-breakpoint
SELECT gin_clean_pending_list('popagent_recall_items_tsv_idx'::regclass);
