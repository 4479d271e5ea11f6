import GRDB

/// The schema, as an ordered list of frozen migrations, one per file in `Migrations/`. A shipped
/// migration is never edited: every change is a new migration appended at the end.
enum MarmotMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration(MigrationV1Initial.name, migrate: MigrationV1Initial.migrate)
        migrator.registerMigration(MigrationV2KeyedLookups.name, migrate: MigrationV2KeyedLookups.migrate)
        migrator.registerMigration(MigrationV3MessageExpiry.name, migrate: MigrationV3MessageExpiry.migrate)
        migrator.registerMigration(MigrationV4OutboxIndex.name, migrate: MigrationV4OutboxIndex.migrate)
        migrator.registerMigration(MigrationV5GroupRatchets.name, migrate: MigrationV5GroupRatchets.migrate)
        migrator.registerMigration(MigrationV6GroupStates.name, migrate: MigrationV6GroupStates.migrate)
        migrator.registerMigration(MigrationV7MessageEpochs.name, migrate: MigrationV7MessageEpochs.migrate)
        migrator.registerMigration(MigrationV8GroupEngines.name, migrate: MigrationV8GroupEngines.migrate)
        migrator.registerMigration(MigrationV9EngineHeld.name, migrate: MigrationV9EngineHeld.migrate)
        migrator.registerMigration(MigrationV10ChatPreferences.name, migrate: MigrationV10ChatPreferences.migrate)
        migrator.registerMigration(MigrationV11ModerationGrants.name, migrate: MigrationV11ModerationGrants.migrate)
        migrator.registerMigration(MigrationV12Profiles.name, migrate: MigrationV12Profiles.migrate)
        migrator.registerMigration(MigrationV20ParkedEvents.name, migrate: MigrationV20ParkedEvents.migrate)
        migrator.registerMigration(MigrationV21Outbox.name, migrate: MigrationV21Outbox.migrate)
        migrator.registerMigration(MigrationV22Invitations.name, migrate: MigrationV22Invitations.migrate)
        migrator.registerMigration(MigrationV23Media.name, migrate: MigrationV23Media.migrate)
        return migrator
    }
}
