/** `tsx scripts/migrate.ts`: applies pending migrations to DATABASE_URL and prints what it applied. */
import { runMigrations } from '../stores/migrate';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL is required; set it to the database to migrate.');
  process.exit(2);
}
runMigrations(url, (m) => console.error(m)).then(
  (applied) => {
    console.log(JSON.stringify({ applied }));
  },
  (err: unknown) => {
    console.error(`migration failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
