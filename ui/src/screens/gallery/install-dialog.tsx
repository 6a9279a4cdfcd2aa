// Installing a registry listing: its install form, the way to run it when there are several, the
// values that way asks for and the local name; the shell then shows the native trust dialog.
import type { FormEvent } from "react";
import { useEffect, useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { InstallForm } from "../../bindings/InstallForm";
import type { RegistryRef } from "../../bindings/RegistryRef";
import { ErrorBanner } from "../../components/error-banner";
import { GalleryDialog, InstallFooter, useInstall } from "./dialog";
import type { Values } from "./install-fields";
import { filled, initialValues, InstallFields } from "./install-fields";

export function InstallDialog(props: {
  backend: Backend;
  server: RegistryRef;
  /** The listing's shown title, until its form has loaded. */
  title: string;
  onInstalled: (name: string) => void;
  onClose: () => void;
}) {
  const { backend, server } = props;
  const [form, setForm] = useState<InstallForm | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    backend.installForm(server).then(
      (f) => live && setForm(f),
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [backend, server]);
  return (
    <GalleryDialog title={`Install ${form?.text.title || props.title}`} testId="install-dialog" onClose={props.onClose}>
      {form ? (
        <RegistryInstall backend={backend} server={server} form={form} onInstalled={props.onInstalled} onClose={props.onClose} />
      ) : error ? (
        <>
          <ErrorBanner error={error} testId="install-error" role="alert" />
          <div className="actions">
            <button onClick={props.onClose}>Close</button>
          </div>
        </>
      ) : (
        <p className="muted">Reading its install form…</p>
      )}
    </GalleryDialog>
  );
}

function RegistryInstall(props: {
  backend: Backend;
  server: RegistryRef;
  form: InstallForm;
  onInstalled: (name: string) => void;
  onClose: () => void;
}) {
  const { backend, form } = props;
  const [at, setAt] = useState(0);
  const option = form.choices[at] ?? null;
  const needs = option?.needs ?? [];
  const [values, setValues] = useState<Values>(() => initialValues(needs));
  const [name, setName] = useState(form.name);
  const state = useInstall(needs, values, props.onInstalled);
  const t = form.text;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!option) return;
    const request = { server: props.server, choice: option.choice, kind: null, name: name.trim() || null, values: filled(needs, values) };
    state.install(() => backend.installServer(request));
  };
  return (
    <form noValidate onSubmit={submit} data-testid="install-form">
      <p>
        <code>{t.name}</code> <span className="muted">v{t.version}</span>
      </p>
      {t.description ? <p className="listing-description">{t.description}</p> : null}
      {form.choices.length > 1 ? (
        <div className="field">
          <label htmlFor="install-choice">How to run it</label>
          <select
            id="install-choice"
            data-testid="install-choice"
            value={at}
            onChange={(e) => {
              const next = Number(e.currentTarget.value);
              setAt(next);
              setValues(initialValues(form.choices[next]?.needs ?? []));
            }}
          >
            {form.choices.map((c, i) => (
              <option key={i} value={i}>
                {c.label}
              </option>
            ))}
          </select>
        </div>
      ) : option ? (
        <p className="muted" data-testid="install-only-choice">
          {option.label}
        </p>
      ) : (
        <ErrorBanner error="Its registry lists no way to run it here." testId="install-error" />
      )}
      <InstallFields
        backend={backend}
        needs={needs}
        values={values}
        problems={state.problems}
        onChange={(key, value) => setValues((v) => ({ ...v, [key]: value }))}
        onError={state.setError}
      />
      <InstallFooter name={name} onName={setName} state={state} onClose={props.onClose} />
    </form>
  );
}
