import GRDB

/// The relay database schema as frozen, ordered migrations.
///
/// Migrations are never edited once released: a later change appends a new one, so an existing
/// database file is upgraded in place (GRDB `DatabaseMigrator`).
enum EventSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-events-and-tags") { db in
            // One row per stored event; `json` is the event exactly as served to subscribers.
            try db.execute(sql: """
                CREATE TABLE event (
                    seq INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    pubkey TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    kind INTEGER NOT NULL,
                    d_tag TEXT,
                    json TEXT NOT NULL
                );
                CREATE INDEX event_created_at ON event(created_at);
                CREATE INDEX event_kind_created_at ON event(kind, created_at);
                CREATE INDEX event_pubkey_created_at ON event(pubkey, created_at);
                CREATE INDEX event_replacement ON event(pubkey, kind, d_tag);

                -- Single-letter tags (NIP-01 `#x` filters): (name, first value) -> event.
                CREATE TABLE tag (
                    event_seq INTEGER NOT NULL REFERENCES event(seq) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    value TEXT NOT NULL
                );
                CREATE INDEX tag_name_value ON tag(name, value, event_seq);
                CREATE INDEX tag_event ON tag(event_seq);
                """)
        }
        return migrator
    }
}
