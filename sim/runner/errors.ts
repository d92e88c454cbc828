// Typed errors of the scenario runner: an invalid scenario file, and a run that failed
// (the app died, a contract violation, or something never became quiet).
export class ScenarioInvalidError extends Error {
  constructor(
    readonly file: string,
    readonly errors: string[],
  ) {
    super(`${file} is not a valid scenario:\n${errors.join('\n')}`);
    this.name = 'ScenarioInvalidError';
  }
}

export class ScenarioRunError extends Error {
  constructor(
    message: string,
    /** The last lines the Arbiter process wrote, when it matters. */
    readonly appOutput: string = '',
  ) {
    super(appOutput ? `${message}\n--- Arbiter output (last lines) ---\n${appOutput}` : message);
    this.name = 'ScenarioRunError';
  }
}
