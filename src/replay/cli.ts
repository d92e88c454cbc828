// `npm run replay`: re-runs the pure core on recorded decision receipts and says, per receipt,
// "same decision" or the difference. No GitHub, no model, no credentials: a receipt carries the
// inputs of its decision. Exit code 0 when every decision replays the same, 1 otherwise.
//
//   npm run replay -- RECEIPT.json                 a receipt (or a JSON array of them) from a file
//   npm run replay -- --data-dir DIR [--id N]      the receipts of a PGlite store (ARBITER_DATA_DIR)
//   npm run replay -- --database-url URL [--id N]  the receipts of a PostgreSQL store (DATABASE_URL)
//   add --print to write the receipts read as a JSON array (a RECEIPT.json to keep or share)
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { replayExitCode } from '../core/replay.ts';
import { openDb } from '../store/db.ts';
import { readReceiptValue } from '../store/rows.ts';
import { storeOver } from '../store/store.ts';
import { replayReport, replayStored, type ReadReceipt } from './stored.ts';

export const REPLAY_USAGE =
  'usage: npm run replay -- RECEIPT.json | --data-dir DIR [--id N] | --database-url URL [--id N]  [--print]';

/** A receipt file: one receipt, or an array of them. */
export function receiptsFromJson(text: string): ReadReceipt[] {
  const value: unknown = JSON.parse(text);
  return (Array.isArray(value) ? value : [value]).map((recorded: unknown) => ({
    id: null,
    ...readReceiptValue(recorded),
  }));
}

async function receiptsFromStore(opts: {
  databaseUrl?: string;
  dataDir?: string;
  id?: number;
}): Promise<ReadReceipt[]> {
  // Opened as it is, without migrations: a replay reads and never changes the store.
  const db = await openDb({ databaseUrl: opts.databaseUrl, dataDir: opts.dataDir, poolSize: 1 });
  try {
    const store = storeOver(db);
    if (opts.id === undefined) return await store.readReceipts({});
    const one = await store.readReceipts({ id: opts.id });
    if (one.length === 0) throw new Error(`no receipt with id ${opts.id} in the store`);
    // A receipt another plan made is checked against that plan: its Change's receipts come too.
    const r = one[0].receipt;
    const same = r ? (await store.listReceipts(r.repo, r.change)).filter((s) => s.id !== opts.id) : [];
    return [...one, ...same];
  } finally {
    await db.close();
  }
}

/** Runs the command line; returns the exit code (2: the arguments or the input are wrong). */
export async function runReplay(argv: string[], out: (line: string) => void, env = process.env): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'data-dir': { type: 'string' },
        'database-url': { type: 'string' },
        id: { type: 'string' },
        print: { type: 'boolean' },
      },
    });
  } catch (err) {
    out(`${err instanceof Error ? err.message : String(err)}\n${REPLAY_USAGE}`);
    return 2;
  }
  const { values, positionals } = args;
  const id = values.id === undefined ? undefined : Number(values.id);
  if (id !== undefined && !Number.isInteger(id)) {
    out(`--id takes a receipt id (a whole number), not "${values.id}"\n${REPLAY_USAGE}`);
    return 2;
  }
  const databaseUrl = values['database-url'] ?? (values['data-dir'] ? undefined : env['DATABASE_URL']);
  const dataDir = values['data-dir'] ?? env['ARBITER_DATA_DIR'];
  let receipts: ReadReceipt[];
  try {
    if (positionals.length === 1 && id === undefined)
      receipts = receiptsFromJson(await readFile(positionals[0], 'utf8'));
    else if (positionals.length === 0 && (databaseUrl || dataDir))
      receipts = await receiptsFromStore({ databaseUrl, dataDir, id });
    else {
      out(REPLAY_USAGE);
      return 2;
    }
  } catch (err) {
    out(`cannot read the receipts: ${err instanceof Error ? err.message : String(err)}`);
    return 2;
  }
  if (values.print) {
    out(
      JSON.stringify(
        receipts.map((r) => r.recorded),
        null,
        2,
      ),
    );
    return 0;
  }
  // With --id the Change's other receipts came along only to be looked up: the one asked for is reported.
  const replayed = replayStored(receipts).slice(0, id === undefined ? undefined : 1);
  if (replayed.length === 0) out('no receipts to replay');
  for (const line of replayReport(replayed)) out(line);
  return replayExitCode(replayed.map((r) => r.result));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runReplay(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`replay failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(2);
    },
  );
}
