// `npm run lint`: ESLint with typescript-eslint (type-aware) and React's hook rules, zero warnings
// allowed. Correctness only: layout is Prettier's job, and eslint-config-prettier switches off
// anything that would fight it.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'test-artifacts/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      // The SQLite engine keeps the async store contract with synchronous bodies on purpose.
      '@typescript-eslint/require-await': 'off',
      // Our objects are closures (createX returns methods that never use `this`), so passing a
      // method on is safe; the rule cannot tell.
      '@typescript-eslint/unbound-method': 'off',
      // Input rules match control characters precisely to refuse them.
      'no-control-regex': 'off',
      // React Router answers a status by throwing a Response from a loader or action.
      '@typescript-eslint/only-throw-error': [
        'error',
        { allow: [{ from: 'lib', name: 'Response' }] },
      ],
      // A `let` read by a callback before its one assignment cannot be a const (the read would throw).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // An error a library hands us as `unknown` is passed on as it came.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // Express tells an error handler by its four parameters, so `_next` must stay.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Plain JavaScript (config files, a few helpers) is outside the TypeScript project.
    files: ['**/*.{js,cjs,mjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.{js,cjs}'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['client/**/*.{ts,tsx}', 'test/client/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Tests read JSON answers and parsed mail, which are `any` by nature.
    files: ['test/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  prettier,
  {
    // Prettier wraps code at 100; this keeps comments there too. Text a reader searches for
    // whole (strings, template literals, URLs, regular expressions) may run longer.
    files: ['{server,client,shared,scripts,test}/**/*.{ts,tsx,js,cjs,mjs,mts}'],
    rules: {
      'max-len': [
        'error',
        {
          code: 100,
          ignoreUrls: true,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreRegExpLiterals: true,
        },
      ],
    },
  },
);
