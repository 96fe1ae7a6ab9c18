// Types for the TypeScript callers of migrations.mjs (the browser tests' processes.ts).
export function freshDatabaseArgs(migrationsDir: string, persistDir: string, sqlPath: string): string[];
