// An argument form generated from a tool's input JSON Schema: text, number, boolean, enum and
// string-list fields for flat schemas, a raw JSON editor for anything else (or on request). The
// schema's titles and descriptions are the server's: shown with hidden characters revealed, and
// a value (a server's default, say) that hides characters is shown revealed beside its field.
import { useEffect, useEffectEvent, useMemo, useRef, useState } from "react";
import type { JsonSchema } from "../mcp";
import { Revealed, RevealedCopy, revealedText } from "./revealed";
import { Choice } from "./choice";

type FieldKind = "string" | "number" | "integer" | "boolean" | "enum" | "multi" | "strings" | "json";

/** A choice of an enum: its value and what to call it. */
interface Choice {
  value: string;
  title: string;
}

/** The choices of a single-select schema: `enum` (titled by `enumNames`) or titled `oneOf`/`anyOf` consts. */
export function choicesOf(s: JsonSchema | undefined): Choice[] | null {
  if (!s) return null;
  if (Array.isArray(s.enum) && s.enum.every((v) => typeof v === "string"))
    return (s.enum as string[]).map((v, i) => ({ value: v, title: s.enumNames?.[i] ?? v }));
  const list = s.oneOf ?? s.anyOf;
  if (Array.isArray(list) && list.length && list.every((o) => typeof o.const === "string"))
    return list.map((o) => ({ value: o.const as string, title: o.title ?? (o.const as string) }));
  return null;
}

interface Field {
  name: string;
  kind: FieldKind;
  schema: JsonSchema;
  required: boolean;
}

function typeOf(s: JsonSchema): string | undefined {
  if (Array.isArray(s.type)) return s.type.find((t) => t !== "null");
  return s.type;
}

export function fieldsOf(schema: JsonSchema): Field[] {
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  return Object.entries(props).map(([name, s]) => {
    const t = typeOf(s);
    let kind: FieldKind = "json";
    if (t === "array" && choicesOf(s.items)) kind = "multi";
    else if ((t === "string" || t === undefined) && choicesOf(s)) kind = "enum";
    else if (t === "string") kind = "string";
    else if (t === "number") kind = "number";
    else if (t === "integer") kind = "integer";
    else if (t === "boolean") kind = "boolean";
    else if (t === "array" && s.items && typeOf(s.items) === "string") kind = "strings";
    return { name, kind, schema: s, required: required.has(name) };
  });
}

/** Whether the schema is simple enough for fields (otherwise raw JSON is the only editor). */
export function isFlat(schema: JsonSchema): boolean {
  return fieldsOf(schema).every((f) => f.kind !== "json");
}

type Values = Record<string, string | boolean>;

/** What was typed into a form (valid or not), to show it again as it was left. */
export interface FormDraft {
  values: Values;
  raw: boolean;
  rawText: string;
}

function initialValues(fields: Field[], initial?: Record<string, unknown>): Values {
  const v: Values = {};
  for (const f of fields) {
    const d = initial && f.name in initial ? initial[f.name] : f.schema.default;
    if (f.kind === "boolean") v[f.name] = typeof d === "boolean" ? d : false;
    // A value that is not one of the choices would leave the select showing a choice not made.
    else if (f.kind === "enum") v[f.name] = (choicesOf(f.schema) ?? []).some((c) => c.value === d) ? String(d) : "";
    else if (f.kind === "strings" || f.kind === "multi") v[f.name] = Array.isArray(d) ? d.map(String).join("\n") : "";
    else if (f.kind === "json") v[f.name] = d === undefined ? "" : JSON.stringify(d);
    else v[f.name] = d === undefined || d === null ? "" : String(d);
  }
  return v;
}

/** What to call a field in messages: its title, else its key. */
function labelOf(f: Field): string {
  return f.schema.title ?? f.name;
}

/** Builds the arguments object; throws a message naming the field (by its label) on bad input. */
export function argumentsOf(fields: Field[], values: Values): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const label = labelOf(f);
    const v = values[f.name];
    if (f.kind === "boolean") {
      out[f.name] = v === true;
      continue;
    }
    const text = typeof v === "string" ? v : "";
    if (text.trim() === "") {
      if (f.required) throw new Error(`${label} is required`);
      continue;
    }
    switch (f.kind) {
      case "number":
      case "integer": {
        const n = Number(text);
        if (!Number.isFinite(n) || (f.kind === "integer" && !Number.isInteger(n)))
          throw new Error(`${label} must be ${f.kind === "integer" ? "a whole number" : "a number"}`);
        out[f.name] = n;
        break;
      }
      case "strings":
      case "multi": {
        const list = text.split("\n").filter((l) => l !== "");
        const min = typeof f.schema.minItems === "number" ? f.schema.minItems : 0;
        const max = typeof f.schema.maxItems === "number" ? f.schema.maxItems : Infinity;
        if (list.length < min) throw new Error(`${label}: choose at least ${min}`);
        if (list.length > max) throw new Error(`${label}: choose at most ${max}`);
        out[f.name] = list;
        break;
      }
      case "json":
        try {
          out[f.name] = JSON.parse(text);
        } catch {
          throw new Error(`${label} is not valid JSON`);
        }
        break;
      default:
        out[f.name] = text;
    }
  }
  return out;
}

/** Each field's problem with its value, by field name, in the fields' order. */
function problemsOf(fields: Field[], values: Values): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of fields) {
    try {
      argumentsOf([f], values);
    } catch (e) {
      out.set(f.name, e instanceof Error ? e.message : String(e));
    }
  }
  return out;
}

export function SchemaForm(props: {
  schema: JsonSchema;
  /** Values to start from instead of the schema's defaults. */
  initial?: Record<string, unknown>;
  /** Called with the arguments, or with an error message when they are invalid. */
  onChange: (args: Record<string, unknown> | null, error: string | null) => void;
  onSubmit?: () => void;
  /** Shows every field's problem, touched or not (the user tried to submit). */
  showErrors?: boolean;
  /** What was typed when the form was last shown: it starts from that instead. */
  draft?: FormDraft | null;
  /** Called with what is typed as it changes, to be given back as `draft`. */
  onDraft?: (draft: FormDraft) => void;
}) {
  // By content: a catalog refresh hands over an equal schema, which must not wipe what was typed.
  const schemaKey = JSON.stringify(props.schema);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the schema counts by content (`schemaKey`), not by identity
  const fields = useMemo(() => fieldsOf(props.schema), [schemaKey]);
  const flat = fields.every((f) => f.kind !== "json");
  const { initial, onDraft } = props;
  const [start] = useState(() => startOf(fields, initial, props.draft));
  const [raw, setRaw] = useState(start.raw);
  const [values, setValues] = useState<Values>(start.values);
  const [rawText, setRawText] = useState(start.rawText);
  // Problems show for the fields the user has been in, or all once they tried to submit.
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [tried, setTried] = useState(false);

  // Another schema starts over; the first one was set up above (perhaps from a draft).
  const startedFor = useRef(fields);
  useEffect(() => {
    if (startedFor.current === fields) return;
    startedFor.current = fields;
    const next = startOf(fields, initial);
    setValues(next.values);
    setRawText(next.rawText);
    setRaw(next.raw);
    setTouched(new Set());
    setTried(false);
  }, [fields, initial]);

  // Only when what was typed changes, not when the parent hands over another `onDraft`.
  const draftChanged = useEffectEvent((draft: FormDraft) => onDraft?.(draft));
  useEffect(() => {
    draftChanged({ values, raw, rawText });
  }, [values, raw, rawText]);

  const rawError = raw ? parseRaw(rawText).error : null;
  const problems = raw ? new Map<string, string>() : problemsOf(fields, values);
  const args = raw ? parseRaw(rawText).value : problems.size ? null : argumentsOf(fields, values);
  const error = raw ? rawError : ([...problems.values()][0] ?? null);
  const showAll = tried || props.showErrors === true;
  const shown = raw ? rawError : ([...problems].find(([name]) => showAll || touched.has(name))?.[1] ?? null);
  const { onChange } = props;
  const key = JSON.stringify(args) + String(error);
  // Only when the result changes (by content, `key`): `args` is a new object at each render.
  const resultChanged = useEffectEvent(() => onChange(error ? null : args, error));
  useEffect(() => {
    resultChanged();
  }, [key]);

  const touch = (name: string) => setTouched((t) => (t.has(name) ? t : new Set(t).add(name)));
  const set = (name: string, v: string | boolean) => {
    setValues((old) => ({ ...old, [name]: v }));
    touch(name);
  };
  const submitOnEnter = (e: React.KeyboardEvent) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      setTried(true);
      props.onSubmit?.();
    }
  };

  return (
    <div className="schema-form" onKeyDown={submitOnEnter}>
      <div className="form-toolbar">
        <label className="toggle">
          <input
            type="checkbox"
            data-testid="args-raw-toggle"
            checked={raw}
            disabled={!flat}
            onChange={(e) => {
              const toRaw = e.currentTarget.checked;
              if (toRaw) setRawText(JSON.stringify(argumentsSafe(fields, values), null, 2));
              setRaw(toRaw);
            }}
          />
          Raw JSON
        </label>
      </div>
      {raw ? (
        <label className="field">
          <span>Arguments (JSON object)</span>
          <textarea
            data-testid="args-raw"
            className="mono"
            rows={8}
            spellCheck={false}
            value={rawText}
            aria-invalid={rawError !== null}
            onChange={(e) => setRawText(e.currentTarget.value)}
          />
          <RevealedCopy value={rawText} testid="args-raw" />
        </label>
      ) : fields.length === 0 ? (
        <p className="muted">This tool takes no arguments.</p>
      ) : (
        fields.map((f) => (
          <FieldInput key={f.name} field={f} value={values[f.name]} onChange={(v) => set(f.name, v)} onBlur={() => touch(f.name)} />
        ))
      )}
      <p className="form-error" role={shown ? "alert" : undefined}>
        {shown === null ? "\u00a0" : <Revealed text={shown} />}
      </p>
    </div>
  );
}

/** The form's first state: the draft if it fits these fields, else the defaults (or `initial`). */
function startOf(fields: Field[], initial?: Record<string, unknown>, draft?: FormDraft | null): FormDraft {
  const flat = fields.every((f) => f.kind !== "json");
  const values = initialValues(fields, initial);
  if (draft) return { values: { ...values, ...draft.values }, raw: draft.raw || !flat, rawText: draft.rawText };
  return { values, raw: !flat, rawText: JSON.stringify(argumentsSafe(fields, values), null, 2) };
}

function argumentsSafe(fields: Field[], values: Values): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    try {
      Object.assign(out, argumentsOf([{ ...f, required: false }], values));
    } catch {
      // Leave invalid fields out of the raw view.
    }
  }
  return out;
}

function parseRaw(text: string): { value: Record<string, unknown> | null; error: string | null } {
  if (text.trim() === "") return { value: {}, error: null };
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== "object" || v === null || Array.isArray(v)) {
      return { value: null, error: "Arguments must be a JSON object" };
    }
    return { value: v as Record<string, unknown>, error: null };
  } catch (e) {
    return { value: null, error: `Invalid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Input types for the string formats elicitation allows. */
const INPUT_TYPES: Record<string, string> = { email: "email", uri: "url", date: "date" };

function FieldInput(props: {
  field: Field;
  value: string | boolean | undefined;
  onChange: (v: string | boolean) => void;
  onBlur: () => void;
}) {
  const { field } = props;
  const id = `arg-${field.name}`;
  const label = (
    <span>
      <Revealed text={field.schema.title ?? field.name} />
      {field.required ? <abbr title="required"> *</abbr> : null}
    </span>
  );
  const text = typeof props.value === "string" ? props.value : "";
  const help = (
    <>
      <RevealedCopy value={text} testid={id} />
      {field.schema.description ? (
        <small className="muted">
          <Revealed text={field.schema.description} />
        </small>
      ) : null}
    </>
  );
  switch (field.kind) {
    case "boolean":
      return (
        <label className="field check" onBlur={props.onBlur}>
          <input
            type="checkbox"
            data-testid={id}
            checked={props.value === true}
            onChange={(e) => props.onChange(e.currentTarget.checked)}
          />
          {label}
          {help}
        </label>
      );
    case "enum":
      return (
        <label className="field" onBlur={props.onBlur}>
          {label}
          <Choice data-testid={id} value={text} onChoose={props.onChange}>
            {/* Without an empty choice the browser shows the first option as chosen while none is,
                and choosing it fires no change. */}
            <option value="" disabled={field.required}>
              {field.required ? "Choose…" : "(none)"}
            </option>
            {(choicesOf(field.schema) ?? []).map((c) => (
              <option key={c.value} value={c.value}>
                {revealedText(c.title)}
              </option>
            ))}
          </Choice>
          {help}
        </label>
      );
    case "multi": {
      const picked = new Set(text.split("\n").filter((l) => l !== ""));
      const choices = choicesOf(field.schema.items) ?? [];
      return (
        <fieldset className="field multi" data-testid={id} onBlur={props.onBlur}>
          <legend>{label}</legend>
          {choices.map((c) => (
            <label key={c.value} className="check">
              <input
                type="checkbox"
                data-testid={`${id}-${c.value}`}
                checked={picked.has(c.value)}
                onChange={(e) => {
                  const next = new Set(picked);
                  if (e.currentTarget.checked) next.add(c.value);
                  else next.delete(c.value);
                  // Keep the schema's order.
                  props.onChange(choices.filter((x) => next.has(x.value)).map((x) => x.value).join("\n"));
                }}
              />
              <Revealed text={c.title} />
            </label>
          ))}
          {help}
        </fieldset>
      );
    }
    case "strings":
    case "json":
      return (
        <label className="field" onBlur={props.onBlur}>
          {label}
          <textarea
            data-testid={id}
            className="mono"
            rows={3}
            value={text}
            placeholder={field.kind === "strings" ? "one per line" : "JSON"}
            onChange={(e) => props.onChange(e.currentTarget.value)}
          />
          {help}
        </label>
      );
    default:
      return (
        <label className="field" onBlur={props.onBlur}>
          {label}
          <input
            data-testid={id}
            type={field.kind !== "string" ? "number" : (INPUT_TYPES[field.schema.format ?? ""] ?? "text")}
            step={field.kind === "integer" ? 1 : "any"}
            value={text}
            onChange={(e) => props.onChange(e.currentTarget.value)}
          />
          {help}
        </label>
      );
  }
}
