// The reply to a slash command while the repository's configuration does not validate: what is
// wrong (the file's lines), where the failing check is, and that nothing runs until it is fixed. Pure.

/** The longest command line quoted back. */
const MAX_QUOTE = 200;
/** At most this many problems are listed; the check lists every one. */
const MAX_PROBLEMS = 10;

export function renderConfigInvalidReply(input: {
  line: string;
  user: string;
  path: string;
  /** The `path (line N): message` lines, one per problem; empty when they were not recorded. */
  problems: string;
  fileUrl: string;
}): string {
  const quoted = `> ${input.line.length > MAX_QUOTE ? `${input.line.slice(0, MAX_QUOTE)}…` : input.line}`;
  const lines = input.problems.split('\n').filter((l) => l.trim() !== '');
  const listed = lines.slice(0, MAX_PROBLEMS).map((l) => `- ${l}`);
  if (lines.length > MAX_PROBLEMS)
    listed.push(`- … and ${lines.length - MAX_PROBLEMS} more (the check lists them all)`);
  return [
    quoted,
    '',
    `@${input.user}: Arbiter runs no command and acts on nothing here until [\`${input.path}\`](${input.fileUrl}) on the default branch validates. The failing \`Arbiter / config\` check on the branch's head names every problem.`,
    ...(listed.length > 0 ? ['', ...listed] : []),
  ].join('\n');
}
