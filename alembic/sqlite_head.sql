-- readinglist: the SQLite schema at revision 0009
CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
CREATE TABLE import_batches (
	id INTEGER NOT NULL, 
	source TEXT NOT NULL, 
	format VARCHAR(32) NOT NULL, 
	started_at DATETIME NOT NULL, 
	added INTEGER NOT NULL, 
	merged INTEGER NOT NULL, 
	rejected INTEGER NOT NULL, bibtex_strings TEXT, bibtex_preamble TEXT, 
	CONSTRAINT pk_import_batches PRIMARY KEY (id)
);
CREATE TABLE people (
	id INTEGER NOT NULL, 
	name_key TEXT NOT NULL, 
	family TEXT NOT NULL, 
	given TEXT NOT NULL, 
	von TEXT NOT NULL, 
	jr TEXT NOT NULL, 
	literal TEXT NOT NULL, 
	family_folded TEXT NOT NULL, 
	name_folded TEXT NOT NULL, 
	CONSTRAINT pk_people PRIMARY KEY (id), 
	CONSTRAINT uq_people_name_key UNIQUE (name_key)
);
CREATE INDEX ix_people_family_folded ON people (family_folded);
CREATE TABLE tags (
	id INTEGER NOT NULL, 
	name VARCHAR(255) NOT NULL, 
	name_folded VARCHAR(255) NOT NULL, 
	CONSTRAINT pk_tags PRIMARY KEY (id), 
	CONSTRAINT uq_tags_name_folded UNIQUE (name_folded)
);
CREATE TABLE papers (
	id INTEGER NOT NULL, 
	citekey VARCHAR(255) NOT NULL, 
	citekey_folded VARCHAR(255) NOT NULL, 
	entry_type VARCHAR(64) NOT NULL, 
	title TEXT, 
	title_provisional BOOLEAN NOT NULL, 
	title_key TEXT, 
	short_name VARCHAR(255), 
	year INTEGER, 
	month SMALLINT, 
	venue TEXT, 
	abstract TEXT, 
	abstract_key VARCHAR(40), 
	doi VARCHAR(255), 
	arxiv VARCHAR(64), 
	url TEXT, 
	code_url TEXT, 
	keywords TEXT, 
	fields JSON NOT NULL, 
	source_text TEXT, 
	source_digest VARCHAR(64), 
	search_text TEXT NOT NULL, 
	added_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	batch_id INTEGER, source_check VARCHAR(64), citekey_provisional BOOLEAN DEFAULT 0 NOT NULL, source_strings_read INTEGER, source_intact BOOLEAN, 
	CONSTRAINT pk_papers PRIMARY KEY (id), 
	CONSTRAINT fk_papers_batch_id_import_batches FOREIGN KEY(batch_id) REFERENCES import_batches (id) ON DELETE SET NULL, 
	CONSTRAINT uq_papers_citekey_folded UNIQUE (citekey_folded)
);
CREATE INDEX ix_papers_abstract_key ON papers (abstract_key);
CREATE INDEX ix_papers_arxiv ON papers (arxiv);
CREATE INDEX ix_papers_batch_id ON papers (batch_id);
CREATE INDEX ix_papers_doi ON papers (doi);
CREATE INDEX ix_papers_title_key ON papers (title_key);
CREATE INDEX ix_papers_year ON papers (year);
CREATE TABLE aliases (
	alias_folded VARCHAR(255) NOT NULL, 
	alias VARCHAR(255) NOT NULL, 
	paper_id INTEGER NOT NULL, 
	CONSTRAINT pk_aliases PRIMARY KEY (alias_folded), 
	CONSTRAINT fk_aliases_paper_id_papers FOREIGN KEY(paper_id) REFERENCES papers (id) ON DELETE CASCADE
);
CREATE INDEX ix_aliases_paper_id ON aliases (paper_id);
CREATE TABLE paper_people (
	paper_id INTEGER NOT NULL, 
	role VARCHAR(16) NOT NULL, 
	position INTEGER NOT NULL, 
	person_id INTEGER NOT NULL, 
	CONSTRAINT pk_paper_people PRIMARY KEY (paper_id, role, position), 
	CONSTRAINT fk_paper_people_paper_id_papers FOREIGN KEY(paper_id) REFERENCES papers (id) ON DELETE CASCADE, 
	CONSTRAINT fk_paper_people_person_id_people FOREIGN KEY(person_id) REFERENCES people (id)
);
CREATE INDEX ix_paper_people_person_id ON paper_people (person_id);
CREATE TABLE paper_tags (
	paper_id INTEGER NOT NULL, 
	tag_id INTEGER NOT NULL, 
	CONSTRAINT pk_paper_tags PRIMARY KEY (paper_id, tag_id), 
	CONSTRAINT fk_paper_tags_paper_id_papers FOREIGN KEY(paper_id) REFERENCES papers (id) ON DELETE CASCADE, 
	CONSTRAINT fk_paper_tags_tag_id_tags FOREIGN KEY(tag_id) REFERENCES tags (id) ON DELETE CASCADE
);
CREATE INDEX ix_paper_tags_tag_id ON paper_tags (tag_id);
CREATE VIRTUAL TABLE paper_fts USING fts5(search_text, content='papers', content_rowid='id', tokenize='unicode61');
CREATE TRIGGER paper_fts_ai AFTER INSERT ON papers BEGIN
        INSERT INTO paper_fts(rowid, search_text) VALUES (new.id, new.search_text);
    END;
CREATE TRIGGER paper_fts_ad AFTER DELETE ON papers BEGIN
        INSERT INTO paper_fts(paper_fts, rowid, search_text)
        VALUES ('delete', old.id, old.search_text);
    END;
CREATE TRIGGER paper_fts_au AFTER UPDATE OF search_text ON papers BEGIN
        INSERT INTO paper_fts(paper_fts, rowid, search_text)
        VALUES ('delete', old.id, old.search_text);
        INSERT INTO paper_fts(rowid, search_text) VALUES (new.id, new.search_text);
    END;
CREATE INDEX ix_papers_title_provisional ON papers (title_provisional) WHERE title_provisional = 1;
CREATE INDEX ix_papers_venue ON papers (venue);
CREATE INDEX ix_papers_added_keys ON papers (added_at, id, citekey);
CREATE TABLE merge_conflicts (
	id INTEGER NOT NULL, 
	paper_id INTEGER NOT NULL, 
	field VARCHAR(64) NOT NULL, 
	value JSON NOT NULL, 
	source TEXT NOT NULL, 
	at DATETIME NOT NULL, 
	CONSTRAINT pk_merge_conflicts PRIMARY KEY (id), 
	CONSTRAINT fk_merge_conflicts_paper_id_papers FOREIGN KEY(paper_id) REFERENCES papers (id) ON DELETE CASCADE
);
CREATE INDEX ix_merge_conflicts_paper_id ON merge_conflicts (paper_id);
CREATE TABLE not_duplicates (
	low_id INTEGER NOT NULL, 
	high_id INTEGER NOT NULL, 
	at DATETIME NOT NULL, 
	CONSTRAINT pk_not_duplicates PRIMARY KEY (low_id, high_id), 
	CONSTRAINT fk_not_duplicates_low_id_papers FOREIGN KEY(low_id) REFERENCES papers (id) ON DELETE CASCADE, 
	CONSTRAINT fk_not_duplicates_high_id_papers FOREIGN KEY(high_id) REFERENCES papers (id) ON DELETE CASCADE
);
CREATE INDEX ix_not_duplicates_high_id ON not_duplicates (high_id);
CREATE TABLE export_profiles (
	id INTEGER NOT NULL, 
	owner VARCHAR(255) NOT NULL, 
	name VARCHAR(255) NOT NULL, 
	format VARCHAR(16) NOT NULL, 
	target TEXT NOT NULL, 
	"query" TEXT NOT NULL, 
	aux TEXT, 
	options JSON NOT NULL, 
	paused BOOLEAN NOT NULL, 
	created_at DATETIME NOT NULL, 
	last_run_at DATETIME, 
	status VARCHAR(16), 
	message TEXT, 
	papers INTEGER, 
	digest VARCHAR(64), 
	CONSTRAINT pk_export_profiles PRIMARY KEY (id)
);
CREATE UNIQUE INDEX uq_export_profiles_owner_name ON export_profiles (owner, name);
CREATE UNIQUE INDEX uq_export_profiles_owner_target ON export_profiles (owner, target);
CREATE TABLE readers (
	id INTEGER NOT NULL, 
	name VARCHAR(64) NOT NULL, 
	name_folded VARCHAR(64) NOT NULL, 
	created_at DATETIME NOT NULL, 
	CONSTRAINT pk_readers PRIMARY KEY (id), 
	CONSTRAINT uq_readers_name_folded UNIQUE (name_folded)
);
CREATE TABLE decisions (
	paper_id INTEGER NOT NULL, 
	reader_id INTEGER NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	priority SMALLINT, 
	read_at DATETIME, 
	updated_at DATETIME NOT NULL, 
	CONSTRAINT pk_decisions PRIMARY KEY (paper_id, reader_id), 
	CONSTRAINT fk_decisions_paper_id_papers FOREIGN KEY(paper_id) REFERENCES papers (id) ON DELETE CASCADE, 
	CONSTRAINT fk_decisions_reader_id_readers FOREIGN KEY(reader_id) REFERENCES readers (id) ON DELETE CASCADE
);
CREATE INDEX ix_decisions_reader_status ON decisions (reader_id, status, paper_id);
CREATE INDEX ix_decisions_reader_priority ON decisions (reader_id, priority);
CREATE TABLE "status_events" (
	id INTEGER NOT NULL, 
	paper_id INTEGER NOT NULL, 
	from_status VARCHAR(16), 
	to_status VARCHAR(16) NOT NULL, 
	at DATETIME NOT NULL, 
	undoes INTEGER, 
	reader_id INTEGER NOT NULL, 
	CONSTRAINT pk_status_events PRIMARY KEY (id), 
	CONSTRAINT fk_status_events_paper_id_papers FOREIGN KEY(paper_id) REFERENCES papers (id) ON DELETE CASCADE, 
	CONSTRAINT fk_status_events_reader_id_readers FOREIGN KEY(reader_id) REFERENCES readers (id) ON DELETE CASCADE
);
CREATE TABLE "notes" (
	id INTEGER NOT NULL, 
	paper_id INTEGER NOT NULL, 
	body TEXT NOT NULL, 
	created_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	reader_id INTEGER NOT NULL, 
	shared BOOLEAN NOT NULL, 
	CONSTRAINT pk_notes PRIMARY KEY (id), 
	CONSTRAINT fk_notes_paper_id_papers FOREIGN KEY(paper_id) REFERENCES papers (id) ON DELETE CASCADE, 
	CONSTRAINT fk_notes_reader_id_readers FOREIGN KEY(reader_id) REFERENCES readers (id) ON DELETE CASCADE
);
CREATE INDEX ix_status_events_at ON status_events (at);
CREATE INDEX ix_status_events_paper_id ON status_events (paper_id);
CREATE INDEX ix_status_events_undoes ON status_events (undoes);
CREATE INDEX ix_status_events_reader_id ON status_events (reader_id);
CREATE INDEX ix_notes_paper_id ON notes (paper_id);
CREATE INDEX ix_notes_reader_id ON notes (reader_id);
CREATE INDEX ix_papers_updated_at ON papers (updated_at);
CREATE INDEX ix_decisions_reader_updated ON decisions (reader_id, updated_at);
INSERT INTO alembic_version (version_num) VALUES ('0009');
