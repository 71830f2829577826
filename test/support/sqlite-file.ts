// Reading a SQLite file a test did not open itself: a backup, a copy restored, a volume's database.
import Database from 'better-sqlite3';

/** The addresses signed up in the SQLite file, sorted; the file is opened read-only. */
export function signupsIn(file: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT email FROM signups ORDER BY email').all() as {
      email: string;
    }[];
    return rows.map((row) => row.email);
  } finally {
    db.close();
  }
}
