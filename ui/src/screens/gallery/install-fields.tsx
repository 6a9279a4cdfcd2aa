// The values an install asks for (a registry listing's or a bundle's), as form fields: a secret
// in a password field, choices in a list, a boolean as a checkbox, several values one per line, a
// folder or a file also chosen in the native picker.
// Values are strings keyed by the input's key; a boolean is "true" or "false".
import { useId } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { InstallInput } from "../../bindings/InstallInput";
import type { InstallInputKind } from "../../bindings/InstallInputKind";
import { Choice } from "../../components/choice";

export type Values = Record<string, string>;

const KINDS: Record<InstallInputKind, string> = {
  environment: "environment variable",
  argument: "argument",
  header: "HTTP header",
  urlVariable: "URL variable",
  setting: "setting",
};

/** The values a form starts with: each input's default (a boolean's is false). */
export function initialValues(needs: InstallInput[]): Values {
  return Object.fromEntries(needs.map((n) => [n.key, n.default ?? (n.format === "boolean" ? "false" : "")]));
}

function entries(n: InstallInput, value: string): string[] {
  return n.multiple && !n.secret ? value.split("\n").map((l) => l.trim()).filter(Boolean) : value.trim() ? [value] : [];
}

/** What is wrong with the values, per key: a required one missing, a number that is not one. */
export function problems(needs: InstallInput[], values: Values): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of needs) {
    const given = entries(n, values[n.key] ?? "");
    if (!given.length) {
      if (n.required) out[n.key] = "required";
      continue;
    }
    if (n.format !== "number") continue;
    for (const v of given) {
      const x = Number(v);
      if (!Number.isFinite(x)) out[n.key] = "not a number";
      else if (n.min !== null && x < n.min) out[n.key] = `at least ${n.min}`;
      else if (n.max !== null && x > n.max) out[n.key] = `at most ${n.max}`;
    }
  }
  return out;
}

/** The values to send: those given, several values one per line. */
export function filled(needs: InstallInput[], values: Values): Values {
  const out: Values = {};
  for (const n of needs) {
    const given = entries(n, values[n.key] ?? "");
    if (given.length) out[n.key] = given.join("\n");
  }
  return out;
}

export function InstallFields(props: {
  backend: Backend;
  needs: InstallInput[];
  values: Values;
  /** Shown once the person has tried to install. */
  problems: Record<string, string> | null;
  onChange: (key: string, value: string) => void;
  onError: (message: string) => void;
}) {
  if (!props.needs.length) return <p className="muted">It asks for nothing.</p>;
  return (
    <>
      {props.needs.map((n) => (
        <InputField
          key={n.key}
          backend={props.backend}
          input={n}
          value={props.values[n.key] ?? ""}
          problem={props.problems?.[n.key] ?? null}
          onChange={(v) => props.onChange(n.key, v)}
          onError={props.onError}
        />
      ))}
    </>
  );
}

function InputField(props: {
  backend: Backend;
  input: InstallInput;
  value: string;
  problem: string | null;
  onChange: (value: string) => void;
  onError: (message: string) => void;
}) {
  const { input: n, value, onChange } = props;
  const id = useId();
  const common = {
    id,
    "aria-required": n.required,
    "aria-invalid": props.problem ? true : undefined,
    "aria-describedby": n.description || props.problem ? `${id}-hint` : undefined,
    "data-testid": "install-input",
    "data-key": n.key,
  };
  const label = (
    <label htmlFor={id}>
      <code>{n.key}</code>
      {n.required ? " (required)" : ""} <span className="muted">{KINDS[n.kind]}</span>
    </label>
  );
  const hint = (
    <span className="hint muted" id={`${id}-hint`}>
      {n.description}
      {props.problem ? <strong className="warn-text"> {n.description ? "— " : ""}{props.problem}</strong> : null}
    </span>
  );
  if (n.format === "boolean" && !n.choices.length) {
    return (
      <div className="field check">
        <input type="checkbox" {...common} checked={value === "true"} onChange={(e) => onChange(String(e.currentTarget.checked))} />
        {label}
        {hint}
      </div>
    );
  }
  // A folder or a file can also be chosen in the native picker.
  const picker = n.secret ? null : n.format === "directory" ? "folder" : n.format === "file" || n.format === "filepath" ? "file" : null;
  const choose = () =>
    (picker === "file" ? props.backend.pickFile() : props.backend.pickFolder()).then(
      (path) => {
        if (path) onChange(n.multiple && value.trim() ? `${value.trimEnd()}\n${path}` : path);
      },
      (e: unknown) => props.onError(errorMessage(e)),
    );
  return (
    <div className="field">
      {label}
      {n.choices.length ? (
        <Choice {...common} value={value} onChoose={onChange}>
          {n.required && value ? null : <option value="">—</option>}
          {n.choices.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </Choice>
      ) : n.secret ? (
        <input {...common} type="password" autoComplete="off" value={value} onChange={(e) => onChange(e.currentTarget.value)} />
      ) : n.multiple ? (
        <textarea
          {...common}
          rows={3}
          placeholder={n.placeholder ?? "One per line"}
          value={value}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      ) : (
        <input
          {...common}
          type={n.format === "number" ? "number" : "text"}
          min={n.min ?? undefined}
          max={n.max ?? undefined}
          step={n.format === "number" ? "any" : undefined}
          placeholder={n.placeholder ?? (n.format === "directory" ? "A folder" : n.format.includes("file") ? "A file's path" : undefined)}
          spellCheck={false}
          value={value}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      )}
      {picker ? (
        <div>
          <button type="button" className="small" data-testid={`install-pick-${picker}`} onClick={() => void choose()}>
            {n.multiple ? `Add a ${picker}…` : `Choose a ${picker}…`}
          </button>
        </div>
      ) : null}
      {hint}
    </div>
  );
}
