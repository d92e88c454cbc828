// A throwaway PostgreSQL database for one run, so runs against a shared server never see
// each other's rows. Created on the server named by the URL and dropped at the end.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ScenarioRunError } from './errors.ts';

export interface TempDatabase {
  url: string;
  drop(): Promise<void>;
}

async function onServer<T>(serverUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createTempDatabase(serverUrl: string): Promise<TempDatabase> {
  const name = `arbiter_sim_${process.pid}_${randomBytes(4).toString('hex')}`;
  try {
    await onServer(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  } catch (e) {
    throw new ScenarioRunError(
      `could not create a database for the run on ${new URL(serverUrl).host}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      onServer(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
