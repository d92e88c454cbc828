// `npm run simulate -- FILE.yml [--json OUT.json] [--html OUT.html] [--database-url URL]`: runs one
// scenario against the real app and prints its transcript; with no file, the bundled showcase.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { relative } from 'node:path';
import { loadScenarioFile } from './runner/load.ts';
import { ScenarioInvalidError, ScenarioRunError } from './runner/errors.ts';

const SHOWCASE = fileURLToPath(new URL('../fixtures/scenarios/showcase.yml', import.meta.url));

const USAGE = `usage: npm run simulate -- [FILE.yml] [--json OUT.json] [--html OUT.html] [--database-url postgres://...]
  FILE.yml          a scenario (docs/scenarios.md); default: the bundled showcase
  --json OUT.json   also write the transcript as JSON (its shape: docs/scenarios.md, "Transcript")
  --html OUT.html   also write the comments and check runs as GitHub would show them
  --database-url    run on a fresh database on this PostgreSQL server instead of PGlite`;

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'string' },
        html: { type: 'string' },
        'database-url': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    console.error(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
    return 2;
  }
  if (args.values.help) {
    console.log(USAGE);
    return 0;
  }
  if (args.positionals.length > 1) {
    console.error(`one scenario file at a time\n${USAGE}`);
    return 2;
  }
  const file = args.positionals[0] ?? SHOWCASE;
  try {
    const scenario = await loadScenarioFile(file);
    const shown = relative(process.cwd(), file) || file;
    console.log(`Scenario ${shown}${scenario.name ? `: ${scenario.name}` : ''}`);
    console.log('Starting the emulated GitHub, the scripted model and Arbiter as its own process...');
    // The runner (and the app it starts) loads after the first lines are out, so the wait is not silent.
    const { runScenario } = await import('./runner/run-scenario.ts');
    const transcript = await runScenario(scenario, {
      log: (line) => console.log(line),
      databaseUrl: args.values['database-url'] ?? undefined,
    });
    if (args.values.json) {
      await writeFile(args.values.json, `${JSON.stringify(transcript, null, 2)}\n`);
      console.log(`Transcript written to ${args.values.json}`);
    }
    const fileArg = args.positionals[0] ? `${shown} ` : '';
    if (args.values.html) {
      const { renderTranscriptHtml } = await import('./runner/html.ts');
      await writeFile(args.values.html, renderTranscriptHtml(transcript, `Scenario: ${scenario.name ?? file}`));
      console.log(
        `Page written to ${args.values.html}: open it in a browser to see every comment and check as GitHub shows them.`,
      );
    } else {
      console.log('');
      console.log('To see every comment, check run and the issues as GitHub shows them, write the page and open it:');
      console.log(`  npm run simulate -- ${fileArg}--html arbiter-run.html`);
    }
    return 0;
  } catch (e) {
    if (e instanceof ScenarioInvalidError) {
      console.error(`${e.file} is not a valid scenario:`);
      for (const line of e.errors) console.error(`  ${line}`);
      return 1;
    }
    if (e instanceof ScenarioRunError) {
      console.error(`Scenario failed: ${e.message}`);
      return 1;
    }
    console.error(e);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
