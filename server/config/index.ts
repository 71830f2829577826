// The site's settings (README, docs/configuration.md), read and validated once at start-up:
// parsers.ts turns each variable's text into a value, settings.ts declares every setting once,
// rules.ts holds the rules between them, derived.ts the defaults that depend on others, load.ts
// reads process.env (the only module that does), and public.ts what may be shown.
export { asciiDomain } from './parsers';
export { fileVariable, SETTINGS } from './settings';
export type { Config, DkimSigning } from './derived';
export { ConfigError, loadConfig } from './load';
export { publicConfigOf, withoutCredentials } from './public';
