/**
 * A new local D1 database with every migration applied, in one `wrangler d1 execute --file`.
 *
 * `wrangler d1 migrations apply --local` applies each migration in a run of its own: 33 migrations
 * took 31.6 s here (27 s of CPU) on a quiet machine, about a minute beside the workers test files,
 * where one file of all of them takes 3.8 s (docs/performance.md, "Test-suite time"). The file is
 * what `migrations apply` would run, in its order, including its bookkeeping: wrangler's
 * `d1_migrations` table gets one row per migration, so a later `wrangler d1 migrations apply` on
 * the same state applies only migrations added since.
 *
 * Only for a database that does not exist yet (tests, the bench, the soak, a first `npm run dev`):
 * on an existing one, `migrations apply` knows what is missing and this does not.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// wrangler's own statements (getCreateMigrationsTableQuery and buildMigrationQuery in its CLI).
const TABLE = '"d1_migrations"';
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${TABLE}(
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);`;

/** Every migration in `dir`, in name order, each followed by its `d1_migrations` row. */
function allMigrationsSql(dir) {
  const names = readdirSync(dir)
    .filter((n) => n.endsWith(".sql"))
    .sort();
  const steps = names.map(
    (name) =>
      `${readFileSync(join(dir, name), "utf8")}\nINSERT INTO ${TABLE} (name)\nvalues ('${name.replace(/'/g, "''")}');`,
  );
  return [CREATE_TABLE, ...steps].join("\n");
}

/**
 * Writes the SQL to `sqlPath` and returns the wrangler arguments that build the database under
 * `persistDir` from it (run them in the project directory, where wrangler.toml names DB).
 */
export function freshDatabaseArgs(migrationsDir, persistDir, sqlPath) {
  writeFileSync(sqlPath, allMigrationsSql(migrationsDir));
  return ["d1", "execute", "DB", "--local", "--persist-to", persistDir, "--file", sqlPath];
}
