// ESLint for the UI: the React hooks rules (rules-of-hooks, exhaustive-deps), as errors, over
// the TypeScript sources; type checking stays with tsc (npm run typecheck). The plugin's React
// Compiler rules are not enabled: the app does not use the compiler. A bare <select> is refused
// outside components/choice.tsx: React hears its choice late (see there).
import tsParser from "@typescript-eslint/parser";
import reactHooks from "eslint-plugin-react-hooks";

export default [
  { ignores: ["dist/**", "src/bindings/**"] },
  {
    files: ["src/**/*.{ts,tsx}"],
    languageOptions: {
      parser: tsParser,
      parserOptions: { ecmaFeatures: { jsx: true } },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
      "no-restricted-syntax": [
        "error",
        {
          selector: "JSXOpeningElement[name.name='select']",
          message: "Use <Choice> from components/choice: a bare <select> can lose a choice to a render.",
        },
      ],
    },
  },
  { files: ["src/components/choice.tsx"], rules: { "no-restricted-syntax": "off" } },
];
