// The one place that reads process.env: every setting is validated once at start-up, with a
// message that names the variable (or its _FILE form), and handed to the rest of the server as a
// typed object. Every problem is reported at once, not the first alone.
import fs from 'node:fs';
import path from 'node:path';
import { withDerivedDefaults, type Config } from './derived';
import { RULES } from './rules';
import { fileVariable, SETTINGS, type Setting, type Settings } from './settings';

export class ConfigError extends Error {}

/** What the operator wrote for a setting, and where, so a message names that variable. */
type Written = { value: string | undefined; from: string } | { problem: string };

/**
 * The value from the environment, or for a secret from its file: the file's content with one
 * trailing newline trimmed (what `echo secret > file` leaves). Messages name the variables and the
 * path, never what the file holds.
 */
function written(declared: Setting<unknown>, env: NodeJS.ProcessEnv): Written {
  // An empty variable counts as unset.
  const value = env[declared.env] || undefined;
  const file = declared.secret ? env[fileVariable(declared)] || undefined : undefined;
  if (file === undefined) return { value, from: declared.env };
  if (value !== undefined)
    return { problem: `${declared.env} and ${fileVariable(declared)}: set one of them, not both` };
  let content: string;
  try {
    content = fs.readFileSync(path.resolve(file), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    return { problem: `${fileVariable(declared)}: cannot read ${file} (${code})` };
  }
  const trimmed = content.replace(/\r?\n$/, '');
  if (trimmed === '') return { problem: `${fileVariable(declared)}: ${file} is empty` };
  return { value: trimmed, from: `${declared.env} (from ${fileVariable(declared)})` };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const settings: Record<string, unknown> = {};
  for (const [key, declared] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const given = written(declared, env);
    if ('problem' in given) {
      problems.push(`  ${given.problem}`);
      continue;
    }
    const parsed = declared.parse.safeParse(given.value ?? declared.default);
    if (parsed.success) settings[key] = parsed.data;
    else problems.push(...parsed.error.issues.map((issue) => `  ${given.from}: ${issue.message}`));
  }
  if (problems.length === 0) {
    for (const rule of RULES)
      if (!rule.holds(settings as Settings))
        problems.push(`  ${SETTINGS[rule.setting].env}: ${rule.message}`);
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  return withDerivedDefaults(settings as Settings);
}
